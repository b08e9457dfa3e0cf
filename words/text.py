"""Text as the words layer compares it: folding, squashing, scripts and transcript clean-up.

`fold` makes case, width and script alike (NFKC, case folding, traditional to simplified
Chinese through opencc-python-reimplemented's "t2s"); `normalize` also drops spaces and
punctuation, the form titles are compared in. `clean_transcript` mends what a speech
recogniser writes (Vosk's Chinese models put a space between every character) and writes
spoken numbers as digits (`numbers.spoken_to_digits`) before anything else reads it.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = [
    "CJK",
    "LATIN_CHAR",
    "clean_transcript",
    "fold",
    "has_cjk",
    "normalize",
    "squash",
    "word_run",
]

CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""The CJK ideograph ranges (a character class body)."""

LATIN_CHAR = r"[0-9a-z\u00c0-\u024f]"
"""A character of a Latin word (ASCII letters and digits, accented Latin letters), after
`fold`: what a Latin title may not touch to be named as whole words."""

_CJK_GAP = re.compile(rf"(?<=[{CJK}])\s+(?=[{CJK}])")
_CJK_DIGIT_GAP = re.compile(rf"(?<=[{CJK}])\s+(?=\d)|(?<=\d)\s+(?=[{CJK}])")
_SQUASH = re.compile(r"[\W_]+")


@functools.cache
def _converter():  # imported lazily: building the converter takes a moment
    from opencc import OpenCC

    return OpenCC("t2s")


def has_cjk(text: str) -> bool:
    """True when `text` holds a CJK ideograph."""
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


_DIALECT = str.maketrans({"俺": "我", "喽": "了", "蹦": "跳"})
"""Regional words folded to the common ones, a character for a character (spans keep
their places): 俺 is 我 in the north ("给俺放", "俺得去"), 喽 is 了 ("关喽")."""


@functools.lru_cache(maxsize=16384)
def fold(text: str) -> str:
    """Fold width (NFKC), case, script (traditional to simplified) and regional words
    (`_DIALECT`), keeping spaces and punctuation: "《西遊記》 Part I" -> "《西游记》 part i";
    a typographic apostrophe is the ASCII one."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    if has_cjk(text):
        text = _converter().convert(text).translate(_DIALECT)
    return text


@functools.lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """`fold`, then only letters and digits: "《西遊記》 " -> "西游记", "It's" -> "its"."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def squash(text: str) -> str:
    """`text` lower-cased without spaces or punctuation (no script folding)."""
    return _SQUASH.sub("", text.lower())


def word_run(text: str) -> str:
    """`text` folded as " word word " (Latin letters and digits only), for whole-word tests:
    ``word_run(title) in word_run(text)`` even where the text is Chinese around it."""
    return " " + " ".join(re.findall(r"[a-z0-9]+", fold(text))) + " "


def clean_transcript(
    text: str, mends: tuple[tuple[re.Pattern[str], str], ...] = (), *, digits: bool = True
) -> str:
    """`text` as the layer reads it: NFC, one space between words, no space between CJK
    characters (nor between them and digits), the recogniser's slips of command words
    mended (`mends`: pattern and replacement, from the phrase data) and, unless `digits`
    is False, spoken numbers written as digits ("第 一 百 二 十 集" -> "第120集",
    "chapter twenty one" -> "chapter 21")."""
    from .numbers import spoken_to_digits

    text = unicodedata.normalize("NFC", text).strip()
    text = re.sub(r"\s+", " ", text)
    text = _CJK_GAP.sub("", text)
    text = _CJK_DIGIT_GAP.sub("", text)
    for pattern, replacement in mends:
        text = pattern.sub(replacement, text)
    return spoken_to_digits(text) if digits else text
