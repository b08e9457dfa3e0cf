"""Fast path: short, unambiguous commands matched before any model is called.

Each tool brings its own whole commands (`Tool.phrases`, e.g. "暂停" / "pause") and
patterns with arguments (`Tool.patterns`, e.g. a volume "音量调到#" whose named group is
the parameter and whose ``#`` is a number said: digits, Chinese numerals, English words).
They map straight to one tool call, so they cost milliseconds rather than a model step,
and work with no language model loaded. Only the whole utterance matches (after dropping
punctuation and politeness words), so "不要暂停" is never taken for "暂停"; or, of an
utterance in several clauses, its last clause alone when the clauses before it say no
amount of time and name no library title ("这集听过了，放下一集", "no, not that one, the
previous one": the last clause is the command, a correction wins). A group of a
parameter whose role is a title (``x-role: title``, e.g. "(?P<keyword>.+?)有多少集") matches
only a whole library title, compared after the title matcher's folding; anything else is
left to the model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

_LOGGER = logging.getLogger(__name__)

__all__ = ["FastMatch", "FastPath", "acknowledgement", "chinese_number", "number_value"]

_POLITE_ZH = re.compile(
    r"^(?:嗯+|呃+|哎+|哎呀|哎哟|唉|诶|欸|喂|哦+|噢|啊+|那个|好的|好了|那|请你|请|麻烦你|麻烦|帮我|给我|你能不能|能不能|可不可以|"
    r"你可以|小听小听|小听)+"
    r"|(?:一下子|一下|吧|了|啊|呀|哦|呢|嘛|啦|哈|呗|好吗|好不好|行吗|行不行|可以吗|谢谢|谢了)+$"
)
_POLITE_EN = re.compile(
    r"^(?:(?:hey |ok |okay )?xiaoting,? |please |can you |could you |would you |um |uh |"
    r"ok so |okay so |so |well |alright |all right |oh |hey |ok |okay |sorry |whoa |wow |"
    r"oops |hmm+ |ah |er |erm )+|"
    r"(?: please| now| right now| for me| thanks| thank you| ok| okay)+$"
)
_PUNCT = re.compile(r"[\s,.!?;:，。！？；：、~～…\"'“”‘’]+")
_CLAUSE = re.compile(r"[,.!?;，。！？；…]+")
"""What ends a clause (a comma or a sentence's end; never a space, which ASR puts anywhere)."""

_NUMBER = (
    r"(?:\d{1,4}|[零〇一二两三四五六七八九十百]{1,4}|"
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|one hundred)"
)
_EN_VALUES = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "a hundred": 100, "one hundred": 100,
}  # fmt: skip

_AMOUNT = re.compile(
    r"(?:[\d零〇一二两三四五六七八九十百半]|\b(?:half|" + "|".join(_EN_VALUES) + r")\b)"
    r"\s*(?:个)?\s*(?:分钟|分|秒|小时|钟头|点|minutes?|mins?|seconds?|secs?|hours?|o'clock)"
    r"|\bhalf an hour\b",
    re.IGNORECASE,
)
"""An amount or a time of day in an earlier clause ("十分钟后，关掉", "in ten minutes,
turn it off"): the last clause alone would lose it. "a second" says none."""

_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}


_UNITS = {"十": 10, "百": 100, "千": 1000}


def chinese_number(text: str) -> int | None:
    """Integer value of Arabic digits or a Chinese numeral ("五十" -> 50, "一百二十" -> 120,
    "一百零五" -> 105, "二〇二" -> 202, "一万" -> 10000); None for anything else."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _DIGITS and ch not in _UNITS and ch != "万" for ch in text):
        return None
    if not any(ch in _UNITS or ch == "万" for ch in text):
        return int("".join(str(_DIGITS[ch]) for ch in text))  # digit by digit: 二〇二
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


def normalise(utterance: str) -> str:
    """Lower-case `utterance` without punctuation, spaces at the ends or politeness words."""
    text = utterance.strip().lower().replace("’", "'")
    text = _PUNCT.sub(" ", text).strip()
    if re.search(r"[\u4e00-\u9fff]", text):
        text = text.replace(" ", "")
        for _ in range(2):
            text = _POLITE_ZH.sub("", text)
    else:
        for _ in range(2):
            text = _POLITE_EN.sub("", text).strip()
    return text


_ACKNOWLEDGEMENTS = frozenset(
    {"ok", "okay", "thanks", "thank you", "thank you very much", "thanks a lot", "alright",
     "all right", "got it", "cool", "great", "fine", "never mind", "nevermind", "no thanks",
     "好", "行", "对", "没事", "没事了", "算了", "不用了", "知道了", "好嘞", "多谢"}
)  # fmt: skip


def acknowledgement(utterance: str) -> bool:
    """True when `utterance` asks for nothing: only fillers, politeness and thanks ("谢谢",
    "嗯", "好的", "ok", "thanks", "never mind"). No tool is called for it."""
    if not re.search(r"\w", utterance):
        return False
    text = normalise(utterance)
    return not text or text in _ACKNOWLEDGEMENTS


def number_value(text: str) -> int | None:
    """The value of a number said: digits, a Chinese numeral up to 百, an English word."""
    text = text.strip().lower()
    if text in _EN_VALUES:
        return _EN_VALUES[text]
    return chinese_number(text)


@dataclass(frozen=True)
class FastMatch:
    """A fast-path hit: call `tool` with `arguments`."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


class FastPath:
    """Matches whole short utterances to tool calls; `enabled=False` matches nothing.

    `extra` adds phrases ``{tool name: (phrase, ...)}`` to those the tools bring.
    """

    def __init__(self, *, enabled: bool = True, extra: dict[str, tuple[str, ...]] | None = None):
        self.enabled = enabled
        self.extra = dict(extra or {})
        self._key: tuple[Any, ...] | None = None
        self._phrases: dict[str, str] = {}
        self._patterns: list[tuple[re.Pattern[str], Any]] = []

    def _build(self, tools: Sequence[Any]) -> None:
        key = tuple((t.name, t.phrases, t.patterns) for t in tools)
        if key == self._key:
            return
        self._key = key
        self._phrases = {}
        self._patterns = []
        for tool in tools:
            for phrase in (*tool.phrases, *self.extra.get(tool.name, ())):
                self._phrases.setdefault(normalise(phrase) or phrase, tool.name)
            for pattern in tool.patterns:
                try:
                    compiled = re.compile("^(?:" + pattern.replace("#", _NUMBER) + ")$")
                except re.error as err:
                    _LOGGER.warning("fast path: bad pattern of %s: %s", tool.name, err)
                    continue
                self._patterns.append((compiled, tool))

    def match(
        self,
        utterance: str,
        tools: Sequence[Any],
        titles: Iterable[str] | Callable[[], Iterable[str]] = (),
        fold: Callable[[str], str] = str.casefold,
    ) -> FastMatch | None:
        """The tool call for `utterance` if it is a whole known command of one of `tools`
        (`Tool` objects: their `phrases` and `patterns`). A title group matches only one of
        `titles` (the library's, or a function giving them, called only when needed), both
        compared after `fold`."""
        if not self.enabled or len(utterance) > 80:
            return None
        self._build(tools)
        known: dict[str, str] | None = None

        def library() -> dict[str, str]:
            nonlocal known
            if known is None:
                listed = titles() if callable(titles) else titles
                known = {_title_key(title, fold): title for title in listed}
            return known

        hit = self._whole(normalise(utterance), library, fold)
        if hit is not None:
            return hit
        clauses = [c for c in _CLAUSE.split(utterance) if normalise(c)]
        if len(clauses) < 2:
            return None
        earlier = " ".join(clauses[:-1])
        if _AMOUNT.search(earlier) or _names_title(earlier, library(), fold):
            return None
        return self._whole(normalise(clauses[-1]), library, fold)

    def _whole(
        self, text: str, library: Callable[[], dict[str, str]], fold: Callable[[str], str]
    ) -> FastMatch | None:
        """The call of the whole normalised `text`: a phrase, else a pattern."""
        if not text:
            return None
        name = self._phrases.get(text)
        if name is not None:
            return FastMatch(name)
        for pattern, tool in self._patterns:
            found = pattern.match(text)
            if found is None:
                continue
            known = library() if _has_title(tool) else {}
            arguments = _arguments(found.groupdict(), tool, known, fold)
            if arguments is not None:
                return FastMatch(tool.name, arguments)
        return None


def _title_key(text: str, fold: Callable[[str], str]) -> str:
    return _PUNCT.sub("", fold(text).replace("’", "'"))


def _names_title(text: str, known: dict[str, str], fold: Callable[[str], str]) -> bool:
    """True when `text` names a library title (`known`: `_title_key` -> title) of two
    characters or more, at token boundaries as the grammar finds titles named."""
    from .grammar import _named

    return any(len(key) >= 2 and _named(title, text, fold) for key, title in known.items())


def _has_title(tool: Any) -> bool:
    props = tool.parameters.get("properties", {}) or {}
    return any(schema.get("x-role") == "title" for schema in props.values())


def _arguments(
    groups: dict[str, str | None],
    tool: Any,
    titles: dict[str, str],
    fold: Callable[[str], str],
) -> dict[str, Any] | None:
    """Arguments from a pattern's named groups, numbers parsed and checked against the
    parameter's bounds, a title looked up in `titles` (`_title_key` -> library title);
    None when a number is out of range or a title group names no library title."""
    props = tool.parameters.get("properties", {}) or {}
    out: dict[str, Any] = {}
    for name, raw in groups.items():
        if raw is None or name not in props:
            continue
        schema = props[name]
        if schema.get("x-role") == "title":
            title = titles.get(_title_key(raw, fold))
            if title is None:
                return None
            out[name] = title
            continue
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "integer" in kinds or "number" in kinds:
            value = number_value(raw)
            if value is None:
                return None
            if "minimum" in schema and value < schema["minimum"]:
                return None
            if "maximum" in schema and value > schema["maximum"]:
                return None
            out[name] = value
        else:
            out[name] = raw
    return out
