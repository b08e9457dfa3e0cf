"""Section numbers from episode names: "第十二集", "第12回", "Chapter 03", "007.mp3".

`chinese_to_int` reads Chinese numerals (一二三…十百千万, 两, 〇/零, and the financial forms
壹贰叁…拾佰仟). `section_number` finds the number an episode title or file name most likely
means, preferring a marked one ("第…集/回/章/话/讲/节/期/部") over a bare number.
"""

from __future__ import annotations

import re

_DIGITS = {
    "零": 0, "〇": 0, "○": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2,
    "三": 3, "叁": 3, "參": 3, "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}  # fmt: skip
_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_NUMERAL_CHARS = "".join(_DIGITS) + "".join(_UNITS) + "万萬"
_MARKERS = "集回章话話讲講节節期部卷篇"
_MARKED = re.compile(
    rf"第\s*([0-9０-９]+|[{_NUMERAL_CHARS}]+)\s*[{_MARKERS}]?"
    rf"|([0-9０-９]+|[{_NUMERAL_CHARS}]+)\s*[{_MARKERS}]"
)
_ENGLISH = re.compile(
    r"\b(?:chapter|chap|ch|part|episode|ep|section|track|book)\.?\s*[-_#]?\s*(\d+)", re.I
)
_BARE = re.compile(r"\d+")


def chinese_to_int(text: str) -> int | None:
    """Value of a Chinese numeral ("十二" -> 12, "一百零五" -> 105, "二〇二" -> 202), or None."""
    text = text.strip()
    if not text or any(ch not in _NUMERAL_CHARS for ch in text):
        return None
    if not any(ch in _UNITS or ch in "万萬" for ch in text):
        # Digit by digit, as in "二〇二" or "三".
        return int("".join(str(_DIGITS[ch]) for ch in text))
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        elif ch in _UNITS:
            section += (1 if digit is None else digit) * _UNITS[ch]
            digit = None
        else:  # 万
            total += (section + (digit or 0)) * 10000
            section, digit = 0, None
    return total + section + (digit or 0)


def _to_int(token: str) -> int | None:
    if token.isdigit():
        return int(token)  # also full-width digits: int("１２") == 12
    return chinese_to_int(token)


def section_number(name: str) -> int | None:
    """The section number in an episode title or file name, or None.

    Order of preference: "第N集"-style (Arabic or Chinese numerals), "Chapter N"-style, then
    the first bare number that is not a year-like 4-digit run when another number exists.
    """
    for match in _MARKED.finditer(name):
        value = _to_int(match.group(1) or match.group(2))
        if value is not None:
            return value
    match = _ENGLISH.search(name)
    if match:
        return int(match.group(1))
    bare = [m.group(0) for m in _BARE.finditer(name)]
    if not bare:
        return None
    if len(bare) > 1:
        short = [b for b in bare if len(b) != 4]
        if short:
            return int(short[0])
    return int(bare[0])


def parse_section(text: str) -> int | None:
    """A section number a person typed or said: "3", "第三集", "三", "12回" -> int, or None."""
    text = text.strip()
    if not text:
        return None
    value = _to_int(text)
    if value is not None:
        return value
    return section_number(text)
