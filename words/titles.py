"""Titles: how well a keyword matches a title, and which library titles an utterance names.

`match_score` ranks one album against a search keyword (the player's search): 100 exact,
95 prefix, 90 substring, 70 author substring, 60..80 for a near match within a small edit
distance (rapidfuzz Levenshtein), 75 for words that sound like the title as one run
("the hob it", `SOUND`; 65 one sound off: "frank and stein"), 65 when every word of the keyword is found ("jorney
west"), 60 when the title stands inside a longer keyword ("西游记第二集"), 0 for no match.

`TitleIndex` finds the library's titles in an utterance in any form a listener uses: the
title itself (after `text.fold`: case, width, traditional script), a name from the album's
``aliases`` (its title in the other language), a part or volume said another way (三体第二部
for 三体2), a short form that names one title only (哈利波特 for 哈利波特与魔法石, "monte
cristo"), and a Chinese title heard as its sound (西游季 for 西游记, by pinyin without
tones, from pypinyin's character table). It knows the albums' people too (author,
narrator): a person's whole name said names their book when they have one only
("王刚讲的那个"), and `people_in` gives the names said whatever their count of books, for a
search by the name ("金庸的武侠").
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from .numbers import chinese_number
from .text import LATIN_CHAR, fold, normalize

__all__ = [
    "AUTHOR",
    "CONTAINED",
    "EXACT",
    "FUZZY_MAX",
    "PREFIX",
    "SOUND",
    "STOP_WORDS",
    "SUBSTRING",
    "WORDS",
    "Named",
    "TitleIndex",
    "allowed_typos",
    "function_only",
    "is_stop_word",
    "keyword_spans",
    "match_score",
    "sounds_alike",
    "sounds_inside",
    "title_named",
]

EXACT, PREFIX, SUBSTRING, AUTHOR, FUZZY_MAX, WORDS, CONTAINED = 100, 95, 90, 70, 80, 65, 60

STOP_WORDS = frozenset(
    "the a an i me my of to and play book books story audiobook album episode chapter "
    "书 本 集 的 我 你 他 它 这 那 有声书 故事 专辑 小说".split()
)
"""Words that are never a search keyword on their own (a one-letter word neither)."""


def title_named(title: str, text: str) -> bool:
    """True when `text` names `title` at token boundaries, after `fold`.

    A Chinese title needs at least two characters and may stand anywhere ("我想听西遊記"
    names 西游记); a Latin title must be whole words ("play it" names "It", "italy" does
    not); Chinese characters around a Latin title are a boundary ("我想听Dune").
    """
    core = normalize(title)
    if not core:
        return False
    if not core.isascii():
        return len(core) >= 2 and core in normalize(text)
    return re.search(_latin_pattern(_latin_words(title)), fold(text).replace("'", "")) is not None


def is_stop_word(keyword: str) -> bool:
    """True when `keyword`, folded, is one Latin letter or digit, or a word of `STOP_WORDS`.

    One CJK character ("家") is a title and stays searchable.
    """
    key = fold(keyword).strip()
    if key in STOP_WORDS:
        return True
    squashed = "".join(ch for ch in key if ch.isalnum())
    return len(squashed) <= 1 and squashed.isascii()


def allowed_typos(keyword: str) -> int:
    """Edit distance tolerated for a normalized keyword: 0 below 3 chars, 1 below 8, else 2."""
    if len(keyword) < 3:
        return 0
    return 1 if len(keyword) < 8 else 2


def _slip_of(key: str, name: str) -> bool:
    """True when a short Chinese `key` is a slip of `name`: one character of it more
    ("段三国" of 三国演义), or a run of `name` as long as it that sounds the same, character
    by character (pinyin without tones: 西游纪 of 西游记); 小兔子 is no slip of 小王子."""
    if any(key[:i] + key[i + 1 :] in name for i in range(len(key))):
        return True
    return sounds_inside(key, name)


def _sound_alike(heard: list[tuple[str, ...]], text: str) -> bool:
    """True when `text` sounds as `heard` (`_sounds` of another text as long), character by
    character: some reading of each in common."""
    return all(set(a) & set(b) for a, b in zip(heard, _sounds(text), strict=True))


def sounds_inside(words: str, text: str) -> bool:
    """True when Chinese `words` sound, character by character, as a run of `text` (pinyin
    without tones: 大闹天公 in 大闹天宫, 卢提辖 in 鲁提辖拳打镇关西)."""
    if not words or len(words) > len(text):
        return False
    heard = _sounds(words)
    return any(
        _sound_alike(heard, text[i : i + len(words)]) for i in range(len(text) - len(words) + 1)
    )


def _near(keyword: str, text: str, starts: frozenset[int] | None = None) -> int | None:
    """Smallest edit distance between `keyword` and any window of `text` (beginning at one
    of `starts` when given: a word's first letter), if small enough."""
    limit = allowed_typos(keyword)
    if limit == 0 or not text:
        return None
    best: int | None = None
    k = len(keyword)
    for size in range(max(1, k - limit), k + limit + 1):
        for start in range(0, max(1, len(text) - size + 1)):
            if starts is not None and start not in starts:
                continue
            d = Levenshtein.distance(keyword, text[start : start + size], score_cutoff=limit)
            if d <= limit and (best is None or d < best):
                best = d
                if d == 0:
                    return 0
    return best


def _word_starts(title: str, name: str) -> frozenset[int] | None:
    """Where the words of a Latin `title` begin in `name`, its `normalize`d form ("emma" is
    one typo from "thEMArtian" across two words, and names no word of The Martian); None
    for a title not all Latin, or one whose words do not join up to `name`."""
    if not name.isascii():
        return None
    words = [normalize(w) for w in title.split()]
    words = [w for w in words if w]
    if "".join(words) != name:
        return None
    starts, at = set(), 0
    for word in words:
        starts.add(at)
        at += len(word)
    return frozenset(starts)


def _word_run(text: str) -> str:
    return " " + " ".join(_latin_words(text)) + " "


def match_score(keyword: str, title: str, author: str = "") -> int:
    """How well `keyword` matches an album: 0 (no match) .. 100 (exact title)."""
    key = normalize(keyword)
    if not key:
        return 0
    name = normalize(title)
    if key == name:
        return EXACT
    if len(key) == 1:
        # One character ("家", "一") names only the title of that one character: inside a
        # longer title it is a letter of another word (一 of 一千零一夜, 家 of 家春秋).
        return 0
    if name.startswith(key):
        return PREFIX
    if key in name:
        return SUBSTRING
    if author and key in normalize(author):
        return AUTHOR
    # A near match is a typo, never another part or volume: 第七部 is not 第一部, "Dune 3"
    # is not "Dune 2".
    numerals = set(re.findall(r"[\d零〇一二两三四五六七八九十百千]", key))
    distance = _near(key, name, _word_starts(title, name)) if numerals <= set(name) else None
    if distance and len(key) <= 3 and _CJK_CHAR.search(key) and not _slip_of(key, name):
        distance = None  # 小兔子 is no slip of 小王子: a slip of three characters sounds the same
    sound = _sound_distance(keyword, title) if numerals <= set(name) else None
    if distance is not None or sound is not None:
        return max(
            FUZZY_MAX - 10 * distance if distance is not None else 0,
            SOUND - 10 * sound if sound is not None else 0,
        )
    # Words in any order ("holmes sherlock"); a stop word matches nearly every title, so
    # "a taxi" must not reach Great Expectations through "a" and "tati".
    words = [w for w in (normalize(part) for part in keyword.split()) if w and not is_stop_word(w)]
    if len(words) > 1 and all(
        w in name or _near(w, name) is not None or any(f in name for f in _word_forms(w))
        for w in words
    ):
        return WORDS
    # The whole request as keyword ("西游记第二集", "play moby dick chapter 3"): the title
    # stands inside it. Titles of one character would match too much; a Latin title only as
    # whole words ("Us" is not inside "two plus two").
    if len(name) >= 2 and name in key:
        if not name.isascii() or _word_run(title) in _word_run(keyword):
            return CONTAINED
    return 0


SOUND = 75
"""`match_score` of an English keyword that sounds like the title as one run of sounds,
words split or joined as a recogniser hears them ("frank and stein", "sure lock holmes",
"the hob it"): played as one typo is; 65 when one sound differs in a long run ("sherlok
homes"), asked about as a near title is."""


@functools.lru_cache(maxsize=4096)
def _sound_run(text: str) -> str:
    """The metaphone code of `text`'s Latin words joined, articles left out ("" for text
    that is not all Latin words, or of fewer than four sounds)."""
    if _CJK_CHAR.search(text):
        return ""
    words = [w for w in _latin_words(text) if w not in ("the", "a", "an")]
    if not words or not all(w.isalpha() for w in words):
        return ""
    code = _metaphone("".join(words))
    return code if len(code) >= 4 else ""


def _sound_distance(keyword: str, title: str) -> int | None:
    """0 when `keyword` and `title` sound the same as runs of sounds (`_sound_run`), 1 when
    one sound differs and both runs are seven sounds or longer; else None."""
    mine, theirs = _sound_run(keyword), _sound_run(title)
    if not mine or not theirs:
        return None
    if mine == theirs:
        return 0
    if min(len(mine), len(theirs)) >= 7 and Levenshtein.distance(mine, theirs) == 1:
        return 1
    return None


def _word_forms(word: str) -> tuple[str, ...]:
    """A normalized keyword word and, for an English plural, its singular ("bodies" for the
    title's "body", "problems" for "problem"): a listener's number is no other book. The
    singular is matched as it is, never one typo away ("titles" is no "little")."""
    if not word.isascii() or len(word) < 4:
        return (word,)
    if word.endswith("ies"):
        return (word, word[:-3] + "y")
    if word.endswith("s") and not word.endswith("ss"):
        return (word, word[:-1])
    return (word,)


# -- finding titles in an utterance -------------------------------------------------------

_LATIN_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+")
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


_SPELLED = {"mister": "mr", "missus": "mrs", "doctor": "dr", "saint": "st"}
"""A title's abbreviation as a listener says it, and as the title writes it."""


def _latin_words(text: str) -> list[str]:
    """The Latin words of `text` after `fold`, an apostrophe dropped ("Philosopher's" ->
    "philosophers")."""
    return _LATIN_WORD.findall(fold(text).replace("'", ""))


def _latin_pattern(words: list[str]) -> str:
    return rf"(?<!{LATIN_CHAR})" + r"[\W_]*".join(map(re.escape, words)) + rf"(?!{LATIN_CHAR})"


@dataclass(frozen=True)
class Named:
    """A library title an utterance names: `title` as the library spells it, the words
    that name it (`said`, folded) at `start`..`end` of the folded utterance, and `how`:
    "title", "alias", "edition", "short", "sound" or "person" (its one author or
    narrator's name)."""

    title: str
    said: str
    start: int
    end: int
    how: str


_SPELLED_OUT = {"dr": "doctor", "mr": "mister", "mrs": "missus", "st": "saint"}
"""Short titles of people in book titles, as said aloud ("Dr Jekyll and Mr Hyde")."""
_ZH_EDITION = re.compile(
    r"^(?P<base>.+?)\s*(?:第\s*(?P<n1>[\d一二三四五六七八九十]+)\s*[部本卷册季]|(?P<n2>\d+))$"
)
_EN_EDITION = re.compile(r"^(?P<base>.+?)\s+(?:(?:book|part|volume|vol)\s+)?(?P<n>\d+)$")
_EDITION_SAID_ZH = (
    "第{n}部|第{n}本|第{n}卷|第{n}册|第{n}季|{n}|第{cn}部|第{cn}本|第{cn}卷|第{cn}册|{cn}"
)
_EDITION_SAID_EN = "{n}|part {n}|book {n}|volume {n}|vol {n}"
_CN_SMALL = "零一二三四五六七八九十"
_PART_AFTER = re.compile(
    r"\s*(?:的|之)?\s*(?:第\s*(?P<n>[\d一二三四五六七八九十]+)\s*[部本卷册季](?!分)"
    r"|(?:part|book|volume)\s+(?P<n2>\d+)\b)"
)


def _zh_part(folded: str) -> tuple[str, int | None] | None:
    """The Chinese title `folded` as its series' name and part number ("三体2": ("三体",
    2), "明朝那些事儿 第一部": ("明朝那些事儿", 1)); None for a title with no part said or
    no Chinese in its name."""
    zh = _ZH_EDITION.match(folded)
    if not zh or not _CJK_CHAR.search(zh.group("base")):
        return None
    return zh.group("base").strip(), chinese_number(zh.group("n1") or zh.group("n2") or "")


def _cn(n: int) -> str:
    return _CN_SMALL[n] if n <= 10 else ("十" + _CN_SMALL[n - 10] if n < 20 else str(n))


@functools.cache
def _pinyin_table() -> dict[str, tuple[str, ...]]:
    """Each CJK character's readings without tones, from pypinyin's character table
    (pinyin_dict.json, read as data: the phrase tables pypinyin loads on import are not
    needed for single characters)."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / "pinyin_dict.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table = {}
    for code, readings in raw.items():
        plain = {_fuzzy(_toneless(r)) for r in readings.split(",") if r}
        table[chr(int(code))] = tuple(sorted(plain))
    return table


def _toneless(syllable: str) -> str:
    text = unicodedata.normalize("NFKD", syllable.replace("ü", "v"))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


_FUZZY = (("zh", "z"), ("ch", "c"), ("sh", "s"), ("ing", "in"), ("eng", "en"), ("ang", "an"))


def _fuzzy(syllable: str) -> str:
    """A syllable as an ear that mixes zh/z, ch/c, sh/s and -ng/-n hears it (as fuzzy
    pinyin input methods allow), l and n kept apart."""
    for a, b in _FUZZY:
        if a in syllable:
            syllable = syllable.replace(a, b)
    return syllable


def _metaphone(word: str) -> str:
    """How an English word sounds (jellyfish's metaphone), a first vowel as any vowel:
    "air" and "eyre" sound alike."""
    import jellyfish

    code = jellyfish.metaphone(word) or word
    return "A" + code[1:] if code[:1] in "AEIOU" else code


def sounds_alike(one: str, other: str) -> bool:
    """True when two folded English words sound alike ("soul" and "sol", by `_metaphone`),
    or are the same token; digits only as themselves."""
    if one == other:
        return True
    if not (one.isascii() and one.isalpha() and other.isascii() and other.isalpha()):
        return False
    return _metaphone(one) == _metaphone(other)


def _sounds(text: str) -> list[tuple[str, ...]]:
    table = _pinyin_table()
    return [table.get(ch, (ch,)) for ch in text]


class TitleIndex:
    """The library's titles, ready to be found in utterances (see the module docstring).

    `entries` are ``(title, aliases)``, ``(title, aliases, people)`` or ``(title, aliases,
    people, parts)``, people being the album's author and narrator (a name may hold
    several: "王刚、李野墨") and parts other ways to say which volume of a series the title
    is ("Harry Potter two", 哈利波特第二部: `words.catalog.library_names`), found whole like
    the parts a title's own number says ("三体2": 三体第二部) and never shortened. `function_words`
    (folded Latin words) and `function_chars` (CJK characters) are what no short form may
    be made of only: "the little" names nothing, nor does 我们 name 我们仨 (by default the
    phrase data's).
    """

    def __init__(
        self,
        entries: Iterable[
            tuple[str, Iterable[str]]
            | tuple[str, Iterable[str], Iterable[str]]
            | tuple[str, Iterable[str], Iterable[str], Iterable[str]]
        ],
        *,
        function_words: Iterable[str] | None = None,
        function_chars: str | None = None,
    ) -> None:
        self.titles: list[str] = []
        chars, words = _function_data()
        self._function_words = words if function_words is None else frozenset(function_words)
        self._function_chars = chars if function_chars is None else frozenset(function_chars)
        # form key -> [(title, how)]; a CJK or mixed form is its `normalize`d text, a Latin
        # one its words joined by one space.
        self._forms: dict[str, list[tuple[str, str]]] = {}
        self._latin: list[tuple[list[str], str, str]] = []  # (words, title, how)
        self._cjk: list[tuple[str, str, str]] = []  # (key, title, how)
        self._single: dict[str, str] = {}  # one-character titles
        # A person's name -> the titles they wrote or read; forms as (key, name), a Latin
        # key a tuple of its words, the longest first.
        self._people: dict[str, set[str]] = {}
        people_forms: dict[str | tuple[str, ...], str] = {}
        seen: set[str] = set()
        for title, aliases, *rest in entries:
            if not str(title).strip():
                continue
            people = rest[0] if rest else ()
            parts = rest[1] if len(rest) > 1 else ()
            for person in (people,) if isinstance(people, str) else people:
                for name in _names(str(person)):
                    key = self._person_key(name)
                    if key is not None:
                        name = people_forms.setdefault(key, name)
                        self._people.setdefault(name, set()).add(title)
            if title in seen:
                continue
            seen.add(title)
            self.titles.append(title)
            self._add(title, title, "title")
            for alias in aliases:
                if str(alias).strip():
                    self._add(alias, title, "alias")
            for form in (*self._editions(title), *parts):
                self._add(form, title, "edition")
        for form, title in self._halves():
            self._add(form, title, "edition")
        self._cjk.sort(key=lambda f: -len(f[0]))
        self._latin.sort(key=lambda f: -len(f[0]))
        self._person_forms = sorted(people_forms.items(), key=lambda f: -len(f[0]))
        self._title_words = frozenset(w for words, _, _ in self._latin for w in words)
        # each person's name as its folded words ("J. R. R. Tolkien": j, r, tolkien)
        self._name_words = {n: frozenset(re.findall(r"[\w']+", fold(n))) for n in self._people}
        self._firsts = self._first_of_series()
        self._starts: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None
        # Titles in parts ("单田芳 三侠五义": a reader's name and the book), said with words
        # between them ("单田芳说的三侠五义"); the last part may be short ("袁阔成讲的三国").
        self._parts = [
            (parts, title)
            for title in self.titles
            if _CJK_CHAR.search(title)
            and len(parts := [normalize(p) for p in fold(title).split() if normalize(p)]) >= 2
        ]
        # Titles with an acronym ("The BFG"), said as the words it stands for.
        self._acronyms = [
            (word.lower(), title)
            for title in self.titles
            for word in re.findall(r"\b[A-Z]{2,5}\b", title)
            if not _CJK_CHAR.search(title)
        ]

    def __len__(self) -> int:
        return len(self.titles)

    def _person_key(self, name: str) -> str | tuple[str, ...] | None:
        """How a person's name is found: its Latin words, or its `normalize`d text (two
        characters or more); None for a name that could be nothing else (one or two
        letters, digits, Chinese function characters)."""
        key = normalize(name)
        if re.fullmatch(r"[0-9a-z\u00c0-\u024f]+", key):
            return None if len(key) <= 2 or key.isdigit() else tuple(_latin_words(name))
        if len(key) < 2 or all(ch in self._function_chars for ch in key):
            return None
        return key

    def _add(self, text: str, title: str, how: str) -> None:
        key = normalize(text)
        if not key:
            return
        if re.fullmatch(r"[0-9a-z\u00c0-\u024f]+", key):
            words = _latin_words(text)
            form = " ".join(words)
            if (title, how) not in self._forms.setdefault(form, []):
                self._forms[form].append((title, how))
                self._latin.append((words, title, how))
            return
        if len(key) == 1:
            self._single.setdefault(key, title)
        if (title, how) not in self._forms.setdefault(key, []):
            self._forms[key].append((title, how))
            self._cjk.append((key, title, how))

    @staticmethod
    def _editions(title: str) -> list[str]:
        """Other ways to say a title's part or volume ("三体2": 三体第二部, 三体第2部,
        三体二; "明朝那些事儿 第一部": 明朝那些事儿1, and without the 儿 of its name
        said the southern way, 明朝那些事第一部; "Dune 2": "Dune part 2")."""
        folded = fold(title).strip()
        forms: list[str] = []
        spelled = re.sub(r"\b(dr|mr|mrs|st)\b\.?", lambda m: _SPELLED_OUT[m.group(1)], folded)
        if spelled != folded:  # "Doctor Jekyll and Mister Hyde"
            forms.append(spelled)
        zh = _zh_part(folded)
        if zh is not None:
            base, n = zh
            bases = [base, base[:-1]] if base.endswith("儿") and len(base) > 3 else [base]
            if n is not None and 0 < n < 100:
                forms += [
                    b + said
                    for b in bases
                    for said in _EDITION_SAID_ZH.format(n=n, cn=_cn(n)).split("|")
                ]
            return [f for f in forms if normalize(f) != normalize(title)]
        en = _EN_EDITION.match(folded)
        if en and not _CJK_CHAR.search(folded) and int(en.group("n")) < 100:
            n = int(en.group("n"))
            forms += [
                f"{en.group('base')} {said}" for said in _EDITION_SAID_EN.format(n=n).split("|")
            ]
            return [f for f in forms if normalize(f) != normalize(title)]
        return forms

    def _halves(self) -> list[tuple[str, str]]:
        """A Chinese series of two or three parts said by its halves or thirds ("平凡的世界
        下部" of 平凡的世界 and 平凡的世界 第二部: the second; 上部, 中部, 下部 of three), as
        ``(form, title)``."""
        series: dict[str, dict[int, str]] = {}
        for title in self.titles:
            part = _zh_part(fold(title).strip())
            if part is not None and part[1] is not None:
                series.setdefault(normalize(part[0]), {})[part[1]] = title
        for title in self.titles:
            if normalize(title) in series:
                series[normalize(title)].setdefault(1, title)
        said = {2: ("上部", "下部"), 3: ("上部", "中部", "下部")}
        return [
            (base + word, parts[n])
            for base, parts in series.items()
            if sorted(parts) in ([1, 2], [1, 2, 3])
            for n, word in zip(sorted(parts), said[len(parts)], strict=True)
        ]

    def _first_of_series(self) -> dict[str, str]:
        """Titles whose next parts are in the library ("三体" beside "三体2"): said with
        第一部 / "part 1" they are that first part."""
        firsts = {}
        for title in self.titles:
            key = normalize(title)
            if any(
                normalize(other) != key
                and re.fullmatch(re.escape(key) + r"[2-9]", normalize(other))
                for other in self.titles
            ):
                firsts[key] = title
        return firsts

    # -- finding

    def find(self, text: str) -> list[Named]:
        """The library titles `text` names, in order, none overlapping (the longest
        first): whole titles and aliases anywhere (a Chinese one of two characters or
        more; a Latin one as whole words), parts said another way, short forms of three
        Chinese characters or two Latin words that name one title only, Chinese titles
        of three characters or more heard by their sound, and last, where no title
        stands, the name of a person of one title only (how "person": "王刚讲的那个")."""
        found, people = self._scan(text)
        for name, said, start, end in people:
            if len(titles := self._people[name]) == 1:
                found.append(Named(next(iter(titles)), said, start, end, "person"))
        return sorted(found, key=lambda n: n.start)

    def knows_word(self, word: str) -> bool:
        """True when `word` (folded) is a word of a Latin title, alias or person's name of
        the library."""
        return word in self._title_words or any(word in w for w in self._name_words.values())

    def of_person(self, title: str, word: str) -> bool | None:
        """True when `word` (folded) is a word of the name of a person (author, narrator)
        of `title`; None when the library knows no person of it."""
        if not any(title in titles for titles in self._people.values()):
            return None
        return any(
            title in titles and word in self._name_words[name]
            for name, titles in self._people.items()
        )

    def people_in(self, text: str) -> list[str]:
        """The people of the library (authors, narrators, as the library spells them)
        whose whole name `text` says where no title stands, in order, whatever their
        count of books ("有没有金庸的武侠小说" -> ["金庸"]): a Chinese name as its
        characters, a Latin one as all its words in order; a one-word Latin name that is a
        function word or a word of a title only when written with a capital."""
        return list(dict.fromkeys(name for name, *_ in self._scan(text)[1]))

    def _scan(self, text: str) -> tuple[list[Named], list[tuple[str, str, int, int]]]:
        """The titles `text` names (unsorted) and the people it names where no title
        stands, as ``(name, said, start, end)`` in order (see `find`)."""
        folded = fold(text)
        found: list[Named] = []
        taken = [False] * len(folded)

        def free(start: int, end: int) -> bool:
            return not any(taken[start:end])

        def take(title: str, start: int, end: int, how: str) -> None:
            for i in range(start, end):
                taken[i] = True
            found.append(Named(title, folded[start:end], start, end, how))

        squashed, where = _squash_map(folded)
        # 0. Titles in parts with words between them.
        for parts, title in self._parts:
            span = _in_order(squashed, parts)
            if span is not None:
                start, end = where[span[0]], where[span[1] - 1] + 1
                if free(start, end):
                    take(title, start, end, "title")
        # 1. Chinese and mixed titles, aliases and parts, the longest first.
        for key, title, how in self._cjk:
            if len(key) < 2:
                continue
            for at in _find_all(squashed, key):
                start, end = where[at], where[at + len(key) - 1] + 1
                if not free(start, end) or not _latin_bounded(folded, start, end, key):
                    continue
                take(title, start, end, how)
        # 2. Latin titles and aliases as whole words.
        words = [
            (m.group(), m.start(), m.end()) for m in _LATIN_WORD.finditer(folded.replace("'", " "))
        ]
        words = _joined_apostrophes(folded, words)
        for form_words, title, how in self._latin:
            pronoun = all(w in self._function_words for w in form_words)
            for i in range(len(words) - len(form_words) + 1):
                if [w for w, _, _ in words[i : i + len(form_words)]] != form_words:
                    continue
                start, end = words[i][1], words[i + len(form_words) - 1][2]
                if pronoun and not _capitalised(text, start, end):
                    continue  # a pronoun ("it", "us") names no book; the title "It" does
                if free(start, end):
                    take(title, start, end, how)
        # 2b. An acronym said as its words ("the big friendly giant" is The BFG).
        for letters, title in self._acronyms:
            for i in range(len(words) - len(letters) + 1):
                run = words[i : i + len(letters)]
                if "".join(w[0] for w, _, _ in run) == letters and all(
                    w not in self._function_words for w, _, _ in run
                ):
                    start, end = run[0][1], run[-1][2]
                    if free(start, end):
                        take(title, start, end, "alias")
        # 2c. A Chinese title said in pinyin ("play xi you ji"), a word a character.
        for named in self._by_pinyin(folded, words, free):
            take(named.title, named.start, named.end, named.how)
        # 3. Short forms that name one title only.
        for named in self._short_forms(folded, squashed, where, words, free):
            take(named.title, named.start, named.end, named.how)
        # 4. Chinese titles heard by their sound.
        for named in self._by_sound(folded, free, minimum=3):
            take(named.title, named.start, named.end, named.how)
        # 4b. A longer title heard by its sound around a shorter one said exactly ("单天方
        # 三侠五义" is 单田芳 三侠五义, not 三侠五义): the longer one is meant.
        for named in self._by_sound(folded, lambda start, end: True, minimum=4) if found else ():
            inside = [n for n in found if named.start <= n.start and n.end <= named.end]
            if not inside or any(n.end - n.start >= named.end - named.start for n in inside):
                continue
            if any(n not in inside and n.start < named.end and named.start < n.end for n in found):
                continue
            found = [n for n in found if n not in inside]
            found.append(named)
        missing: set[int] = set()
        for i, named in enumerate(found):
            # "三体的第三部" is 三体3, "三体第一部" 三体 itself: a part said after a title
            mark = _PART_AFTER.match(folded, named.end)
            if mark is None:
                continue
            n = chinese_number(mark.group("n") or mark.group("n2")) or 0
            part = self.edition(named.title, n)
            if part is not None:
                found[i] = Named(part, folded[named.start : mark.end()], named.start, mark.end(),
                                 "edition")  # fmt: skip
            elif mark.group("n") and n >= 2:
                # "平凡的世界第三部" with no third part here: not this title, but a book the
                # library lacks (said to be missing, never the first part played instead)
                missing.add(i)
        found = [n for i, n in enumerate(found) if i not in missing]
        return found, self._people_said(text, folded, squashed, where, words, found)

    def _people_said(self, text, folded, squashed, where, words, found) -> list[tuple]:
        """The people's names said outside the titles `found`, longest first, none
        overlapping: ``(name, said, start, end)`` in order."""
        out: list[tuple[str, str, int, int]] = []

        def clear(start: int, end: int) -> bool:
            return not any(start < n.end and n.start < end for n in found) and not any(
                start < e and s < end for _, _, s, e in out
            )

        for key, name in self._person_forms:
            if isinstance(key, str):
                for at in _find_all(squashed, key):
                    start, end = where[at], where[at + len(key) - 1] + 1
                    if clear(start, end) and _latin_bounded(folded, start, end, key):
                        out.append((name, folded[start:end], start, end))
                continue
            for i in range(len(words) - len(key) + 1):
                if tuple(w for w, _, _ in words[i : i + len(key)]) != key:
                    continue
                start, end = words[i][1], words[i + len(key) - 1][2]
                common = key[0] in self._function_words or key[0] in self._title_words
                if len(key) == 1 and common and not _capitalised(text, start, end):
                    continue  # "will", "dune": a word, unless written "Will", "Dune"
                if clear(start, end):
                    out.append((name, folded[start:end], start, end))
        return sorted(out, key=lambda p: p[2])

    def edition(self, title: str, n: int) -> str | None:
        """The library's part `n` of the series `title` belongs to ("三体", 3 -> "三体3";
        "三体", 1 -> "三体"), or None when the library has no such part."""
        if n < 1:
            return None
        key = normalize(title)
        if n == 1 and key in self._firsts:
            return title
        base = re.sub(r"(?:第?[\d一二三四五六七八九十]+[部本卷册季]?)$", "", key) or key
        for form in (f"{base}第{n}部", f"{base} {n}"):
            owners = [t for t, how in self._forms.get(normalize(form), []) if how != "alias"]
            owners += [
                t for t, how in self._forms.get(" ".join(_latin_words(form)), []) if how != "alias"
            ]
            if owners:
                return owners[0]
        return None

    def _short_forms(self, folded, squashed, where, words, free) -> list[Named]:
        out: list[Named] = []
        # Chinese: a run of three characters or more that begins exactly one title (and is
        # not made of function characters only).
        prefixes: dict[str, set[str]] = {}
        for key, title, how in self._cjk:
            if how == "edition":
                continue
            for size in range(3, len(key)):
                prefixes.setdefault(key[:size], set()).add(title)
        for size in range(min(12, len(squashed)), 2, -1):
            for at in range(len(squashed) - size + 1):
                piece = squashed[at : at + size]
                owners = prefixes.get(piece)
                if not owners or len(owners) != 1:
                    continue
                if all(ch in self._function_chars for ch in piece):
                    continue
                title = next(iter(owners))
                start, end = where[at], where[at + size - 1] + 1
                if not self._ends_here(folded, end, normalize(title)[size:]):
                    continue  # "哈利波特与火焰杯" is another book, not 哈利波特与魔法石
                if free(start, end) and not any(start < n.end and n.start < end for n in out):
                    out.append(Named(title, folded[start:end], start, end, "short"))
        # Latin: two words or more in a row, not all function words, found in one title only.
        runs: dict[tuple[str, ...], set[str]] = {}
        follows: dict[tuple[str, ...], set[str]] = {}  # the title's words after a run
        for form_words, title, how in self._latin:
            if how == "edition":
                continue
            for size in range(2, len(form_words)):
                for i in range(len(form_words) - size + 1):
                    run = tuple(form_words[i : i + size])
                    if all(w in self._function_words for w in run):
                        continue
                    if run[0] in self._function_words and run[-1] in self._function_words:
                        continue
                    runs.setdefault(run, set()).add(title)
                    follows.setdefault(run, set()).update(form_words[i + size :])
        for size in range(min(6, len(words)), 1, -1):
            for i in range(len(words) - size + 1):
                run = tuple(w for w, _, _ in words[i : i + size])
                owners = runs.get(run)
                if not owners or len(owners) != 1:
                    continue
                after = next((w for w, _, _ in words[i + size :]
                              if w not in self._function_words), "")  # fmt: skip
                if after and self._strays(run, after, follows[run]):
                    continue  # "the old miser at christmas" is not The Old Man and the Sea
                start, end = words[i][1], words[i + size - 1][2]
                if free(start, end) and not any(start < n.end and n.start < end for n in out):
                    out.append(Named(next(iter(owners)), folded[start:end], start, end, "short"))
        return out

    def _strays(self, run: tuple[str, ...], after: str, title_next: set[str]) -> bool:
        """True when a run of one word of content and function words ("the old", "lord of
        the") is followed (past function words) by a word of content that is none of the
        title's words after it, holds none, and begins or sounds like none ("the old miser"
        is not The Old Man and the Sea; "the great gas be" is The Great Gatsby): another
        name, not this short form."""
        if sum(w not in self._function_words for w in run) != 1:
            return False
        if not after.isalpha() or after in self._function_words:
            return False
        return not any(
            after[:2] == w[:2]
            or (len(w) > 2 and w in after)  # "the old fisherman"
            or Levenshtein.normalized_similarity(after, w) >= 0.7  # "jekyll and hide"
            for w in title_next
        )

    def _ends_here(self, folded: str, end: int, rest_of_title: str) -> bool:
        """True when a short form ending at `end` is the title's whole name here: what
        follows it up to a function character ("的", "第", "吧") is nothing, or only more
        of the title ("哈利波特魔法石"); other characters name another book."""
        run = re.match(r"[\u3400-\u9fff]+", folded[end:])
        if run is None:
            return True
        tail = ""
        for ch in run.group():
            if ch in self._function_chars:
                break
            tail += ch
        return all(ch in rest_of_title for ch in tail)

    def _by_pinyin(self, folded: str, words: list[tuple[str, int, int]], free) -> list[Named]:
        """Chinese titles of two characters or more said as their pinyin, one word for each
        character, tones left out and heard as fuzzy pinyin allows ("shui hu zhuan")."""
        out: list[Named] = []
        if not words:
            return out
        table = _pinyin_table()
        heard = [_fuzzy(w) for w, _, _ in words]
        for key, title, how in self._cjk:
            if how == "edition" or not 2 <= len(key) <= 8 or not all(ch in table for ch in key):
                continue
            for i in range(len(words) - len(key) + 1):
                said = [w for w, _, _ in words[i : i + len(key)]]
                common = [w in self._function_words for w in said]
                if any(common) if len(key) == 2 else all(common):
                    continue  # "you man", "he is": English, not a title's sounds
                if all(heard[i + j] in table[ch] for j, ch in enumerate(key)):
                    start, end = words[i][1], words[i + len(key) - 1][2]
                    if free(start, end) and not any(start < n.end and n.start < end for n in out):
                        out.append(Named(title, folded[start:end], start, end, "sound"))
        return out

    def _by_sound(self, folded: str, free, *, minimum: int) -> list[Named]:
        out: list[Named] = []
        # Each run of CJK characters as heard, once: ``(offset, where each character
        # stands, the characters, their sounds, with its 的)``; a 的 said between a
        # title's words is no part of it ("单田方的三侠五义"), so a run with one is also
        # heard without it.
        heard_runs = []
        for m in re.finditer(r"[\u3400-\u9fff\uf900-\ufaff]+", folded):
            whole = m.group()
            places = [list(range(len(whole)))]
            if "的" in whole:
                places.append([j for j, ch in enumerate(whole) if ch != "的"])
            for n, place in enumerate(places):
                run = "".join(whole[j] for j in place)
                heard_runs.append((m.start(), place, run, _sounds(run), n == 0))
        if not heard_runs:
            return out
        for key, title, how in self._cjk:
            if len(key) < minimum or not all(_CJK_CHAR.match(ch) for ch in key):
                continue
            if how == "edition":
                continue  # a part's number is said as it is ("明朝那些事儿听" is no part 一)
            want = _sounds(key)
            for offset, place, run, heard, as_said in heard_runs:
                if len(run) < len(key) or (not as_said and "的" in key):
                    continue
                for i in range(len(run) - len(key) + 1):
                    if as_said and run[i : i + len(key)] == key:
                        continue  # the title itself: found above
                    same = sum(
                        1
                        for a, b in zip(heard[i : i + len(key)], want, strict=True)
                        if set(a) & set(b)
                    )
                    if same < len(key):
                        continue
                    start, end = offset + place[i], offset + place[i + len(key) - 1] + 1
                    if free(start, end) and not any(start < n.end and n.start < end for n in out):
                        out.append(Named(title, folded[start:end], start, end, "sound"))
        return out

    def series_in(self, text: str) -> list[str]:
        """The titles of the series `text` names by their shared beginning ("明朝那些事儿"
        for its four parts, "harry potter" for its books), in library order; empty when
        `text` names no beginning shared by several titles (the longest said wins)."""
        cjk, latin = self._series_starts()
        key, words = normalize(text), f" {' '.join(_latin_words(text))} "
        said = [s for s in cjk if s in key] + [s for s in latin if f" {s} " in words]
        longest = max(said, key=len, default=None)
        return (cjk.get(longest) or latin.get(longest) or []) if longest else []

    def _series_starts(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """Beginnings shared by several titles, and those titles: CJK ones of three
        characters or more, Latin ones of two words or more from a title's first word."""
        if self._starts is None:
            cjk: dict[str, list[str]] = {}
            latin: dict[str, list[str]] = {}
            for title in self.titles:
                key = normalize(title)
                if _CJK_CHAR.search(key):
                    for size in range(3, len(key) + 1):
                        cjk.setdefault(key[:size], []).append(title)
                else:
                    title_words = _latin_words(title)
                    for size in range(2, len(title_words) + 1):
                        latin.setdefault(" ".join(title_words[:size]), []).append(title)
            self._starts = (
                {k: v for k, v in cjk.items() if len(v) > 1},
                {k: v for k, v in latin.items() if len(v) > 1},
            )
        return self._starts

    def exact(self, words: str) -> list[str]:
        """The titles `words` is whole: a title, an alias or a part said another way."""
        key = normalize(words)
        if not key:
            return []
        latin = re.fullmatch(r"[0-9a-z\u00c0-\u024f]+", key)
        form = " ".join(_latin_words(words)) if latin else key
        return list(dict.fromkeys(title for title, _ in self._forms.get(form, [])))

    def spelled(self, words: str) -> list[str]:
        """The titles whose letters `words` spell but for one, their spaces left out
        ("treasure i land": Treasure Island, as a recogniser splits a word it does not know
        into words it does); none for words of fewer than six letters."""
        squashed = normalize(words)
        if len(squashed) < 6:
            return []
        return [t for t in self.titles if Levenshtein.distance(squashed, normalize(t)) <= 1]

    def lookup(self, words: str) -> list[str]:
        """The titles `words` (the part of a request that says which book, e.g. "哈利波特"
        after "放") may mean, best first: all of them is a title, alias or part said
        another way; else a short form (two Chinese characters or one Latin word and more)
        of titles it begins or stands inside; else a title it sounds like (Chinese by
        pinyin, English by metaphone: "jane air"); else titles within a small edit
        distance. An edition word picks its edition ("儿童版的水浒" is 水浒传少儿版), and
        "X的Y" is looked up as Y when X names nothing ("古龙的陆小风"), and a series
        said with a number after it is that part ("明朝那些事二"). Empty when it names
        none."""
        found = self._lookup(words)
        if not found:
            cut = re.split(r"的|之", words, maxsplit=1)
            if len(cut) == 2 and cut[1].strip() and not self._lookup(cut[0]):
                found = self._lookup(cut[1])
        if len(found) != 1:
            said = re.fullmatch(r"(.*?[^\d一二三四五六七八九十])第?([\d一二三四五六七八九十]+)[部本卷册季]?",
                                normalize(words))  # fmt: skip
            series = self._lookup(said.group(1)) if said else []
            part = self.edition(series[0], chinese_number(said.group(2)) or 0) if series else None
            if len(series) > 1 and part in series:
                return [part]
        return found

    def _lookup(self, words: str) -> list[str]:
        key = normalize(words)
        if not key:
            return []
        edition = self._edition_said(key)
        if edition is not None:  # "儿童版的水浒": the rest, then the titles of that edition
            rest = normalize(key.replace(edition[0], "").strip("的之"))
            found = [t for t in self._lookup(rest) if any(w in normalize(t) for w in edition[1])]
            if found:
                return found
        latin = re.fullmatch(r"[0-9a-z\u00c0-\u024f]+", key) is not None
        exact = self.exact(words)
        if exact:
            return exact
        if latin:
            said = _latin_words(words)
            if all(w in self._function_words for w in said):
                return []
            found = [
                title
                for form_words, title, how in self._latin
                if how != "edition" and _contains(form_words, said)
            ]
            if not found:  # "huck finn": words cut short, in the title's order
                found = [
                    title
                    for form_words, title, how in self._latin
                    if how != "edition" and _prefixes(form_words, said)
                ]
            content = [w for w in said if w not in self._function_words]
            long_word = len(content) == 1 and len(content[0]) >= 8  # "frankenstien"
            if not found and (len(content) >= 2 or long_word) and sum(map(len, content)) >= 7:
                # "jane air", "withering heights", "dr jeckle and mister hide": the words as
                # they sound, a title's "Mr" as said
                heard = [_metaphone(_SPELLED.get(w, w)) for w in content]
                found = [
                    title
                    for form_words, title, how in self._latin
                    if how != "edition"
                    and heard
                    and _contains(
                        [_metaphone(w) for w in form_words if w not in self._function_words],
                        heard,
                    )
                ]
        else:
            if len(key) < 2 or all(ch in self._function_chars for ch in key):
                return [self._single[key]] if key in self._single else []
            found = [title for k, title, how in self._cjk if how != "edition" and k.startswith(key)]
            found += [
                title
                for k, title, how in self._cjk
                if how != "edition" and key in k and len(key) >= 3
            ]
            if not found:  # heard by its sound: the whole title, or how it begins
                heard = _sounds(key)
                found = [
                    title
                    for k, title, _ in self._cjk
                    if (len(k) == len(key) or (len(key) >= 3 and len(k) > len(key)))
                    and _sound_alike(heard, k[: len(key)])
                ]
        if not found:
            said = set(re.findall(r"[\d零〇一二两三四五六七八九十百千]", key))
            scored = sorted(
                ((match_score(words, title), title) for title in self.titles), reverse=True
            )
            # A near match is a typo, never another part: 第七部 is not 第一部.
            found = [
                title
                for score, title in scored
                if score >= FUZZY_MAX - 10 and said <= set(normalize(title))
            ]
        return list(dict.fromkeys(found))

    def _edition_said(self, key: str) -> tuple[str, list[str]] | None:
        """The edition word `key` holds and the words of the same edition ("儿童版" ->
        少儿版, 儿童版, …), as the phrase data lists them; None when it holds none."""
        from .phrases import load

        for group in load("zh").lexicon.get("edition_same", ()):
            for word in group:
                if word in key and normalize(word) != key:
                    return word, [normalize(w) for w in group]
        return None


_NAME_SEPARATORS = re.compile(r"\s*(?:[、,，/;；&|]|\s+and\s+)\s*")


def _names(people: str) -> list[str]:
    """The names one author or narrator field holds ("王刚、李野墨", "A and B")."""
    return [name for name in _NAME_SEPARATORS.split(people.strip()) if name.strip()]


def _in_order(squashed: str, parts: list[str], gap: int = 6) -> tuple[int, int] | None:
    """Where `parts` stand in `squashed` in order, at most `gap` characters apart, the last
    one whole or its first two characters or more; None when they do not."""
    first = squashed.find(parts[0])
    if first < 0:
        return None
    at = first + len(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        window = squashed[at : at + gap + len(part)]
        last = i == len(parts) - 1
        sizes = range(len(part), 1, -1) if last else (len(part),)
        for size in sizes:
            found = window.find(part[:size])
            if found >= 0:
                at = at + found + size
                break
        else:
            return None
    return first, at


def _capitalised(text: str, start: int, end: int) -> bool:
    """True when `text` writes its words at `start`..`end` with a capital and not as the
    sentence's first word ("how many chapters are in It", "play It", never "It's late")."""
    if len(fold(text)) != len(text) or text.isupper():
        return False  # folding moved the letters, or all are capitals: no way to tell
    piece = text[start:end]
    if not piece[:1].isupper() or (piece.isupper() and len(piece) > 2):
        return False
    before = text[:start].rstrip()
    return bool(before) and before[-1] not in ".!?。！？"


def _prefixes(form_words: list[str], said: list[str]) -> bool:
    """True when each word of `said` (three letters or more) begins a word of `form_words`,
    one after the other, and one of them is whole ("huck finn" in "adventures of
    huckleberry finn")."""
    n = len(said)
    if n < 2 or any(len(w) < 3 for w in said):
        return False
    for i in range(len(form_words) - n + 1):
        run = form_words[i : i + n]
        if all(f.startswith(w) for f, w in zip(run, said, strict=True)) and set(run) & set(said):
            return True
    return False


def _contains(form_words: list[str], said: list[str]) -> bool:
    n = len(said)
    return any(form_words[i : i + n] == said for i in range(len(form_words) - n + 1))


def _squash_map(folded: str) -> tuple[str, list[int]]:
    """`folded` with only letters and digits, and where each kept character came from."""
    chars, where = [], []
    for i, ch in enumerate(folded):
        if ch.isalnum():
            chars.append(ch)
            where.append(i)
    return "".join(chars), where


def _find_all(text: str, key: str) -> list[int]:
    found, at = [], text.find(key)
    while at >= 0:
        found.append(at)
        at = text.find(key, at + 1)
    return found


def _latin_bounded(folded: str, start: int, end: int, key: str) -> bool:
    """A form that begins or ends with a Latin letter may not run on into a Latin word."""
    if key[0].isascii() and start > 0 and re.match(LATIN_CHAR, folded[start - 1]):
        return False
    return not (key[-1].isascii() and end < len(folded) and re.match(LATIN_CHAR, folded[end]))


def _joined_apostrophes(
    folded: str, words: list[tuple[str, int, int]]
) -> list[tuple[str, int, int]]:
    """Words split at an apostrophe joined again ("philosopher's" -> "philosophers")."""
    out: list[tuple[str, int, int]] = []
    for word, start, end in words:
        if out and start >= 1 and folded[start - 1] == "'" and out[-1][2] == start - 1:
            prev, pstart, _ = out[-1]
            out[-1] = (prev + word, pstart, end)
        else:
            out.append((word, start, end))
    return out


# -- keyword spans --------------------------------------------------------------------------

_EPISODE_PHRASE = re.compile(
    r"第\s*[\d零〇一二两三四五六七八九十百千几]+\s*[集章回话节讲期]?"
    r"|[\d零〇一二两三四五六七八九十百千几]+\s*[集章回]"
    r"|(?:[上下这那前后本每哪]|多少)\s*[一个]?\s*[集章回]"
    r"|\b(?:episode|chapter|part|section)\s+\w+"
    r"|\b(?:next|previous|last|this|that)\s+(?:episode|chapter|part|one)\b",
    re.IGNORECASE,
)
"""A phrase that names an episode, never a title: 第五集, 第几集, 12集, 上一集, 这集, 哪一集,
多少集, chapter 4, the next episode. No keyword span contains or straddles one."""
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_SPAN_WORD = re.compile(r"[^\W_][\w'.\-]*")


def _function_data() -> tuple[frozenset[str], frozenset[str]]:
    from .phrases import load

    return (
        frozenset(load("zh").lexicon.get("function_chars", "")),
        frozenset(load("en").words("function_words")),
    )


def function_only(text: str) -> bool:
    """True when folded `text` is made only of function characters and words ("听过了",
    "这个", "this book", "the one before this", "sorry": no title), as the phrase data
    lists them."""
    chars, words = _function_data()
    folded = fold(text)
    tokens = [*_CJK_RUN.findall(folded), *re.findall(r"[a-z0-9']+", folded)]
    if not tokens:
        return False
    for token in tokens:
        if _CJK_RUN.fullmatch(token):
            if any(ch not in chars for ch in token):
                return False
        elif token not in words:
            return False
    return True


def keyword_spans(
    text: str, *, known: Iterable[str] | None = None, max_chars: int = 60
) -> list[str] | None:
    """The spans of `text` a search keyword may be, the longest first: runs of 1–12 Chinese
    characters and of 1–6 other words, never a stop word, a lone letter or number, nor
    anything of an episode phrase or a duration ("再听一遍上一集" gives no "上一"). With
    `known` (the library's titles), a span of one character or of function words only is
    kept only when it is one of them ("家", "It"; never "一", "放", "this book"). None when
    `text` is longer than `max_chars` (keywords are then free)."""
    from .amounts import DURATION

    text = text.strip()
    if len(text) > max_chars:
        return None
    keys = None if known is None else {normalize(t) for t in known}
    spans: list[str] = []
    for part in re.split(f"{_EPISODE_PHRASE.pattern}|{DURATION.pattern}", text, flags=re.I):
        if not part:
            continue
        for span in _spans(part):
            key = normalize(span)
            folded = fold(span).strip()
            if not key or folded in STOP_WORDS or key.isdigit():
                continue
            if len(key) <= 1 and key.isascii():
                continue
            if keys is not None and key not in keys and (len(key) == 1 or function_only(span)):
                continue
            spans.append(span)
    return list(dict.fromkeys(spans))


def _spans(text: str) -> list[str]:
    """Candidate keyword spans of a piece of an utterance, longest first."""
    spans: list[str] = []
    for run in _CJK_RUN.findall(text):
        for size in range(min(12, len(run)), 0, -1):
            spans.extend(run[i : i + size] for i in range(len(run) - size + 1))
    words = _SPAN_WORD.findall(text)
    for size in range(min(6, len(words)), 0, -1):
        spans.extend(" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
    mixed = re.sub(r"\s+", " ", re.sub(r"[，。！？,.!?；;：:、]", " ", text)).strip()
    if mixed and len(mixed) <= 30:
        spans.insert(0, mixed)
    return list(dict.fromkeys(spans))
