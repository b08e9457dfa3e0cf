"""Numbers in Chinese and English: one reader for numerals, number words and episode numbers.

- `chinese_number`: Arabic digits or a Chinese numeral, financial forms too ("十二" 12,
  "一百零五" 105, "二〇二" 202, "壹佰" 100, "两" 2).
- `english_number`: English number words, cardinal or ordinal, 0..9999 ("twenty five" 25,
  "a hundred and five" 105, "third" 3, "twenty-first" 21).
- `number_value`: either of them, or digits.
- `spoken_to_digits`: a transcript with spoken numbers written as digits where they count
  something (an episode counter, a duration) and English years as four digits (see its
  docstring); everything else is left as it was, so a title keeps its words.
- `section_number`: the episode number a file name or an episode title means ("第十二集",
  "Chapter 03", "007.mp3").
- `numbers_said`: every number an utterance states, with where it stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "CHINESE_NUMERAL",
    "ENGLISH_MARKED",
    "EN_NUMBER_WORDS",
    "MARKED",
    "Said",
    "chinese_number",
    "count_value",
    "english_number",
    "number_value",
    "numbers_said",
    "ordinal_said",
    "parse_section",
    "section_number",
    "spoken_to_digits",
]

# -- Chinese ------------------------------------------------------------------------------

_ZH_DIGITS = {
    "零": 0, "〇": 0, "○": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2,
    "三": 3, "叁": 3, "參": 3, "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}  # fmt: skip
_ZH_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_ZH_MYRIAD = "万萬"
CHINESE_NUMERAL = "".join(_ZH_DIGITS) + "".join(_ZH_UNITS) + _ZH_MYRIAD
"""Every character of a Chinese numeral (a character class body)."""


def chinese_number(text: str) -> int | None:
    """Integer value of Arabic digits (full-width too) or a Chinese numeral ("五十" 50,
    "一百二十" 120, "一百零五" 105, "二〇二" 202, "一万" 10000); None for anything else."""
    text = text.strip()
    if not text:
        return None
    if text.isdigit():
        try:
            return int(text)  # also full-width digits: int("１２") == 12
        except ValueError:
            return None
    if any(ch not in CHINESE_NUMERAL for ch in text):
        return None
    if not any(ch in _ZH_UNITS or ch in _ZH_MYRIAD for ch in text):
        return int("".join(str(_ZH_DIGITS[ch]) for ch in text))  # digit by digit: 二〇二
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            section += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
        else:  # 万
            total += (section + (digit or 0)) * 10000
            section, digit = 0, None
    return total + section + (digit or 0)


# -- English ------------------------------------------------------------------------------

_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_EN_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_EN_ORDINAL_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19,
}  # fmt: skip
_EN_ORDINAL_TENS = {w[:-1] + "ieth": v for w, v in _EN_TENS.items()}
EN_NUMBER_WORDS = {**_EN_UNITS, **_EN_TENS, **_EN_ORDINAL_UNITS, **_EN_ORDINAL_TENS}
"""Each English number word (cardinal or ordinal) with its value."""
_EN_SCALE = {"hundred": 100, "hundredth": 100, "thousand": 1000, "thousandth": 1000}
_EN_WORD = re.compile(
    r"\b(?:" + "|".join(sorted([*EN_NUMBER_WORDS, *_EN_SCALE, "a", "an", "and"], key=len,
                               reverse=True)) + r")\b",
    re.IGNORECASE,
)  # fmt: skip
_EN_PHRASE = re.compile(
    r"(?<![\w-])(?:(?:a|an|" + "|".join(sorted(EN_NUMBER_WORDS, key=len, reverse=True)) + r")"
    r"(?:[\s-]+(?:and[\s-]+)?(?:" + "|".join(sorted([*EN_NUMBER_WORDS, *_EN_SCALE], key=len,
                                                    reverse=True)) + r"))*)(?![\w-])",
    re.IGNORECASE,
)  # fmt: skip
"""A run of English number words ("twenty five", "a hundred and five", "forty-second")."""


def english_number(text: str) -> int | None:
    """The value of English number words, cardinal or ordinal, 0..9999 ("twenty five" 25,
    "twenty-first" 21, "a hundred and five" 105, "two thousand" 2000); None when `text`
    is anything else or reads as two numbers ("twenty twenty")."""
    words = [w for w in re.split(r"[\s-]+", text.strip().lower()) if w and w != "and"]
    if not words:
        return None
    total, current, last = 0, None, ""
    for i, word in enumerate(words):
        if word in ("a", "an"):
            if i != 0 or len(words) == 1:
                return None
            current, last = 1, "a"
            continue
        if word in _EN_SCALE:
            scale = _EN_SCALE[word]
            if current is None or (last == "scale" and current >= scale):
                return None
            if scale == 1000:
                total, current = (total + current) * 1000, None
            else:
                current *= 100
            last = "scale"
            continue
        value = EN_NUMBER_WORDS.get(word)
        if value is None:
            return None
        if current is None:
            current = value
        elif last == "tens" and value < 10:
            current += value
        elif last == "scale" and current % 100 == 0 and value < 100:
            current += value
        else:
            return None  # "twenty twenty": two numbers, not one
        last = (
            "tens" if value in _EN_TENS.values() or value in _EN_ORDINAL_TENS.values() else "unit"
        )
    return total + (current or 0)


def number_value(text: str) -> int | None:
    """The value of a number said: digits, a Chinese numeral or English number words."""
    text = text.strip()
    value = chinese_number(text)
    return value if value is not None else english_number(text)


def count_value(text: str) -> int | None:
    """The value of a count said: a number (`number_value`), or "a couple (of)" as 2."""
    text = text.strip()
    return 2 if re.fullmatch(r"a couple(?: of)?", text) else number_value(text)


# -- numbers in an utterance --------------------------------------------------------------


@dataclass(frozen=True)
class Said:
    """One number an utterance states: its value and where it stands (characters)."""

    value: int
    start: int
    end: int


_ZH_RUN = re.compile(rf"[{CHINESE_NUMERAL}]+")
_DIGIT_RUN = re.compile(r"\d+(?:\.\d+)?(?:st|nd|rd|th)?\b|\d+(?:\.\d+)?")


_COUNTED_AFTER = re.compile(
    r"\s+(?:chapters?|episodes?|parts?|tracks?|ones?|times?|books?)\b", re.I
)
"""A counter after an ordinal ("the thirty second chapter")."""


def numbers_said(text: str, *, lone_one: bool = True) -> list[Said]:
    """Every number `text` states, in order: digit runs ("3", "2nd"), Chinese numerals and
    runs of English number words. Without `lone_one`, a lone 一 or 两 (一下, 一共, 两本:
    words, not a number said) and "a"/"an" do not count. Values past 10 million are left out."""
    found: list[Said] = []
    taken = [False] * len(text)

    def add(value: int | None, start: int, end: int) -> None:
        if value is None or value > 10_000_000 or any(taken[start:end]):
            return
        for i in range(start, end):
            taken[i] = True
        found.append(Said(value, start, end))

    for match in _DIGIT_RUN.finditer(text):
        digits = re.match(r"\d+", match.group())
        if digits is not None and "." not in match.group():
            add(int(digits.group()), match.start(), match.end())
    for match in _ZH_RUN.finditer(text):
        if not lone_one and match.group() in ("一", "两", "兩", "壹"):
            continue
        add(chinese_number(match.group()), match.start(), match.end())
    for match in _EN_PHRASE.finditer(text):
        words = match.group()
        if words.lower() in ("a", "an") or (not lone_one and words.lower() in ("one",)):
            continue
        if (
            re.sub(r"^an?\s+", "", words.lower()) == "second"
            and not re.search(r"\bthe\s+$", text[: match.start()], re.IGNORECASE)
            and not _COUNTED_AFTER.match(text[match.end() :])
        ):
            continue  # "wait a second": a moment, no number
        unit = re.fullmatch(r"(.*\S)[\s-]+second", words, re.IGNORECASE)
        if (
            unit is not None
            and english_number(unit.group(1)) is not None
            and not re.search(r"\bthe\s+$", text[: match.start()], re.IGNORECASE)
            and not _COUNTED_AFTER.match(text[match.end() :])
        ):  # "skip them thirty second": thirty seconds, not the thirty-second
            add(english_number(unit.group(1)), match.start(), match.start() + unit.end(1))
            continue
        value = english_number(words)
        if value is None:  # "twenty twenty": read each word on its own
            for part in _EN_WORD.finditer(words):
                single = english_number(part.group())
                if single is not None and part.group().lower() not in ("a", "an", "and"):
                    add(single, match.start() + part.start(), match.start() + part.end())
            continue
        add(value, match.start(), match.end())
    return sorted(found, key=lambda s: s.start)


# -- spoken numbers as digits -------------------------------------------------------------

_ZH_NUMERAL_SPOKEN = "零〇一二两三四五六七八九十百千"
_ZH_COUNTER = re.compile(rf"第\s*([{_ZH_NUMERAL_SPOKEN}]+)\s*(集|回|章|节|话|讲|期)")
_ZH_AMOUNT = re.compile(rf"([{_ZH_NUMERAL_SPOKEN}]+)\s*(分钟|秒|小时)")

_EN_SMALL = {**_EN_UNITS, **_EN_TENS, "first": 1, "second": 2, "third": 3, "fourth": 4,
             "fifth": 5}  # fmt: skip
_EN_SMALL_WORD = "|".join(sorted(set(_EN_SMALL) - {"zero"}, key=len, reverse=True))
# What a recogniser hears for a number right after "episode"/"chapter" ("chapter for").
_EN_HEARD = {"for": 4, "to": 2, "too": 2}
_EN_FIRST = "|".join(sorted([*(set(_EN_SMALL) - {"zero"}), *_EN_HEARD], key=len, reverse=True))
_EN_COUNTER = re.compile(
    rf"\b(episode|chapter|part|section|number|track)\s+({_EN_FIRST})(?:[\s-]+({_EN_SMALL_WORD}|too))?\b",
    re.IGNORECASE,
)
_EN_UNIT = "one|two|three|four|five|six|seven|eight|nine"
# "the twenty-first chapter", "the fifteenth episode": a place past "twelfth" before a counter
_EN_ORDINAL_COUNTER = re.compile(
    rf"\b(?:(?:{'|'.join(_EN_TENS)})[\s-]+(?:{'|'.join(w for w, v in _EN_ORDINAL_UNITS.items() if v < 10)})"
    rf"|{'|'.join([*(w for w, v in _EN_ORDINAL_UNITS.items() if v > 12), *_EN_ORDINAL_TENS])})"
    rf"(?=\s+(?:episode|chapter|part|section|track|one)\b)",
    re.IGNORECASE,
)
_EN_TEN = "|".join(_EN_TENS)
_EN_AMOUNT = re.compile(
    rf"\b(?:({_EN_TEN})[\s-]+({_EN_UNIT})|({_EN_SMALL_WORD}))\s+(minutes?|seconds?|hours?)\b",
    re.IGNORECASE,
)

# Years: two number phrases in a row of the year shape become four digits. Vosk writes
# "oh" for the spoken zero of "nineteen oh five"; a hyphen may join the parts.
_SEP = r"(?:\s+|\s*-\s*)"
_TEENS = "thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TEEN_ALL = "ten|eleven|twelve|" + _TEENS
_ZERO = "oh|o|zero"
_NOT_A_YEAR_AFTER = rf"minutes?|seconds?|hours?|hundreds?|thousands?|{_EN_SMALL_WORD}"
_YEAR_END = rf"(?![\w-])(?![\s-]+(?:{_NOT_A_YEAR_AFTER})\b)"
_YEAR = re.compile(
    rf"\b(?P<century>{_TEENS}|twenty(?:{_SEP}(?:{_EN_UNIT}))?|eleven|twelve){_SEP}"
    rf"(?:(?P<hundred>hundreds?)(?:(?:\s+and)?\s+(?P<after>{_TEEN_ALL}"
    rf"|(?:{_EN_TEN})(?:{_SEP}(?:{_EN_UNIT}))?|{_EN_UNIT}))?"
    rf"|(?P<zero>{_ZERO}){_SEP}(?P<digit>{_EN_UNIT})"
    rf"|(?P<tens>{_EN_TEN})(?:{_SEP}(?P<unit>{_EN_UNIT}))?"
    rf"|(?P<decade>twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)"
    rf"|(?P<teen>{_TEEN_ALL})){_YEAR_END}",
    re.IGNORECASE,
)
_MILLENNIUM = re.compile(
    rf"\btwo{_SEP}thousand(?:\s+and)?\s+(?P<rest>{_TEEN_ALL}"
    rf"|(?:{_EN_TEN})(?:{_SEP}(?:{_EN_UNIT}))?|{_EN_UNIT}){_YEAR_END}",
    re.IGNORECASE,
)
_NOT_A_YEAR_BEFORE = re.compile(
    rf"\b(?:episode|chapter|part|section|number|hundred|thousand|{_EN_SMALL_WORD})[\s-]*$",
    re.IGNORECASE,
)

# Sino-Korean numerals before a counter (번 number, 화/회 episode, 장 chapter, 편 part).
_KO_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_KO = re.compile(
    r"(?<![가-힣])((?:[이삼사오육칠팔구]?\s?십\s?)?[일이삼사오육칠팔구]?)\s*(번|화|회|장|편)(?![가-힣])"
)


def _words_value(words: str) -> int:
    """One to ninety-nine written as words ("eighty four", "eighty-four")."""
    return english_number(words) or 0


def _year(match: re.Match[str]) -> str:
    century = _words_value(match.group("century"))
    if match.group("hundred"):
        after = match.group("after")
        plural = "s" if match.group("hundred").lower().endswith("s") and not after else ""
        return f"{century * 100 + (_words_value(after) if after else 0)}{plural}"
    if century in (11, 12):  # "eleven thirty": a clock time, not the year 1130
        return match.group(0)
    if match.group("zero"):
        return f"{century * 100 + _EN_UNITS[match.group('digit').lower()]}"
    if match.group("decade"):
        return f"{century * 100 + _EN_TENS[match.group('decade').lower()[:-3] + 'y']}s"
    if match.group("tens"):
        second = _words_value(match.group("tens") + " " + (match.group("unit") or ""))
        return f"{century * 100 + second}"
    return f"{century * 100 + _EN_UNITS[match.group('teen').lower()]}"


def _millennium(match: re.Match[str]) -> str:
    return f"{2000 + _words_value(match.group('rest'))}"


def _unless_inside(match: re.Match[str], text: str, value: Callable[[re.Match[str]], str]) -> str:
    if _NOT_A_YEAR_BEFORE.search(text, 0, match.start()):
        return match.group(0)
    return value(match)


def _years(text: str) -> str:
    for pattern, value in ((_MILLENNIUM, _millennium), (_YEAR, _year)):
        text = pattern.sub(lambda m, t=text, v=value: _unless_inside(m, t, v), text)
    return text


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


def _en_counter_value(first: str, second: str | None) -> int:
    value = _EN_SMALL.get(first.lower()) or _EN_HEARD[first.lower()]
    said = _EN_SMALL.get(second.lower(), _EN_HEARD.get(second.lower(), 0)) if second else 0
    if second and value >= 20 and 0 < said < 10:  # "episode twenty too": 22
        value += said
    return value


def spoken_to_digits(text: str) -> str:
    """`text` with spoken numbers as digits where they count something, for a small model
    and for the readers after it.

    Numbers next to an episode counter or a unit of time become digits ("第十二集" ->
    "第12集", "二十分钟" -> "20分钟", "episode two" -> "episode 2", "forty five minutes"
    -> "45 minutes", "the twenty-first chapter" -> "the 21th chapter", Korean "이 번" ->
    "2번"); a recogniser's "chapter for" is chapter 4.
    English years read the way people say them become four digits ("nineteen eighty four"
    1984, "nineteen oh five" 1905, "two thousand and one" 2001, "the nineteen eighties"
    the 1980s), never right after an episode counter ("chapter twenty one" is 21) nor
    inside a longer number; "eleven thirty" is a clock time and stays. Counters that are
    usually part of a title (第二部, 第三卷) are left alone, and so is every other word:
    digits are never read again, so the function is idempotent.
    """

    def zh(match: re.Match[str]) -> str:
        value = chinese_number(match.group(1))
        return f"第{value}{match.group(2)}" if value is not None else match.group(0)

    def zh_amount(match: re.Match[str]) -> str:
        value = chinese_number(match.group(1))
        return f"{value}{match.group(2)}" if value is not None else match.group(0)

    def en(match: re.Match[str]) -> str:
        second = match.group(3)
        if match.group(2).lower() in _EN_HEARD and not second:
            after = match.string[match.end() :]
            if re.match(r"\s+(?:the|a|an|my|your|her|his|our|their|me|us|them|it|its|this|that)\b",
                        after, re.IGNORECASE):  # fmt: skip
                return match.group(0)  # "reset this chapter to the beginning": a preposition
            before = match.string[: match.start()]
            if re.search(r"\b(?:each|every|this|that|the|same|current|one)\s+$", before, re.I):
                return match.group(0)  # "… of each chapter too": that chapter, no number
        if second and second.lower() == "second":
            before = match.string[: match.start()]
            if re.search(r"\b(?:each|every|this|that|the|same|current|one)\s+$", before, re.I):
                # "skip the music of each chapter thirty second": thirty seconds of it
                return f"{match.group(1)} {_en_counter_value(match.group(2), None)} {second}"
        value = _en_counter_value(match.group(2), second)
        if second and value == _en_counter_value(match.group(2), None):
            return f"{match.group(1)} {value} {second}"
        return f"{match.group(1)} {value}"

    def en_amount(match: re.Match[str]) -> str:
        if match.group(3):
            value = _EN_SMALL[match.group(3).lower()]
        else:
            value = _words_value(f"{match.group(1)} {match.group(2)}")
        return f"{value} {match.group(4)}"

    def ko(match: re.Match[str]) -> str:
        value = _ko_value(match.group(1))
        return f"{value}{match.group(2)}" if value is not None else match.group(0)

    text = _ZH_COUNTER.sub(zh, text)
    text = _ZH_AMOUNT.sub(zh_amount, text)

    text = _EN_COUNTER.sub(en, text)
    text = _EN_ORDINAL_COUNTER.sub(lambda m: f"{english_number(m.group())}th", text)
    text = _EN_AMOUNT.sub(en_amount, text)
    text = _years(text)
    return _KO.sub(ko, text)


# -- episode numbers of file names --------------------------------------------------------

_MARKERS = "集回章话話讲講节節期部卷篇"
MARKED = re.compile(  # group 1 or 2 holds the numeral
    rf"第\s*([0-9０-９]+|[{CHINESE_NUMERAL}]+)\s*[{_MARKERS}]?"
    rf"|([0-9０-９]+|[{CHINESE_NUMERAL}]+)\s*[{_MARKERS}]"
)
ENGLISH_MARKED = re.compile(
    r"\b(?:chapter|chap|ch|part|episode|ep|section|track|book)\.?\s*[-_#]?\s*(\d+)", re.I
)
_BARE = re.compile(r"\d+")


def section_number(name: str) -> int | None:
    """The episode number an episode title or file name most likely means, or None.

    Order of preference: "第N集"-style (Arabic or Chinese numerals), "Chapter N"-style, then
    the first bare number that is not a year-like 4-digit run when another number exists.
    """
    for match in MARKED.finditer(name):
        value = chinese_number(match.group(1) or match.group(2))
        if value is not None:
            return value
    match = ENGLISH_MARKED.search(name)
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
    value = chinese_number(text)
    if value is not None:
        return value
    return section_number(text)


_ORDINAL_EN = re.compile(
    r"(?:(?:um|uh|ok|okay|oh|yes|yeah|just|i mean|i want|i'll take|give me|play)\s+)*(?:the\s+)?"
    r"(?P<n>first|second|third|last|1st|2nd|3rd)(?:\s+(?:one|book|of them|option))?"
    r"(?:\s+(?:please|thanks|then))*"
)
_ORDINALS_EN = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "last": -1}
_ORDINAL_ZH = re.compile(
    r"(?:嗯|就|要|听|放|我要|选)*(?:第(?P<n>[一二三123])|(?P<first>头一)|(?P<last>最后一))"
    r"(?:个|本|部)?(?:吧|好了|就行|呗)?"
)


def ordinal_said(answer: str) -> int | None:
    """The place an answer to a choice names when it says only that ("the first one",
    "第二本", "the last one"): 1, 2, 3, or -1 for the last; None otherwise (a title, or
    "the first chapter", which is more than a place)."""
    plain = re.sub(r"[\s,.!?;，。！？；、~～…]+", " ", answer.strip().lower()).strip()
    if found := _ORDINAL_EN.fullmatch(plain):
        return _ORDINALS_EN[found.group("n")]
    if found := _ORDINAL_ZH.fullmatch(plain.replace(" ", "")):
        if found.group("last"):
            return -1
        if found.group("first"):
            return 1
        return number_value(found.group("n"))
    return None
