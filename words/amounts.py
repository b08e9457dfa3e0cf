"""Amounts an utterance states: durations, times of day, percents and playback speeds.

The span readers take text after `numbers.spoken_to_digits` (as `clean_transcript` writes
it), so "forty five minutes" is 45 minutes, never 5; `durations_said` applies it itself.
A unit without a number is no amount ("小时候", "部分"), and "一点" alone is "a little"
("大声一点"), never one o'clock.
"""

from __future__ import annotations

import re

from .numbers import (
    CHINESE_NUMERAL,
    chinese_number,
    english_number,
    number_value,
    numbers_said,
    spoken_to_digits,
)

__all__ = [
    "DURATION",
    "NUMERAL_IN_WORD",
    "clock_said",
    "clock_spans",
    "duration_spans",
    "durations_said",
    "percents_said",
    "rate_said",
    "rates_said",
]

_CN = "零〇一二两三四五六七八九十百"
_DURATION_PART = re.compile(
    # a fraction of a unit: "三分之一小时", "四分之三分钟", "three quarters of a minute"
    rf"(?P<zh_den>[\d{_CN}]+)\s*分之\s*(?P<zh_num>[\d{_CN}]+)\s*个?\s*"
    r"(?P<zh_unit>小时|钟头|分钟|秒钟)"
    r"|\b(?P<frac>(?:(?P<frac_num>an?|one|two|three|\d)[\s-]+)?(?P<frac_den>quarters?|thirds?)"
    r"\s+(?:of\s+)?(?:an?\s+)?(?P<frac_unit>hour|minute)s?)\b"
    rf"|(?P<n>\d+(?:\.\d+)?|[{_CN}]+|(?<=[倒退进])几)?\s*(?P<half>个半|半)?\s*个?\s*"
    r"(?P<unit>小时|钟头|刻钟|分钟|分(?!之)|秒钟|秒)(?P<half2>半)?"
    r"|\b(?P<half_en>half\s+(?:an?\s+)?(?P<half_unit>hour|minute))\b"
    r"|\b(?P<en>\d+(?:\.\d+)?|(?:a\s+)?couple(?:\s+of)?|a\s+few|[a-z]+|an?)"
    r"(?:\s+(?:whole|full|entire|good))?"
    r"(?P<and_half>\s+and\s+(?:a\s+)?half)?(?P<and_quarter>\s+and\s+a\s+quarter)?[\s-]+"
    r"(?P<eunit>hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
    r"(?P<and_half2>\s+and\s+(?:a\s+)?half)?(?P<and_quarter2>\s+and\s+a\s+quarter)?"
    r"(?:\s+and\s+(?P<and_min>\d{1,2}|(?:twenty|thirty|forty|fifty)(?:[\s-](?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
    r"(?![\w-]|\s+(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b)"
    # "eight minutes thirty": the smaller unit's number, said last in its clause or before a
    # preposition ("a minute ten at the start")
    r"|\s+(?P<bare_min>[1-5]?\d|(?:twenty|thirty|forty|fifty)(?:[\s-](?:one|two|three|four|five|"
    r"six|seven|eight|nine))?|ten|fifteen)(?=\s*(?:$|[,.!?;，。！？]|(?:at|for|of|on|in|into|"
    r"from|please|each|every|then)\b)))?"
    r"|\b(?P<quarter>(?:a\s+)?quarter\s+(?:of\s+an?\s+)?(?P<quarter_unit>hour|minute))\b"
    r"|(?<![\d:])(?P<clock>\d{1,2}(?::\d{2}){1,2})(?![\d:])",
    re.IGNORECASE,
)
_JOINER = re.compile(r"\s*(?:零|又|和|and|,|，)?\s*", re.IGNORECASE)
"""What may stand between two parts of one duration ("三分二十秒", "1 minute and 30 seconds")."""
_UNIT_SECONDS = {"小时": 3600, "钟头": 3600, "刻钟": 900, "分钟": 60, "分": 60, "秒钟": 1,
                 "秒": 1, "hour": 3600, "hr": 3600, "minute": 60, "min": 60, "second": 1,
                 "sec": 1}  # fmt: skip

DURATION = re.compile(
    rf"[\d{_CN}半]+\s*(?:个)?\s*(?:分钟|分(?!之)|秒钟|秒|小时|钟头)"
    r"|\b(?:\d+|[a-z]+)(?:[\s-]+[a-z]+)?\s+(?:minutes?|mins?|seconds?|secs?|hours?)\b",
    re.IGNORECASE,
)
"""A duration's text (number and unit), for taking it out of other readings."""

_CLOCK = re.compile(
    rf"(?:[\d{_CN}]+\s*点(?:钟|半|\d+分?)?)"
    r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)(?!\w)"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:am|pm|a\.m\.|p\.m\.|o'clock)(?!\w)"
    r"|(?<!\bthe )(?<!\ba )\b(?:midnight|noon|bedtime)\b",  # not a name's: "the midnight library"
    re.IGNORECASE,
)


_FEW = {"couple": 2.0, "a couple": 2.0, "few": 3.0, "a few": 3.0, "几": 3.0}
"""Counts said without a number: "a couple of minutes" 2, "a few" and "倒几分钟" 3."""


def _count_word(text: str) -> str:
    """`text` as a count word is looked up: lower case, one space, "of" after it left out."""
    return re.sub(r"\s+", " ", text.strip().lower()).removesuffix(" of")


def _amount(text: str) -> float | None:
    word = _count_word(text)
    if word in ("a", "an"):
        return 1.0
    if word in _FEW:
        return _FEW[word]
    try:
        return float(word)
    except ValueError:
        pass
    value = chinese_number(word)
    if value is None:
        value = english_number(word)
    return None if value is None else float(value)


def _parts(text: str, counted: bool) -> list[tuple[int, int, int]]:
    """Each duration part `text` states, as ``(seconds, start, end)``, not joined."""
    parts: list[tuple[int, int, int]] = []
    for match in _DURATION_PART.finditer(text):
        if match.group("clock"):
            value = 0.0
            for part in match.group("clock").split(":"):
                value = value * 60 + int(part)
        elif match.group("half_en"):
            value = 1800.0 if match.group("half_unit").lower() == "hour" else 30.0
        elif match.group("zh_den"):
            whole, part = _amount(match.group("zh_den")), _amount(match.group("zh_num"))
            if not whole or part is None:
                continue
            value = part / whole * _UNIT_SECONDS[match.group("zh_unit")]
        elif match.group("frac"):
            part = _amount(match.group("frac_num") or "a")
            whole = 4 if match.group("frac_den").lower().startswith("quarter") else 3
            if part is None:
                continue
            value = part / whole * _UNIT_SECONDS[match.group("frac_unit").lower()]
        elif match.group("quarter"):
            value = 900.0 if match.group("quarter_unit").lower() == "hour" else 15.0
        else:
            unit = match.group("unit") or match.group("eunit").lower().rstrip("s")
            said = match.group("n") if match.group("unit") else match.group("en")
            if said and unit in ("second", "sec", "秒", "秒钟"):
                word = _count_word(said)
                if word in _FEW or (counted and word in ("a", "an")):
                    continue  # "wait a second", "倒几秒" say no amount; "go back a minute" does
            if said:
                number = _amount(said)
            elif match.group("half") in ("半", "个半"):
                number = 0.0  # "半小时", "定个半小时": half of one unit, not one and a half
            else:
                continue  # a unit alone: "小时候", "部分"
            if number is None:
                continue
            half = bool(match.group("half") or match.group("half2") or match.group("and_half")
                        or match.group("and_half2"))  # fmt: skip
            quarter = bool(match.group("and_quarter") or match.group("and_quarter2"))
            value = (number + (0.5 if half else 0.25 if quarter else 0.0)) * _UNIT_SECONDS[unit]
            if match.group("bare_min") and unit in ("minute", "min", "hour", "hr"):
                smaller = _amount(match.group("bare_min"))  # "eight minutes thirty": 510 s
                if smaller is not None and 0 < smaller < 60 and not half and not quarter:
                    value += smaller * _UNIT_SECONDS[unit] / 60
            if match.group("and_min") and unit in ("hour", "hr"):
                minutes = _amount(match.group("and_min"))  # "an hour and ten": 70 minutes
                if minutes is not None and 0 < minutes < 60 and not half:
                    value += minutes * 60
        if value > 0:
            parts.append((round(value), match.start(), match.end()))
    return parts


def _smallest_unit(seconds: int) -> int:
    """The smallest unit a duration of `seconds` is said in: an hour, a minute or a second."""
    return 3600 if seconds % 3600 == 0 else 60 if seconds % 60 == 0 else 1


def duration_spans(text: str, *, counted: bool = False) -> list[tuple[int, int, int]]:
    """The durations `text` states as ``(seconds, start, end)``: "三十秒" 30, "两分钟" 120,
    "半小时" 1800, "一个半小时" 5400, "an hour and a half" 5400, "half an hour" 1800,
    "5:30" 330; parts said together ("三分二十秒", "1 minute and 30 seconds") give one span
    of their sum. With `counted`, "a"/"an" is no number ("wait a second", "just a minute"
    say no amount)."""
    spans: list[tuple[int, int, int]] = []
    for seconds, start, end in _parts(text, counted):
        if (
            spans
            and seconds < _smallest_unit(spans[-1][0])
            and _JOINER.fullmatch(text[spans[-1][2] : start])
        ):  # "两分钟三十秒" one span; "改成二十秒，十秒太短" two
            spans[-1] = (spans[-1][0] + seconds, spans[-1][1], end)
        else:
            spans.append((seconds, start, end))
    return spans


def durations_said(text: str, *, counted: bool = False) -> set[int]:
    """The durations `text` states, in whole seconds: each part and each sum of parts
    said together ("三分二十秒" gives 180, 20 and 200; see `duration_spans`). Empty when
    none is said ("小时候", "部分": a unit without a number is none)."""
    text = spoken_to_digits(text)
    found = {seconds for seconds, _, _ in _parts(text, counted)}
    found |= {seconds for seconds, _, _ in duration_spans(text, counted=counted)}
    return found


def clock_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` says a time of day ("七点", "十点半", "7 am", "ten o'clock",
    "midnight"); "一点" alone is "a little", never one o'clock, and a point followed by
    digits is a decimal ("零点七五倍" is 0.75)."""
    return [
        (m.start(), m.end())
        for m in _CLOCK.finditer(text)
        if m.group().strip() not in ("一点", "1点")
        and not (
            m.group().rstrip().endswith("点")
            and (
                re.match(r"\s*[零〇一二三四五六七八九]{1,2}\s*倍", text[m.end() :])
                or (  # "语速调到零点七五": a decimal; "零点三十分" is a time
                    m.group().strip()[:1] in "零〇"
                    and re.match(
                        r"\s*[零〇一二三四五六七八九]{1,2}(?![\s零〇一二三四五六七八九十]*分)",
                        text[m.end() :],
                    )
                )
            )
        )
    ]


def clock_said(text: str) -> bool:
    """True when `text` says a time of day (`clock_spans`)."""
    return bool(clock_spans(text))


NUMERAL_IN_WORD = re.compile(
    rf"(?<![{CHINESE_NUMERAL}])[{CHINESE_NUMERAL}]++(?=[\u3400-\u9fff])(?![吧呢啊了呀的吗嘛哦%％])"
)
"""A Chinese numeral that runs on into a word ("三国", "一千零一夜"), not a number said;
八十吧 or 西游记三 end in it."""


def percents_said(text: str) -> list[int]:
    """The numbers `text` says that can be a volume (0..100): not a duration ("十分钟"),
    a time of day ("七点", "7 am") or a numeral inside a word; "seventy five" is 75."""
    rest = DURATION.sub(lambda m: " " * len(m.group()), text)
    for start, end in clock_spans(rest):
        rest = rest[:start] + " " * (end - start) + rest[end:]
    rest = NUMERAL_IN_WORD.sub(lambda m: " " * len(m.group()), rest)
    found = [s.value for s in numbers_said(rest, lone_one=False)]
    if re.search(
        r"(?<![\d.])0(?![\d.])|\bzero\b|(?<![一二三四五六七八九十百千])零(?![一二三四五六七八九十])",
        rest,
    ):
        found.append(0)  # "音量调到零", "volume zero"
    return sorted({n for n in found if 0 <= n <= 100})


_DIGIT = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4",
          "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "零": "0",
          "〇": "0", "一": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5",
          "六": "6", "七": "7", "八": "8", "九": "9"}  # fmt: skip
_RATE = re.compile(r"(?P<whole>.*?)(?:\s*(?:\.|点|\bpoint\b)\s*(?P<frac>.+))?")


def _decimals(text: str) -> str | None:
    """The digits after a decimal point said: "5", "五", "二五", "five", "two five", "twenty
    five" (25); None when they are not digits."""
    text = text.strip()
    if text.isdigit():
        return text
    words = text.split() if " " in text else list(text)
    if all(w in _DIGIT for w in words):
        return "".join(_DIGIT[w] for w in words)
    value = english_number(text)
    return str(value) if value is not None and 0 < value < 100 else None


def rate_said(text: str) -> float | None:
    """A playback speed as said: "1.5", "一点五", "两" (2), "一倍半"/"one and a half" and, as
    a learner says it, "one and half" (1.5),
    "one point two five" (1.25), "double" (2.0), "half" (0.5); None for anything else."""
    said = text.strip().lower().removesuffix("倍").strip()
    if said in ("double", "twice", "两倍", "双倍"):
        return 2.0
    if said in ("half", "半", "一半"):
        return 0.5
    if re.fullmatch(r"three[- ]quarters?|四分之三", said):
        return 0.75
    if said in ("quarter", "四分之一"):
        return 0.25  # said, and out of range: the player says the range
    if said in ("max", "maximum", "full", "top", "fastest", "最快"):
        return 2.0  # the fastest the player plays (MAX_SPEED)
    if said in ("min", "minimum", "slowest", "最慢"):
        return 0.5
    half = False
    for tail in ("倍半", "个半", "半", " and a half", " and half"):
        if said.endswith(tail) and said != tail:
            said, half = said.removesuffix(tail).strip(), True
            break
    match = _RATE.fullmatch(said)
    if match is None:
        return None
    whole = number_value(match.group("whole")) if match.group("whole") else 0
    if whole is None:
        return None
    value = float(whole)
    if match.group("frac"):
        digits = _decimals(match.group("frac"))
        if digits is None:
            return None
        value += float("0." + digits)
    return value + 0.5 if half else value


_RATE_MARK = re.compile(
    r"倍|点[一二三四五六七八九]|\d\.\d|\b(?:point|double|twice|half)\b", re.IGNORECASE
)
"""What makes a span a playback speed: 倍, a decimal point, "double", "twice", "half". A bare
number is none ("two chapters", "bump it up two")."""

_RATE_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+|\S", re.IGNORECASE)
_RATE_SPAN = 8
"""The longest span (characters of Chinese, tokens of the rest) read as one speed."""


def rates_said(text: str) -> list[float]:
    """The playback speeds `text` (a whole transcript) states, in order: each the longest
    span `rate_said` reads that carries a mark of a speed (`_RATE_MARK`: "开到两倍",
    "one point two five", "double time", "1.5"); spans do not overlap. A bare number is no
    speed, nor a span `rate_said` does not read."""
    tokens = _RATE_TOKEN.findall(text.lower())
    joiner = "" if any("\u3400" <= t <= "\u9fff" for t in tokens) else " "
    spans = sorted(
        (
            (i, j)
            for i in range(len(tokens))
            for j in range(i + 1, min(len(tokens), i + _RATE_SPAN) + 1)
        ),
        key=lambda span: (span[0] - span[1], span[0]),
    )
    taken: set[int] = set()
    found: list[tuple[int, float]] = []
    for i, j in spans:
        if taken.intersection(range(i, j)):
            continue
        said = joiner.join(tokens[i:j])
        if not _RATE_MARK.search(said):
            continue
        rate = rate_said(said)
        if rate is not None:
            found.append((i, rate))
            taken.update(range(i, j))
    return [rate for _, rate in sorted(found)]
