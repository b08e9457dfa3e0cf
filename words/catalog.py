"""Other names of well-known books: what a listener may call a book the library holds
under another name.

A library folder of 哈利波特与魔法石 with no album.json is still "Harry Potter and the
Sorcerer's Stone" to an American child and "the philosopher's stone" to a British one; a
folder named "Journey to the West" is 西游记 to a grandmother. ``words/catalog/works.toml``
lists well-known works (Chinese and world classics, children's books and series volumes,
popular fiction and non-fiction), each with the English and Chinese titles really used
for it: the original, the usual translations, regional and older titles. `known_as` gives
a title's other names, which the player matches beside the album's own aliases (from
album.json); they are for matching only, never spoken (an album is named by its title or
its album.json aliases, `player.texts.album_name`).

    known_as("哈利波特与魔法石")   # ("Harry Potter and the Philosopher's Stone", …)

`library_names` gives them for a whole library at once, without the names another book of
it answers to, for the words layer's `TitleIndex`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from importlib import resources

from .text import has_cjk, normalize

__all__ = ["known_as", "library_names", "works"]

_EDITION = re.compile(r"[（(【\[][^）)】\]]*[）)】\]]")
"""A bracketed edition note after a title: "西游记（少儿版）", "Dune (Unabridged)"."""


@cache
def _parsed() -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Every work of ``words/catalog/works.toml`` as (all its names, English ones first;
    the names of it by its series and part, or ()); raises ValueError for a work without a
    name in each language."""
    text = resources.files("words").joinpath("catalog", "works.toml").read_text("utf-8")
    found = []
    for number, work in enumerate(tomllib.loads(text).get("work", ()), 1):
        en = [str(n).strip() for n in work.get("en", ()) if str(n).strip()]
        zh = [str(n).strip() for n in work.get("zh", ()) if str(n).strip()]
        if not en or not zh:
            raise ValueError(f"catalog work {number} needs an English and a Chinese title")
        series = tuple(_series_names(work, number))
        found.append((tuple(dict.fromkeys(en + zh + list(series))), series))
    return tuple(found)


@cache
def works() -> tuple[tuple[str, ...], ...]:
    """Every work of ``words/catalog/works.toml`` as the tuple of its names (English ones
    first); raises ValueError for a work without a name in each language."""
    return tuple(names for names, _series in _parsed())


_EN_COUNTS = "one two three four five six seven eight nine ten".split()
_EN_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_ZH_COUNTS = "一二三四五六七八九十"


def _series_names(work: dict, number: int) -> list[str]:
    """A series volume said by its series and part (``series = ["Harry Potter", "哈利波特"]``
    and ``part = 2`` in works.toml): "Harry Potter 2", "Harry Potter two", "Harry Potter book
    two", "the second Harry Potter", 哈利波特第二部, 哈利波特2; raises ValueError for a
    series without a part from 1 to 10."""
    series = [str(n).strip() for n in work.get("series", ()) if str(n).strip()]
    if not series:
        return []
    part = work.get("part")
    if not isinstance(part, int) or not 1 <= part <= 10:
        raise ValueError(f"catalog work {number}: a series volume needs a part from 1 to 10")
    word, ordinal, zh = _EN_COUNTS[part - 1], _EN_ORDINALS[part - 1], _ZH_COUNTS[part - 1]
    names = []
    for name in series:
        if has_cjk(name):
            names += [f"{name}{part}", f"{name}{zh}"]
            names += [f"{name}第{n}{unit}" for n in (part, zh) for unit in "部本册卷"]
        else:
            names += [f"{name} {part}", f"{name} {word}", f"the {ordinal} {name}"]
            names += [f"{name} {unit} {n}" for unit in ("book", "part") for n in (part, word)]
            names += [f"{ordinal} {name} book", f"the {ordinal} {name} book"]
            # "the second book of the Three-Body trilogy", "book two of Harry Potter"
            whole = [name] if name.lower().startswith("the ") else [name, f"the {name}"]
            whole += [f"the {name} {kind}" for kind in ("series", "trilogy", "books")]
            names += [f"{lead} of {w}" for w in whole for lead in (
                f"the {ordinal} book", f"{ordinal} book", f"book {part}", f"book {word}",
                f"part {part}", f"part {word}", f"the {ordinal} part", f"volume {part}",
                f"volume {word}")]  # fmt: skip
    return names


@cache
def _by_name() -> dict[str, tuple[str, ...]]:
    names: dict[str, tuple[str, ...]] = {}
    for work in works():
        for name in work:
            names.setdefault(normalize(name), work)
    return names


@lru_cache(maxsize=8192)
def known_as(title: str) -> tuple[str, ...]:
    """The other names of the work titled `title` (compared folded, without spaces,
    punctuation or a bracketed edition note) that are long enough to mean it (`_distinct`),
    or () when the catalog does not hold it."""
    own = normalize(title)
    work = _named(_by_name(), title)
    return tuple(n for n in work if normalize(n) != own and _distinct(n))


def _named(by_name: dict[str, tuple[str, ...]], title: str) -> tuple[str, ...]:
    """What `by_name` holds for `title`, compared folded, with or without a bracketed
    edition note; () when nothing."""
    for key in (normalize(title), normalize(_EDITION.sub("", title))):
        if key and key in by_name:
            return by_name[key]
    return ()


def _distinct(name: str) -> bool:
    """A name long enough to mean the book when said: three Chinese characters or four
    letters and digits ("Dune", "1984"); 孙子, 家 and "It" are everyday words far more
    often than a title (给我孙子放个…)."""
    key = normalize(name)
    return len(key) >= (3 if has_cjk(key) else 4)


@cache
def _series() -> dict[str, tuple[str, ...]]:
    """Each name of a series volume -> the names of it by its series and part."""
    found: dict[str, tuple[str, ...]] = {}
    for names, series in _parsed():
        for name in names if series else ():
            found.setdefault(normalize(name), series)
    return found


def _series_of(title: str) -> tuple[str, ...]:
    """The names of the series volume titled `title` by its series and part ("Harry Potter
    two", 哈利波特第二部), or () for a title that is none."""
    return _named(_series(), title)


def library_names(
    books: Iterable[tuple[str, Sequence[str]]],
) -> list[tuple[str, ...]]:
    """For each book of a library, given as (title, aliases), the names the catalog gives
    a series volume by its series and part ("Harry Potter two", 哈利波特第二部, "the second
    book of the Three-Body trilogy") that say that book and no other: none that is another
    book's title or alias, and a name two books share (an English and a Chinese edition of
    one volume) only for the book written in the name's own script, or for none when that
    does not decide. Only these: a work's other titles ("Midnight" for 子夜) stand inside
    too many other titles to be found in what is said; the player matches them when a
    keyword is looked up (`known_as`)."""
    books = list(books)
    owner: dict[str, set[int]] = {}
    for i, (title, aliases) in enumerate(books):
        for name in (title, *aliases):
            owner.setdefault(normalize(name), set()).add(i)
    found = [_series_of(title) for title, _ in books]
    claims: dict[str, set[int]] = {}
    for i, names in enumerate(found):
        for name in names:
            claims.setdefault(normalize(name), set()).add(i)
    out = []
    for i, names in enumerate(found):
        keep = []
        for name in names:
            key = normalize(name)
            if owner.get(key, {i}) != {i}:
                continue
            sharers = claims[key]
            if len(sharers) > 1:
                same = [j for j in sharers if has_cjk(books[j][0]) == has_cjk(name)]
                if same != [i]:
                    continue
            keep.append(name)
        out.append(tuple(keep))
    return out
