"""Spoken numbers in utterances as digits, so a small language model reads them right.

Vosk writes numbers as words ("第 十二 集", "episode two", Korean "이 번"). Typed
requests do the same ("第一百二十集"). Before the agent sees an utterance
(`agent.transcript.clean_transcript`), numbers next to an episode counter or a duration
become digits: "第12集", "20分钟", "episode 2", "2번"; a recogniser's "chapter for" is
chapter 4. Counters that are usually part of a title (第二部, 第三卷) are left alone.
Nothing else changes.
"""

from __future__ import annotations

import re

from .fastpath import chinese_number as chinese_to_int

_ZH_NUMERAL = "零〇一二两三四五六七八九十百千"
_ZH = re.compile(rf"第\s*([{_ZH_NUMERAL}]+)\s*(集|回|章|节|话|讲|期)")
_ZH_AMOUNT = re.compile(rf"([{_ZH_NUMERAL}]+)\s*(分钟|秒|小时)")

_EN_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
}  # fmt: skip
_EN_WORD = "|".join(sorted(_EN_WORDS, key=len, reverse=True))
# What a recogniser hears for a number right after "episode"/"chapter" ("chapter for").
_EN_HEARD = {"for": 4, "to": 2, "too": 2}
_EN_FIRST = "|".join(sorted([*_EN_WORDS, *_EN_HEARD], key=len, reverse=True))
_EN = re.compile(
    rf"\b(episode|chapter|part|section|number)\s+({_EN_FIRST})(?:[\s-]+({_EN_WORD}))?\b",
    re.IGNORECASE,
)
_EN_AMOUNT = re.compile(rf"\b({_EN_WORD})\s+(minutes?|seconds?|hours?)\b", re.IGNORECASE)

# Sino-Korean numerals before a counter (번 number, 화/회 episode, 장 chapter, 편 part).
_KO_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_KO = re.compile(
    r"(?<![가-힣])((?:[이삼사오육칠팔구]?\s?십\s?)?[일이삼사오육칠팔구]?)\s*(번|화|회|장|편)(?![가-힣])"
)


def _en_value(first: str, second: str | None) -> int:
    value = _EN_WORDS.get(first.lower()) or _EN_HEARD[first.lower()]
    if second and value >= 20 and _EN_WORDS[second.lower()] < 10:
        value += _EN_WORDS[second.lower()]
    return value


def _ko_value(token: str) -> int | None:
    token = token.replace(" ", "")
    if not token:
        return None
    if "십" in token:
        tens, _, ones = token.partition("십")
        return (_KO_DIGITS.get(tens, 1) if tens else 1) * 10 + (
            _KO_DIGITS.get(ones, 0) if ones else 0
        )
    return _KO_DIGITS.get(token)


def normalize(text: str) -> str:
    """`text` with spoken episode numbers and durations as digits (zh, en, ko)."""

    def zh(match: re.Match[str]) -> str:
        value = chinese_to_int(match.group(1))
        return f"第{value}{match.group(2)}" if value is not None else match.group(0)

    def zh_amount(match: re.Match[str]) -> str:
        value = chinese_to_int(match.group(1))
        return f"{value}{match.group(2)}" if value is not None else match.group(0)

    def en(match: re.Match[str]) -> str:
        second = match.group(3)
        value = _en_value(match.group(2), second)
        if second and value == _en_value(match.group(2), None):
            return f"{match.group(1)} {value} {second}"
        return f"{match.group(1)} {value}"

    def ko(match: re.Match[str]) -> str:
        value = _ko_value(match.group(1))
        return f"{value}{match.group(2)}" if value is not None else match.group(0)

    text = _ZH.sub(zh, text)
    text = _ZH_AMOUNT.sub(zh_amount, text)
    text = _EN.sub(en, text)
    text = _EN_AMOUNT.sub(lambda m: f"{_EN_WORDS[m.group(1).lower()]} {m.group(2)}", text)
    return _KO.sub(ko, text)
