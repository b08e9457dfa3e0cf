"""Spoken numbers in utterances as digits, so a small language model reads them right.

Vosk writes numbers as words ("第 十二 集", "episode two", Korean "이 번"). Typed
requests do the same ("第一百二十集"). Before the agent sees an utterance
(`agent.transcript.clean_transcript`), numbers next to an episode counter or a duration
become digits: "第12集", "20分钟", "episode 2", "2번"; a recogniser's "chapter for" is
chapter 4. Counters that are usually part of a title (第二部, 第三卷) are left alone.

English years are read the way people say them, so that a title such as "1984" or
"2001: A Space Odyssey" is found: two number phrases in a row of the year shape become
four digits — "nineteen eighty four" (or "eighty-four") 1984, "nineteen oh five" 1905,
"twenty twenty one" 2021, "twenty ten" 2010, "eighteen hundred" 1800, "nineteen hundred
and five" 1905, "the nineteen eighties" the 1980s, "two thousand and one" 2001. The first
phrase is thirteen..nineteen or twenty..twenty-nine ("eleven thirty", "twelve fifteen"
are clock times, left alone; only "eleven/twelve hundred" become 1100/1200), the second
ten..ninety-nine, "oh"/"zero" and a digit, or "hundred". A number after an episode
counter ("chapter twenty one" is 21, "episode nineteen" 19), a duration ("twenty
minutes"), a lone number ("twenty one pilots") and a phrase inside a longer number
("two thousand five hundred", "nineteen eighty four thousand") are never read as a year.
Nothing else changes; digits are left as they are, so the function is idempotent.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .fastpath import chinese_number as chinese_to_int

_ZH_NUMERAL = "零〇一二两三四五六七八九十百千"
_ZH = re.compile(rf"第\s*([{_ZH_NUMERAL}]+)\s*(集|回|章|节|话|讲|期)")
_ZH_AMOUNT = re.compile(rf"([{_ZH_NUMERAL}]+)\s*(分钟|秒|小时)")

_EN_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
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
_EN_UNIT = "one|two|three|four|five|six|seven|eight|nine"
_EN_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_EN_AMOUNT = re.compile(
    rf"\b(?:({_EN_TENS})[\s-]+({_EN_UNIT})|({_EN_WORD}))\s+(minutes?|seconds?|hours?)\b",
    re.IGNORECASE,
)

# Years (see the module's docstring). Vosk writes "oh" for the spoken zero of "nineteen
# oh five"; a hyphen may join the parts of a typed "Nineteen Eighty-Four".
_SEP = r"(?:\s+|\s*-\s*)"
_TEENS = "thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TEEN_ALL = "ten|eleven|twelve|" + _TEENS
_ZERO = "oh|o|zero"
_NOT_A_YEAR_AFTER = rf"minutes?|seconds?|hours?|hundreds?|thousands?|{_EN_WORD}"
_YEAR_END = rf"(?![\w-])(?![\s-]+(?:{_NOT_A_YEAR_AFTER})\b)"
_YEAR = re.compile(
    rf"\b(?P<century>{_TEENS}|twenty(?:{_SEP}(?:{_EN_UNIT}))?|eleven|twelve){_SEP}"
    rf"(?:(?P<hundred>hundreds?)(?:(?:\s+and)?\s+(?P<after>{_TEEN_ALL}"
    rf"|(?:{_EN_TENS})(?:{_SEP}(?:{_EN_UNIT}))?|{_EN_UNIT}))?"
    rf"|(?P<zero>{_ZERO}){_SEP}(?P<digit>{_EN_UNIT})"
    rf"|(?P<tens>{_EN_TENS})(?:{_SEP}(?P<unit>{_EN_UNIT}))?"
    rf"|(?P<decade>twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)"
    rf"|(?P<teen>{_TEEN_ALL})){_YEAR_END}",
    re.IGNORECASE,
)
_MILLENNIUM = re.compile(
    rf"\btwo{_SEP}thousand(?:\s+and)?\s+(?P<rest>{_TEEN_ALL}"
    rf"|(?:{_EN_TENS})(?:{_SEP}(?:{_EN_UNIT}))?|{_EN_UNIT}){_YEAR_END}",
    re.IGNORECASE,
)
# Left alone after an episode counter, or inside a longer number ("twenty two thousand").
_NOT_A_YEAR_BEFORE = re.compile(
    rf"\b(?:episode|chapter|part|section|number|hundred|thousand|{_EN_WORD})[\s-]*$",
    re.IGNORECASE,
)

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


def _words_value(words: str) -> int:
    """The value of one to ninety-nine written as words ("eighty four", "eighty-four")."""
    return sum(_EN_WORDS[w] for w in re.split(r"[\s-]+", words.lower()) if w)


def _year(match: re.Match[str]) -> str:
    """The digits of a year phrase `_YEAR` found ("nineteen eighty four" -> "1984")."""
    century = _words_value(match.group("century"))
    if match.group("hundred"):
        after = match.group("after")
        plural = "s" if match.group("hundred").lower().endswith("s") and not after else ""
        return f"{century * 100 + (_words_value(after) if after else 0)}{plural}"
    if century in (11, 12):  # "eleven thirty": a clock time, not the year 1130
        return match.group(0)
    if match.group("zero"):
        return f"{century * 100 + _EN_WORDS[match.group('digit').lower()]}"
    if match.group("decade"):
        return f"{century * 100 + _EN_WORDS[match.group('decade').lower()[:-3] + 'y']}s"
    if match.group("tens"):
        second = _words_value(match.group("tens") + " " + (match.group("unit") or ""))
        return f"{century * 100 + second}"
    return f"{century * 100 + _EN_WORDS[match.group('teen').lower()]}"


def _years(text: str) -> str:
    """`text` with English year phrases as digits, except right after an episode counter
    or inside a longer number."""
    for pattern, value in ((_MILLENNIUM, _millennium), (_YEAR, _year)):
        text = pattern.sub(lambda m, t=text, v=value: _unless_inside(m, t, v), text)
    return text


def _millennium(match: re.Match[str]) -> str:
    """The digits of "two thousand (and) <1..99>" (`_MILLENNIUM`)."""
    return f"{2000 + _words_value(match.group('rest'))}"


def _unless_inside(match: re.Match[str], text: str, value: Callable[[re.Match[str]], str]) -> str:
    if _NOT_A_YEAR_BEFORE.search(text, 0, match.start()):
        return match.group(0)
    return value(match)


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
    """`text` with spoken episode numbers and durations (zh, en, ko) and English years
    as digits (see the module's docstring)."""

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

    def en_amount(match: re.Match[str]) -> str:
        if match.group(3):
            value = _EN_WORDS[match.group(3).lower()]
        else:
            value = _words_value(f"{match.group(1)} {match.group(2)}")
        return f"{value} {match.group(4)}"

    def ko(match: re.Match[str]) -> str:
        value = _ko_value(match.group(1))
        return f"{value}{match.group(2)}" if value is not None else match.group(0)

    text = _ZH.sub(zh, text)
    text = _ZH_AMOUNT.sub(zh_amount, text)
    text = _EN.sub(en, text)
    text = _EN_AMOUNT.sub(en_amount, text)
    text = _years(text)
    return _KO.sub(ko, text)
