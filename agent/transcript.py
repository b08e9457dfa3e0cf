"""Transcript clean-up before the agent sees an utterance: ASR spacing and homophones.

Vosk's Chinese models put a space between every character ("播 放 西 游 记 第 二 集");
the spaces between CJK characters are joined, those between Latin words kept. Common
recognition slips of command words are mended (下一级 → 下一集, 第五级 → 第五集), and
spoken episode numbers and durations become digits (第一百二十集 → 第120集,
`agent.spoken_numbers`).
"""

from __future__ import annotations

import re
import unicodedata

from .spoken_numbers import normalize as numbers_as_digits

__all__ = ["clean_transcript"]

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])")
_CJK_DIGIT_GAP = re.compile(rf"(?<=[{_CJK}])\s+(?=\d)|(?<=\d)\s+(?=[{_CJK}])")
_NUMERAL = "零〇一二两三四五六七八九十百千\\d"
_HOMOPHONES = (
    (re.compile(r"([上下])一(?:级|记|既|几)"), r"\1一集"),
    (re.compile(rf"第([{_NUMERAL}]+)级"), r"第\1集"),
    (re.compile(r"(?:站停|暂挺|占停)"), "暂停"),
    (re.compile(r"继需"), "继续"),
)


def clean_transcript(text: str) -> str:
    """`text` with the spaces between CJK characters (and between them and digits)
    removed, runs of whitespace made one space, command homophones mended and spoken
    episode numbers and durations written as digits."""
    text = unicodedata.normalize("NFC", text).strip()
    text = re.sub(r"\s+", " ", text)
    text = _CJK_GAP.sub("", text)
    text = _CJK_DIGIT_GAP.sub("", text)
    for pattern, replacement in _HOMOPHONES:
        text = pattern.sub(replacement, text)
    return numbers_as_digits(text)
