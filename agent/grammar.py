"""GBNF grammar for one ReAct reply, generated from the tool registry.

The grammar admits exactly::

    Thought: <one line, at most `thought_chars` characters>
    Action: <one registered tool name>
    Action Input: <JSON object matching *that* tool's schema>

or ``Thought: ...`` then ``Final Answer: <one line>``. Whitespace inside the JSON is bounded
(at most one space), and the reply ends right after the object or the answer line, so a
model under this grammar can neither invent an Observation nor run to its token limit.

`Constraints` narrows argument values by the role each parameter's schema names
(``x-role``), never by a tool's name: an ``album-id`` only takes ids seen in the data of
earlier results or the listener's context, an ``episode`` only a number the listener said
(none said: it is left out), a ``title`` a span of the utterance or the library title it
names. The loop fills it with `Constraints.quote`, `mention` and `learn`. Integers and
numbers keep within their schema's bounds (``minimum``/``maximum``, exclusive ones too): a
non-negative one admits no minus sign, a bounded one no value past its bounds.
GBNF is llama.cpp's grammar format (grammars/README.md in llama.cpp).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from words import Reading, fold, numbers_said
from words.titles import keyword_spans

from .tools import Tool, ToolRegistry

__all__ = ["Constraints", "build_grammar", "fold_text"]

_MAX_ENUMERATED_RANGE = 400
TITLE, ALBUM_ID, EPISODE, PAGE = "title", "album-id", "episode", "page"
SECONDS, MINUTES, PERCENT, RATE = "seconds", "minutes", "percent", "rate"
INTRO_SECONDS, OUTRO_SECONDS = "intro-seconds", "outro-seconds"
SLEEP_AT_END = "sleep-at-end"
PLAYBACK_STATE = "playback-state"
EPISODE_TITLE = "episode-title"
EPISODE_COUNT, PAGE_COUNT = "episode-count", "page-count"


def fold_text(text: str) -> str:
    """The default folding (`words.fold`): NFKC, case and traditional to simplified script."""
    return fold(text)


def _role(schema: dict[str, Any]) -> str | None:
    role = schema.get("x-role")
    return role if isinstance(role, str) else None


@dataclass
class Constraints:
    """Argument values the grammar admits, by parameter role, learned during a turn.

    `choices` maps a role (``title``, ``album-id``, ``episode``, ``page``) to the values
    admitted so far: an empty list admits none (an optional argument of that role is then
    left out, a tool requiring it is not offered); a role not in `choices` is free within
    its schema's bounds. ``album-id`` starts empty: only ids seen in data are admitted;
    ``episode-title`` stays empty: the words of an episode's title are the fast path's to
    give (the model writes them into the keyword, which the player also matches).
    `ranges` maps a role to an inclusive ``(low, high)`` range. `required` holds roles an
    optional argument must be given for (a title the listener named). `names` maps each
    album id seen to its title. `fold` is the text folding of the tools' title matcher.
    `playing` is set when the listener's context says a book plays (`learn`). `excluded`
    holds tools not offered (the player's state says they can do nothing, or the words
    wrote them after an ``Action:`` label). The words layer's reading (`words.Reading`)
    gives what was said (`quote`, `mention`); it restricts arguments, never tools.
    """

    choices: dict[str, list[Any]] = field(default_factory=lambda: {ALBUM_ID: [], EPISODE_TITLE: []})
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    excluded: set[str] = field(default_factory=set)
    names: dict[str, str] = field(default_factory=dict)
    fold: Callable[[str], str] = fold_text
    playing: bool = False

    def quote(
        self, reading: Reading, *, max_chars: int = 60, titles: Iterable[str] | None = None
    ) -> None:
        """Admit what the listener said (`reading`): titles only as spans of the utterance
        (`words.titles.keyword_spans`: no stop word, lone letter or number, nothing of an
        episode phrase or a duration), episodes only as the episode said (none said: the
        numbers said; none at all: the episode is left out), pages 1 and the numbers said,
        a percent only a number said (none said: a tool that needs one is not offered),
        seconds and minutes only the durations said (a time of day: none; nothing said:
        free). With `titles` (the library's), a span of one character or of function
        words only is admitted only when it is one of them ("家", "It"); an utterance
        longer than `max_chars` leaves titles free.
        """
        if not reading.text.strip():
            return
        said = (
            [reading.episode] if reading.episode else sorted({n for n in reading.numbers if n >= 1})
        )
        self.choices[EPISODE] = said
        self.choices[PAGE] = sorted({1, *(n for n in said if n >= 1)})
        if reading.episode:
            # "第120集", "chapter 4", "从头": leaving the episode out would play another one
            self.required.add(EPISODE)
        else:
            self.required.discard(EPISODE)
        # A volume is a number said ("音量调到五十"); none said ("太吵了"), no volume can
        # be set, only stepped: the model never picks 80 for "too loud".
        self.choices[PERCENT] = list(reading.percents)
        seconds = set(reading.durations)
        if seconds:
            # "快进三十秒" seeks 30 s, never the 120 of an example; "半小时" is 30 minutes.
            self.choices[SECONDS] = sorted({0, *seconds, *(-v for v in seconds)})
            self.choices[MINUTES] = sorted({0, *(v // 60 for v in seconds if v % 60 == 0)})
        elif reading.clock:
            # "明早七点的闹钟", "at ten pm": a time of day is no amount from now.
            self.choices[SECONDS] = []
            self.choices[MINUTES] = []
        spans = keyword_spans(reading.text, known=titles, max_chars=max_chars)
        if spans is None:
            self.choices.pop(TITLE, None)
            return
        for span in spans:
            self.allow(TITLE, span)
        self.choices.setdefault(TITLE, [])

    def mention(self, reading: Reading) -> list[str]:
        """Narrow the title role to the library titles the listener named (`reading`, in
        any form: a short form, an alias, a part said another way, a homophone); returns
        them. A named title must then be given (`required`) and is the only title
        admitted; the titles the words may mean when they name several are admitted, not
        required. Names nothing: no change."""
        named = reading.named
        if named:
            self.choices[TITLE] = list(named)
            self.required.add(TITLE)
            return named
        if reading.choices:
            self.choices[TITLE] = list(reading.choices)
        return []

    def allow(self, role: str, value: Any) -> None:
        """Admit `value` for `role` (kept in first-seen order, without repeats)."""
        values = self.choices.setdefault(role, [])
        if value not in values:
            values.append(value)

    def limit(self, role: str, low: int, high: int) -> None:
        """Admit only integers in ``low..high`` (inclusive) for `role`."""
        if high >= low:
            self.ranges[role] = (low, high)

    def learn(self, data: Any, schema: dict[str, Any] | None) -> None:
        """Learn from a result's data through its JSON Schema's roles: album ids (and the
        title beside each), titles, and the page count of a search.

        Only fields whose schema names a role count; values of other fields and prose are
        never read. A title seen becomes admissible unless the listener named one. The
        title of the book playing now (beside a ``playback-state`` of "playing") is
        admitted only when the listener said an episode ("播第五集" plays its episode 5):
        without one, playing it again would change nothing (`replays`).
        """
        if schema is None or data is None:
            return
        found: list[tuple[str, Any, dict[str, Any]]] = []
        _walk(data, schema, found, {})
        for role, value, siblings in found:
            if role == PLAYBACK_STATE and value == "playing":
                self.playing = True
            if role == ALBUM_ID and isinstance(value, str) and value:
                self.allow(ALBUM_ID, value)
                title = siblings.get(TITLE)
                if isinstance(title, str) and title:
                    self.names[value] = title
            elif role == TITLE and isinstance(value, str) and value.strip():
                if siblings.get(PLAYBACK_STATE) == "playing" and not self.choices.get(EPISODE):
                    continue
                if TITLE not in self.required and TITLE in self.choices:
                    self.allow(TITLE, value)
            elif role == PAGE_COUNT and isinstance(value, int) and value >= 1:
                for page in range(1, min(value, 50) + 1):
                    self.allow(PAGE, page)

    def admits(self, tool: Tool) -> bool:
        """False when `tool` is excluded, requires an argument whose role admits no value
        yet, or must be given a title (`replays`) and none is admissible."""
        if tool.name in self.excluded:
            return False
        props = tool.parameters.get("properties", {}) or {}
        for name in tool.parameters.get("required", []):
            role = _role(props.get(name, {}))
            if role is not None and role in self.choices and not self.choices[role]:
                return False
        return not (self.replays(tool) and TITLE in self.choices and not self.choices[TITLE])

    def replays(self, tool: Tool) -> bool:
        """True when leaving `tool`'s title out would play the book playing now again with
        nothing changed: a book plays, the tool's title is optional (left out: the book
        loaded now), it takes an episode and none was said. Such a call's arguments must
        then name a book (an argument rule of the tool, read from its roles: "现在在播什么"
        while a book plays never restarts it)."""
        if not self.playing or self.choices.get(EPISODE, [None]):
            return False
        props = tool.parameters.get("properties", {}) or {}
        required = set(tool.parameters.get("required", []))
        roles = {_role(p): k for k, p in props.items()}
        title = roles.get(TITLE)
        return title is not None and title not in required and EPISODE in roles

    def copy(self) -> Constraints:
        """An independent copy."""
        return Constraints(
            choices={k: list(v) for k, v in self.choices.items()},
            ranges=dict(self.ranges),
            required=set(self.required),
            excluded=set(self.excluded),
            names=dict(self.names),
            fold=self.fold,
            playing=self.playing,
        )


def role_values(
    data: Any, schema: dict[str, Any] | None, role: str, *, beside: str | None = None
) -> list[Any]:
    """The values of `data` whose field `schema` gives the ``x-role`` `role`; with
    `beside`, only those with a sibling field of that role (the title beside a
    ``playback-state`` is the loaded book's)."""
    if schema is None or data is None:
        return []
    found: list[tuple[str, Any, dict[str, Any]]] = []
    _walk(data, schema, found, {})
    return [
        value
        for r, value, siblings in found
        if r == role and (beside is None or siblings.get(beside) is not None)
    ]


def _walk(
    value: Any,
    schema: dict[str, Any],
    found: list[tuple[str, Any, dict[str, Any]]],
    siblings: dict[str, Any],
    depth: int = 0,
) -> None:
    """Collect (role, value, {sibling role: value}) from `value` following `schema`."""
    if depth > 6 or not isinstance(schema, dict):
        return
    role = _role(schema)
    if role is not None and not isinstance(value, (dict, list)):
        found.append((role, value, siblings))
        return
    if isinstance(value, dict):
        props = schema.get("properties", {}) or {}
        own = {
            r: value.get(k)
            for k, sub in props.items()
            if isinstance(sub, dict) and (r := _role(sub)) is not None
        }
        for key, item in value.items():
            if key in props:
                _walk(item, props[key], found, own, depth + 1)
    elif isinstance(value, list):
        items = schema.get("items", {})
        for item in value[:50]:
            _walk(item, items, found, siblings, depth + 1)


MAX_ANSWER_NUMBERS = 6
"""How many numbers one Final Answer may state when its numbers are bounded."""

MAX_KNOWN_NUMBERS = 64
"""How many distinct numbers the answer's rule admits (the smallest kept)."""


def _known_digits(numbers: Iterable[str]) -> list[str]:
    """The digit strings of `numbers` the answer's rule admits, smallest first: whole ASCII
    digit runs of at most 12 characters, the `MAX_KNOWN_NUMBERS` smallest."""
    valid = sorted({n for n in numbers if n.isascii() and n.isdigit() and len(n) <= 12}, key=int)
    return valid[:MAX_KNOWN_NUMBERS]


def numbers_seen(text: str) -> set[str]:
    """The numbers `text` states, as the digit strings a Final Answer may write: its digit
    runs as written ("05" of "2分05秒") and its Chinese numerals and English number words
    as digits ("第二十集" gives "20", "five" gives "5")."""
    return set(re.findall(r"\d+", text)) | {str(s.value) for s in numbers_said(text) if s.value > 0}


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _rule_name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower() or "x"


_COUNT_MAX = 9999
_NATURAL_MAX = 9_999_999
_FRACTION = '( "." [0-9]{1,6} )?'
_ZEROS = '( "." "0"{1,6} )?'
_COMMON_NUMBERS = {
    (True, 1, _COUNT_MAX): "json-count",
    (True, 0, _NATURAL_MAX): "json-natural",
    (True, -_NATURAL_MAX, _NATURAL_MAX): "json-integer",
    (False, -_NATURAL_MAX, _NATURAL_MAX): "json-number",
}
"""Bounds whose rule is one of the common ones (`_COMMON`)."""


def _bounds(schema: dict[str, Any]) -> tuple[int | None, int | None]:
    """The schema's inclusive bounds as integers, rounded inwards: ``minimum``/``maximum``
    and ``exclusiveMinimum``/``exclusiveMaximum`` (JSON Schema 2020-12). A number's
    fractional bound is rounded to the whole number inside it, so the grammar admits a
    subset of the schema's values, never one outside (``minimum: 0.5`` starts at 1)."""

    def bound(key: str, exclusive: str, up: bool) -> int | None:
        values = []
        for name, strict in ((key, False), (exclusive, True)):
            value = schema.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if not math.isfinite(value):
                continue
            whole = math.ceil(value) if up else math.floor(value)
            if strict and whole == value:
                whole += 1 if up else -1
            values.append(int(whole))
        if not values:
            return None
        return max(values) if up else min(values)

    return bound("minimum", "exclusiveMinimum", True), bound("maximum", "exclusiveMaximum", False)


def _digit_alternatives(a: str, b: str) -> list[str]:
    """GBNF sequences for the decimal strings of one length from `a` to `b` (a <= b)."""
    if a == b:
        return [f'"{a}"']
    if len(a) == 1:
        return [f"[{a}-{b}]"]
    if a[0] == b[0]:
        return [f'"{a[0]}" {rest}' for rest in _digit_alternatives(a[1:], b[1:])]
    tail = len(a) - 1
    low, high = int(a[0]), int(b[0])
    alternatives = []
    if a[1:] != "0" * tail:
        alternatives += [f'"{a[0]}" {r}' for r in _digit_alternatives(a[1:], "9" * tail)]
        low += 1
    upper = [] if b[1:] == "9" * tail else _digit_alternatives("0" * tail, b[1:])
    if upper:
        high -= 1
    if low <= high:
        first = f'"{low}"' if low == high else f"[{low}-{high}]"
        alternatives.append(f"{first} [0-9]" + (f"{{{tail}}}" if tail > 1 else ""))
    alternatives += [f'"{b[0]}" {r}' for r in upper]
    return alternatives


def _digits(low: int, high: int) -> str:
    """A GBNF expression for the integers `low`..`high` (0 <= low <= high) written in
    decimal without leading zeros."""
    alternatives = []
    for size in range(len(str(low)), len(str(high)) + 1):
        a = max(low, 10 ** (size - 1) if size > 1 else 0)
        b = min(high, 10**size - 1)
        if a <= b:
            alternatives += _digit_alternatives(str(a), str(b))
    return alternatives[0] if len(alternatives) == 1 else "( " + " | ".join(alternatives) + " )"


def _number_range(low: int, high: int, integral: bool) -> str:
    """A GBNF expression for the JSON integers (or numbers, with up to six decimals) from
    `low` to `high` inclusive; a fraction only where the value stays within them."""

    def side(first: int, last: int) -> list[str]:
        """Magnitudes first..last (0 <= first <= last): a fraction below `last`."""
        if integral:
            return [_digits(first, last)]
        parts = [f"{_digits(first, last - 1)} {_FRACTION}"] if first < last else []
        return [*parts, f'"{last}" {_ZEROS}']

    alternatives = []
    if low < 0:  # "-" and a magnitude; -0 only with a fraction ("-0.5")
        magnitudes = side(max(1, -high) if high < 0 else 1, -low)
        if not integral and high >= 0:
            magnitudes.insert(0, '"0" "." [0-9]{1,6}')
        joined = magnitudes[0] if len(magnitudes) == 1 else "( " + " | ".join(magnitudes) + " )"
        alternatives.append(f'"-" {joined}')
    if high >= 0:
        alternatives += side(max(low, 0), high)
    return " | ".join(alternatives)


class _Builder:
    def __init__(self, constraints: Constraints | None, string_chars: int) -> None:
        self.rules: dict[str, str] = {}
        self.constraints = constraints or Constraints()
        self.string_chars = string_chars

    def add(self, name: str, body: str) -> str:
        base = name
        n = 2
        while name in self.rules and self.rules[name] != body:
            name = f"{base}-{n}"
            n += 1
        self.rules[name] = body
        return name

    def admissible(self, schema: dict[str, Any]) -> bool:
        """False when the argument's role admits no value now (the key is left out)."""
        role = _role(schema)
        return (
            role is None
            or role not in self.constraints.choices
            or bool(self.constraints.choices[role])
        )

    def value(self, schema: dict[str, Any], argument: str) -> str:
        """A GBNF expression for one JSON value matching `schema`."""
        role = _role(schema)
        choices = self.constraints.choices.get(role) if role else None
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else ([kinds] if kinds else [])
        if choices:
            if "integer" in kinds or "number" in kinds:
                low, high = schema.get("minimum"), schema.get("maximum")
                literals = [
                    str(int(c))
                    for c in choices
                    if str(c).lstrip("-").isdigit()
                    and (low is None or int(c) >= low)
                    and (high is None or int(c) <= high)
                ]
            else:
                literals = [json.dumps(str(c), ensure_ascii=False) for c in choices]
            if literals:
                return "(" + " | ".join(_literal(v) for v in literals) + ")"
        if "enum" in schema:
            return (
                "("
                + " | ".join(_literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
                + ")"
            )
        if "const" in schema:
            return _literal(json.dumps(schema["const"], ensure_ascii=False))
        if "anyOf" in schema or "oneOf" in schema:
            options = schema.get("anyOf") or schema.get("oneOf")
            return "(" + " | ".join(self.value(o, argument) for o in options) + ")"
        if not kinds:
            return "json-value"
        if len(kinds) > 1 and "null" in kinds:
            kinds = [k for k in kinds if k != "null"]  # leave the key out instead
        parts = []
        for kind in kinds:
            if kind == "integer":
                parts.append(self.number(schema, integral=True))
            elif kind == "number":
                parts.append(self.number(schema))
            elif kind == "string":
                parts.append(self.string(schema))
            elif kind == "boolean":
                parts.append('("true" | "false")')
            elif kind == "null":
                parts.append('"null"')
            elif kind == "array":
                items = self.value(schema.get("items", {}), argument + "-item")
                parts.append(f'"[" ( {items} ( "," ws {items} ){{0,15}} )? "]"')
            else:
                parts.append("json-object")
        return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"

    def number(self, schema: dict[str, Any], *, integral: bool = False) -> str:
        """A rule for a JSON integer or number within the schema's bounds (`_bounds`): a
        non-negative one admits no minus sign, a bounded one no value past its bounds;
        small integer ranges are written out."""
        role = _role(schema)
        known = self.constraints.ranges.get(role) if role else None
        low, high = _bounds(schema)
        if known is not None:
            low = known[0] if low is None else max(low, known[0])
            high = known[1] if high is None else min(high, known[1])
        if integral and low is not None and high is not None:
            if 0 <= high - low < _MAX_ENUMERATED_RANGE:
                return self.add(
                    f"range-{low}-{high}".replace("--", "-m"),
                    " | ".join(_literal(str(i)) for i in range(low, high + 1)),
                )
        # Unbounded above: a count or an ordinal (episode, page, minutes) stays below
        # 10000, any other value below ten million, as the common rules have it.
        count = (low is not None and low >= 1) or (low is None and _positive(schema.get("default")))
        cap = _COUNT_MAX if count else _NATURAL_MAX
        if low is None and count:
            low = 1
        if high is None:
            high = max(cap, low or 0)
        if low is None:
            low = -max(cap, abs(high))
        if low > high:
            return '"0"' if integral else "json-number"  # an empty range: the schema errs
        common = _COMMON_NUMBERS.get((integral, low, high))
        if common is not None:
            return common
        name = f"{'int' if integral else 'num'}-{low}-{high}".replace("--", "-m")
        return self.add(name, _number_range(low, high, integral))

    def string(self, schema: dict[str, Any]) -> str:
        limit = min(int(schema.get("maxLength", self.string_chars)), self.string_chars)
        low = int(schema.get("minLength", 0))
        return self.add(f"string-{low}-{limit}", f'"\\"" json-char{{{low},{limit}}} "\\""')

    def obj(self, schema: dict[str, Any], prefix: str, *, title_needed: bool = False) -> str:
        """A rule for a JSON object with `schema`'s properties in schema order; with
        `title_needed` its title must be given (`Constraints.replays`)."""
        props: dict[str, Any] = schema.get("properties", {}) or {}
        forced = set(schema.get("required", []))
        if title_needed:
            forced |= {k for k, p in props.items() if _role(p) == TITLE}
        if not any(_role(p) == ALBUM_ID for p in props.values()):
            # A title the listener named must be given (not where an id says the album).
            forced |= {k for k, p in props.items() if _role(p) in self.constraints.required}
        props = {k: p for k, p in props.items() if k in forced or self.admissible(p)}
        if not props:
            if schema.get("additionalProperties", True) is False or "properties" in schema:
                return '"{}"'
            return "json-object"
        pair = {
            key: f'{_literal(json.dumps(key, ensure_ascii=False))} ws ":" ws '
            f"{self.value(props[key], key)}"
            for key in props
        }
        # Keys in schema order (as the examples write them); required ones must appear.
        keys = list(props)

        def rest(i: int) -> str:  # keys i.. after one already written
            if i == len(keys):
                return ""
            item = f'"," ws {pair[keys[i]]}'
            item = item if keys[i] in forced else f"( {item} )?"
            return f"{item} {rest(i + 1)}".strip()

        def first(i: int) -> str:  # keys i.. with none written yet ("" or nullable)
            if i == len(keys):
                return ""
            here = f"{pair[keys[i]]} {rest(i + 1)}".strip()
            if keys[i] in forced:
                return here
            later = first(i + 1)
            return f"( {here} | {later} )" if later else f"( {here} )?"

        return self.add(f"{prefix}-args", f'"{{" ws {first(0)} ws "}}"')


_COMMON = r"""
ws ::= " "?
json-char ::= [^"\\\x00-\x1f] | "\\" ["\\/bfnrt]
json-string ::= "\"" json-char{0,80} "\""
json-natural ::= "0" | [1-9] [0-9]{0,6}
json-count ::= [1-9] [0-9]{0,3}
json-integer ::= "-"? json-natural
json-number ::= json-integer ( "." [0-9]{1,6} )?
json-value ::= json-string | json-number | "true" | "false" | "null" | json-array | json-object
json-array ::= "[" ws ( json-value ( "," ws json-value ){0,15} )? ws "]"
json-object ::= "{" ws ( json-string ws ":" ws json-value ( "," ws json-string ws ":" ws json-value ){0,15} )? ws "}"
"""


def build_grammar(
    tools: ToolRegistry | Iterable[Tool],
    *,
    constraints: Constraints | None = None,
    thought_chars: int = 160,
    answer_chars: int = 240,
    string_chars: int = 60,
    allow_final: bool = True,
    answer_numbers: Iterable[str] | None = None,
    final_thought: str = "",
    answer_text: str = "",
    thought_start: str = "",
) -> str:
    """GBNF text for one reply: a Thought line, then one tool call or a Final Answer.

    `thought_chars`, `answer_chars` and `string_chars` bound the Thought line, the answer
    line and every JSON string value (characters). `allow_final=False` forces a tool call.
    `answer_numbers` (digit strings such as "30", "05") are the only numbers the Final
    Answer may write in ASCII digits, each whole (never two run together): the loop passes
    the numbers of the utterance, the player's state and the observations, so a count, a
    distance or a height cannot be invented. None admits any digits; an empty collection
    none.
    `final_thought` (e.g. "播放器状态") is the start a Thought must have for a Final
    Answer to follow it while a tool call is possible: an answer without a tool is then
    only one the model grounded in the player's state.
    `answer_text`, when given, is the only Final Answer (the loop passes the message of
    the tool result just observed: the listener hears the data, never a retelling); the
    model still chooses between it and another tool call.
    `thought_start`, when given, is how the Thought of a tool call begins (the loop passes
    the book the listener named, so the Thought names the book the action acts on).
    Raises ValueError when there are no tools and no Final Answer is allowed.
    """
    tool_list = tools.tools() if isinstance(tools, ToolRegistry) else list(tools)
    if not tool_list and not allow_final:
        raise ValueError("a grammar needs at least one tool or a Final Answer")
    builder = _Builder(constraints, string_chars)
    calls = []
    for tool in tool_list:
        prefix = "t-" + _rule_name(tool.name)
        args = builder.obj(tool.parameters, prefix, title_needed=builder.constraints.replays(tool))
        calls.append(
            builder.add(prefix, f"{_literal(tool.name + chr(10) + 'Action Input: ')} {args}")
        )
    action = '"Action: " ( ' + " | ".join(calls) + " )" if calls else ""
    final = ""
    extra: list[str] = []
    known = None if answer_numbers is None else _known_digits(answer_numbers)
    if allow_final and answer_text.strip():
        final = '"Final Answer: " ' + _literal(" ".join(answer_text.split()))
    elif allow_final and known is None:
        final = f'"Final Answer: " line-char{{1,{answer_chars}}}'
    elif allow_final and not known:
        final = f'"Final Answer: " answer-char{{1,{answer_chars}}}'
    elif allow_final:
        final = (
            '"Final Answer: " ( answer-number answer-text | answer-text ) '
            f"( answer-number answer-text ){{0,{MAX_ANSWER_NUMBERS - 1}}} answer-number?"
        )
        extra += [
            f"answer-text ::= answer-char{{1,{answer_chars}}}",
            "answer-number ::= " + " | ".join(f'"{n}"' for n in known),
        ]
    thought = f'line-char{{1,{thought_chars}}} "\\n"'
    start = " ".join(thought_start.split())
    if start and len(start) < thought_chars:
        thought = f'{_literal(start)} line-char{{0,{thought_chars - len(start)}}} "\\n"'
    if action and final and final_thought and len(final_thought) < thought_chars:
        grounded = f"{_literal(final_thought)} line-char{{0,{thought_chars - len(final_thought)}}}"
        body = f'( {thought} {action} | {grounded} "\\n" {final} )'
    else:
        body = f"{thought} ( {' | '.join(b for b in (action, final) if b)} )"
    lines = [
        f'root ::= "Thought: " {body}',
        "line-char ::= [^\\n\\r\\x00-\\x1f]",
        "answer-char ::= [^\\n\\r\\x00-\\x1f0-9]",
        *extra,
    ]
    lines.extend(f"{name} ::= {body}" for name, body in builder.rules.items())
    return "\n".join(lines) + "\n" + _COMMON.strip() + "\n"
