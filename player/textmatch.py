"""Forgiving title matching for Chinese and English: case, width, script and small typos.

`normalize` folds full-width to half-width (NFKC), case, traditional to simplified Chinese
(opencc-python-reimplemented, "t2s") and drops spaces and punctuation. `match_score` ranks
a title against a keyword: 100 exact, 95 prefix, 90 substring, 70 author substring, 60..80
for a near match within a small edit distance (rapidfuzz Levenshtein), 65 when every
word of the keyword is found ("jorney west"), 0 for no match.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from rapidfuzz.distance import Levenshtein

EXACT, PREFIX, SUBSTRING, AUTHOR, FUZZY_MAX, WORDS, CONTAINED = 100, 95, 90, 70, 80, 65, 60


@functools.cache
def _converter():  # imported lazily: building the converter takes a moment
    from opencc import OpenCC

    return OpenCC("t2s")


@functools.lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """Fold width (NFKC), case and script (traditional to simplified), keeping spaces and
    punctuation: "《西遊記》 Part I" -> "《西游记》 part i". The agent compares titles with it."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if any("\u3400" <= ch <= "\u9fff" for ch in text):
        text = _converter().convert(text)
    return text


@functools.lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Fold width, case and script, and drop whitespace/punctuation ("《西遊記》 " -> "西游记")."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


STOP_WORDS = frozenset(
    "the a an i me my of to and play book books story audiobook album episode "
    "书 本 集 的 我 你 他 它 这 那 有声书 故事 专辑 小说".split()
)
"""Words that are never a search keyword on their own (a one-letter word neither)."""


LATIN_CHAR = r"[0-9a-z\u00c0-\u024f]"
"""A character of a Latin word (ASCII letters and digits, accented Latin letters), after
`fold`: what a Latin title may not touch to be named as whole words."""


def title_named(title: str, text: str) -> bool:
    """True when `text` names `title` at token boundaries, after `fold`.

    A Chinese title needs at least two characters and may stand anywhere ("我想听西遊記"
    names 西游记); a Latin title must be whole words ("play it" names "It", "italy" does
    not).
    """
    core = normalize(title)
    if not core:
        return False
    if not core.isascii():
        return len(core) >= 2 and core in normalize(text)
    words = re.findall(r"[^\W_]+", fold(title))
    # A Latin title's boundary is anything but a Latin letter or digit: Chinese characters
    # around it are a boundary too ("我想听Dune" names Dune).
    pattern = rf"(?<!{LATIN_CHAR})" + r"[\W_]*".join(map(re.escape, words)) + rf"(?!{LATIN_CHAR})"
    return re.search(pattern, fold(text)) is not None


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


def _near(keyword: str, text: str) -> int | None:
    """Smallest edit distance between `keyword` and any window of `text`, if small enough."""
    limit = allowed_typos(keyword)
    if limit == 0 or not text:
        return None
    best: int | None = None
    k = len(keyword)
    for size in range(max(1, k - limit), k + limit + 1):
        for start in range(0, max(1, len(text) - size + 1)):
            d = Levenshtein.distance(keyword, text[start : start + size], score_cutoff=limit)
            if d <= limit and (best is None or d < best):
                best = d
                if d == 0:
                    return 0
    return best


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
    distance = _near(key, name)
    if distance is not None:
        return FUZZY_MAX - 10 * distance
    # Words in any order ("holmes sherlock"); a stop word matches nearly every title, so
    # "a taxi" must not reach Great Expectations through "a" and "tati".
    words = [w for w in (normalize(part) for part in keyword.split()) if w and not is_stop_word(w)]
    if len(words) > 1 and all(w in name or _near(w, name) is not None for w in words):
        return WORDS
    # The whole request as keyword ("西游记第二集", "play moby dick chapter 3"): the title
    # stands inside it. Titles of one character would match too much; a Latin title only as
    # whole words ("Us" is not inside "two plus two").
    if len(name) >= 2 and name in key:
        if not name.isascii() or word_run(title) in word_run(keyword):
            return CONTAINED
    return 0


def word_run(text: str) -> str:
    """`text` folded as " word word " (Latin letters and digits only), for whole-word tests:
    ``word_run(title) in word_run(text)`` even where the text is Chinese around it."""
    return " " + " ".join(re.findall(r"[a-z0-9]+", fold(text))) + " "
