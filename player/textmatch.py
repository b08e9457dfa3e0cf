"""Forgiving title matching for Chinese and English: case, width, script and small typos.

`normalize` folds full-width to half-width (NFKC), case, traditional to simplified Chinese
(opencc-python-reimplemented, "t2s") and drops spaces and punctuation. `match_score` ranks
a title against a keyword: 100 exact, 95 prefix, 90 substring, 70 author substring, 60..80
for a near match within a small edit distance (rapidfuzz Levenshtein), 65 when every
word of the keyword is found ("jorney west"), 0 for no match.
"""

from __future__ import annotations

import functools
import unicodedata

from rapidfuzz.distance import Levenshtein

EXACT, PREFIX, SUBSTRING, AUTHOR, FUZZY_MAX, WORDS, CONTAINED = 100, 95, 90, 70, 80, 65, 60


@functools.cache
def _converter():  # imported lazily: building the converter takes a moment
    from opencc import OpenCC

    return OpenCC("t2s")


@functools.lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Fold width, case and script, and drop whitespace/punctuation ("《西遊記》 " -> "西游记")."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if any("\u3400" <= ch <= "\u9fff" for ch in text):
        text = _converter().convert(text)
    return "".join(ch for ch in text if ch.isalnum())


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
    if name.startswith(key):
        return PREFIX
    if key in name:
        return SUBSTRING
    if author and key in normalize(author):
        return AUTHOR
    distance = _near(key, name)
    if distance is not None:
        return FUZZY_MAX - 10 * distance
    words = [w for w in (normalize(part) for part in keyword.split()) if w]
    if len(words) > 1 and all(w in name or _near(w, name) is not None for w in words):
        return WORDS
    # The whole request as keyword ("西游记第二集", "play moby dick chapter 3"): the title
    # stands inside it. Titles of one character would match too much.
    if len(name) >= 2 and name in key:
        return CONTAINED
    return 0
