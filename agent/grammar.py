"""GBNF grammar for one ReAct reply, generated from the tool registry.

The grammar admits exactly::

    Thought: <one line, at most `thought_chars` characters>
    Action: <one registered tool name>
    Action Input: <JSON object matching *that* tool's schema>

or ``Thought: ...`` then ``Final Answer: <one line>``. Whitespace inside the JSON is bounded
(at most one space), and the reply ends right after the object or the answer line, so a
model under this grammar can neither invent an Observation nor run to its token limit.

`Constraints` narrows argument values to those that can be right: an ``album_id`` only
takes ids seen in earlier observations, a ``section``/``episode`` only numbers within the
album's known range. The loop fills it from observations with `Constraints.observe`.
GBNF is llama.cpp's grammar format (grammars/README.md in llama.cpp).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .tools import Tool, ToolRegistry

__all__ = ["Constraints", "build_grammar"]

_MAX_ENUMERATED_RANGE = 400
_ID_KEYS = ("album_id", "albumId", "id")
_COUNT_KEYS = ("episodes", "episode_count", "total_episodes", "sections", "count", "total")
_ID_TEXT = re.compile(
    r"(?:album_id|专辑\s*ID|专辑编号|album id|\bid)\s*[:=：]\s*[\"'“]?([A-Za-z0-9_\-]{1,40})",
    re.IGNORECASE,
)
_COUNT_TEXT = re.compile(
    r"共\s*(\d{1,5})\s*集|(\d{1,5})\s*(?:episodes|chapters|sections)\b|"
    r"(?:episodes|episode_count|total_episodes)\s*[:=]\s*(\d{1,5})",
    re.IGNORECASE,
)


@dataclass
class Constraints:
    """Argument values the grammar admits, learned from observations during a turn.

    `choices` maps an argument name (e.g. ``album_id``) to the values seen so far;
    `ranges` maps an integer argument name (e.g. ``section``) to an inclusive
    ``(low, high)`` range. Empty means unconstrained.
    """

    choices: dict[str, list[Any]] = field(default_factory=dict)
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    id_arguments: tuple[str, ...] = ("album_id",)
    range_arguments: tuple[str, ...] = ("section", "episode")
    text_arguments: tuple[str, ...] = ("keyword",)
    excluded: set[str] = field(default_factory=set)

    def quote(self, utterance: str, *, max_chars: int = 60) -> None:
        """Admit for the text arguments (``keyword``) only spans of `utterance`, and for
        the range arguments (``section``) only 1 and the numbers it contains.

        A keyword must be words the listener said (or, through `observe`, a title an
        observation named), so a small model cannot copy a title from the prompt's
        examples or invent one. Chinese text gives every run of 1–12 characters, other
        text every run of 1–6 words; an utterance longer than `max_chars` is left free.
        """
        text = utterance.strip()
        if not text:
            return
        numbers = sorted(set(_numbers(text)) or {1})
        for name in self.range_arguments:
            for number in numbers:
                self.allow(name, number)
        if len(text) > max_chars:
            return
        for span in _spans(text):
            for name in self.text_arguments:
                self.allow(name, span)

    def mention(self, titles: Iterable[str], utterance: str, *, numbers: bool = True) -> list[str]:
        """Narrow the text arguments to the known `titles` the utterance names; returns them.

        When the listener names an album of the library ("play 音乐 episode 2"), a keyword
        is that title or a span of the utterance that contains it (the player also finds an
        album whose title is inside the keyword), never a fragment such as "episode 2".
        Titles are compared without case, spaces or punctuation. Names nothing: no change.
        With `numbers` the range arguments take the numbers said outside the titles (an
        observation, e.g. the status naming the current album, passes False).
        """
        said = _squash(utterance)
        if not said:
            return []
        named = [t for t in dict.fromkeys(titles) if (key := _squash(t)) and key in said]
        # A shorter title inside a longer named one ("三体" in "三体2") stays admissible.
        if not named:
            return []
        keys = [_squash(t) for t in named]
        # Numbers inside a title ("三国演义", "三体") are not episode numbers.
        rest = utterance
        for title in sorted(named, key=len, reverse=True):
            rest = re.sub(re.escape(title), " ", rest, flags=re.IGNORECASE)
        if numbers:
            said_numbers = sorted(set(_numbers(rest)) or {1})
            for name in self.range_arguments:
                self.choices[name] = list(said_numbers)
        for name in self.text_arguments:
            spans = [
                v
                for v in self.choices.get(name, [])
                if isinstance(v, str) and any(k in _squash(v) for k in keys)
            ]
            self.choices[name] = list(dict.fromkeys([*named, *spans]))
        return named

    def allow(self, argument: str, value: Any) -> None:
        """Admit `value` for `argument` (kept in first-seen order, without repeats)."""
        values = self.choices.setdefault(argument, [])
        if value not in values:
            values.append(value)

    def limit(self, argument: str, low: int, high: int) -> None:
        """Admit only integers in ``low..high`` (inclusive) for `argument`."""
        if high >= low:
            self.ranges[argument] = (low, high)

    def observe(self, text: str) -> None:
        """Learn album ids and episode counts from one observation text (JSON or prose).

        JSON keys ``album_id``/``id`` and counts such as ``episodes``/``episode_count``
        are read, as are phrases like ``专辑ID: 123``, ``共100集`` or ``100 episodes``.
        With one album id in the text and a count, that count becomes the range of the
        range arguments (``section``, ``episode``).
        """
        ids: list[str] = []
        counts: list[int] = []
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if value is not None:
            _walk(value, ids, counts)
        for match in _ID_TEXT.finditer(text):
            ids.append(match.group(1))
        for match in _COUNT_TEXT.finditer(text):
            number = next(g for g in match.groups() if g)
            counts.append(int(number))
        for album_id in ids:
            for name in self.id_arguments:
                self.allow(name, album_id)
        if any(self.choices.get(name) for name in self.text_arguments):
            for part in re.split(r"[,;:()\[\]{}\"'，。；：（）、\n]+", text):
                part = part.strip()
                if 0 < len(part) <= 30 and not part.isdigit():
                    for name in self.text_arguments:
                        self.allow(name, part)
        if counts and len(set(ids)) <= 1:
            for name in self.range_arguments:
                self.limit(name, 1, max(counts))

    def admits(self, tool: Tool) -> bool:
        """False when `tool` requires an id argument for which no value has been seen yet."""
        if tool.name in self.excluded:
            return False
        required = set(tool.parameters.get("required", []))
        return not any(
            name in required and not self.choices.get(name) for name in self.id_arguments
        )

    def copy(self) -> Constraints:
        """An independent copy."""
        return Constraints(
            choices={k: list(v) for k, v in self.choices.items()},
            ranges=dict(self.ranges),
            id_arguments=self.id_arguments,
            range_arguments=self.range_arguments,
            text_arguments=self.text_arguments,
            excluded=set(self.excluded),
        )


_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_][\w'’.\-]*")
_SQUASH = re.compile(r"[\W_]+")


def _squash(text: str) -> str:
    """`text` lower-cased without spaces or punctuation, for comparing titles."""
    return _SQUASH.sub("", text.lower())


_EN_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": 0}


def _numbers(text: str) -> list[int]:
    """Numbers said in `text`: digits, Chinese numerals (第二十集) and English words.

    When a number is marked as the episode ("第五集", "2화", "episode 5", "the third
    chapter"), only such numbers count.
    """
    marked = re.findall(
        r"第\s*([\d零〇一二两三四五六七八九十百]+)"
        r"|([\d零〇一二两三四五六七八九十百]+)\s*[集章回번화회]"
        r"|(?:episode|chapter|part|section)\s+(\w+)"
        r"|(\w+)\s+(?:episode|chapter|part|section)",
        text,
        re.IGNORECASE,
    )
    named = _plain_numbers(" ".join(next(g for g in groups if g) for groups in marked))
    return named or _plain_numbers(text)


def _plain_numbers(text: str) -> list[int]:
    from .fastpath import chinese_number

    found = [int(d) for d in re.findall(r"\d{1,4}", text)]
    for run in re.findall(r"[零〇一二两三四五六七八九十百]+", text):
        value = chinese_number(run)
        if value is not None:
            found.append(value)
    for word in re.findall(r"[a-z]+", text.lower()):
        value = _EN_NUMBERS.get(word, _EN_ORDINALS.get(word))
        if value:
            found.append(value)
    return [n for n in found if n > 0]


def _spans(text: str) -> list[str]:
    """Candidate keyword spans of an utterance, longest first."""
    spans: list[str] = []
    for run in _CJK_RUN.findall(text):
        for size in range(min(12, len(run)), 0, -1):
            spans.extend(run[i : i + size] for i in range(len(run) - size + 1))
    words = _WORD.findall(text)
    for size in range(min(6, len(words)), 0, -1):
        spans.extend(" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
    mixed = re.sub(r"\s+", " ", re.sub(r"[，。！？,.!?；;：:、]", " ", text)).strip()
    if mixed and len(mixed) <= 30:
        spans.insert(0, mixed)
    seen: dict[str, None] = {}
    for span in spans:
        seen.setdefault(span, None)
    return list(seen)


def _walk(value: Any, ids: list[str], counts: list[int], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _ID_KEYS and isinstance(item, (str, int)) and not isinstance(item, bool):
                ids.append(str(item))
            elif key in _COUNT_KEYS and isinstance(item, int) and not isinstance(item, bool):
                counts.append(item)
            elif key in _COUNT_KEYS and isinstance(item, list):
                counts.append(len(item))
            _walk(item, ids, counts, depth + 1)
    elif isinstance(value, list):
        for item in value[:50]:
            _walk(item, ids, counts, depth + 1)


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _rule_name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower() or "x"


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

    def value(self, schema: dict[str, Any], argument: str) -> str:
        """A GBNF expression for one JSON value matching `schema`."""
        choices = self.constraints.choices.get(argument)
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else ([kinds] if kinds else [])
        if choices:
            if "integer" in kinds or "number" in kinds:
                literals = [str(int(c)) for c in choices if str(c).lstrip("-").isdigit()]
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
        parts = []
        for kind in kinds:
            if kind == "integer":
                parts.append(self.integer(schema, argument))
            elif kind == "number":
                parts.append("json-number")
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

    def integer(self, schema: dict[str, Any], argument: str) -> str:
        known = self.constraints.ranges.get(argument)
        low = schema.get("minimum")
        high = schema.get("maximum")
        if known is not None:
            low = known[0] if low is None else max(low, known[0])
            high = known[1] if high is None else min(high, known[1])
        if low is not None and high is not None and 0 <= high - low < _MAX_ENUMERATED_RANGE:
            name = self.add(
                f"range-{low}-{high}".replace("--", "-m"),
                " | ".join(_literal(str(i)) for i in range(int(low), int(high) + 1)),
            )
            return name
        if (low is not None and low >= 1) or (low is None and _positive(schema.get("default"))):
            return "json-count"  # 1..9999: a count or an ordinal (episode, page, minutes)
        if low is not None and low >= 0:
            return "json-natural"
        return "json-integer"

    def string(self, schema: dict[str, Any]) -> str:
        limit = min(int(schema.get("maxLength", self.string_chars)), self.string_chars)
        low = int(schema.get("minLength", 0))
        return self.add(f"string-{low}-{limit}", f'"\\"" json-char{{{low},{limit}}} "\\""')

    def obj(self, schema: dict[str, Any], prefix: str) -> str:
        """A rule for a JSON object with `schema`'s properties in schema order."""
        props: dict[str, Any] = schema.get("properties", {}) or {}
        required = [k for k in props if k in set(schema.get("required", []))]
        optional = [k for k in props if k not in set(required)]
        if not props:
            if schema.get("additionalProperties", True) is False or "properties" in schema:
                return '"{}"'
            return "json-object"
        pair = {
            key: f'{_literal(json.dumps(key, ensure_ascii=False))} ws ":" ws '
            f"{self.value(props[key], key)}"
            for key in props
        }
        if required:
            body = ' "," ws '.join(pair[k] for k in required)
            body += "".join(f' ( "," ws {pair[k]} )?' for k in optional)
            return self.add(f"{prefix}-args", f'"{{" ws {body} ws "}}"')
        # Only optional keys: any subset, in schema order.
        chain = ""
        for i in range(len(optional) - 1, -1, -1):
            key = optional[i]
            name = f"{prefix}-opt{i}"
            if chain:
                body = f'{pair[key]} ( "," ws {chain} )? | {chain}'
            else:
                body = pair[key]
            chain = self.add(name, body)
        return self.add(f"{prefix}-args", f'"{{" ws ( {chain} )? ws "}}"')


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
    answer_digits: bool = True,
) -> str:
    """GBNF text for one reply: a Thought line, then one tool call or a Final Answer.

    `thought_chars`, `answer_chars` and `string_chars` bound the Thought line, the answer
    line and every JSON string value (characters). `allow_final=False` forces a tool call.
    `answer_digits=False` keeps ASCII digits out of the Final Answer (the loop sets it
    until an observation has given numbers, so that a count cannot be invented).
    Raises ValueError when there are no tools and no Final Answer is allowed.
    """
    tool_list = tools.tools() if isinstance(tools, ToolRegistry) else list(tools)
    if not tool_list and not allow_final:
        raise ValueError("a grammar needs at least one tool or a Final Answer")
    builder = _Builder(constraints, string_chars)
    calls = []
    for tool in tool_list:
        prefix = "t-" + _rule_name(tool.name)
        args = builder.obj(tool.parameters, prefix)
        calls.append(
            builder.add(prefix, f"{_literal(tool.name + chr(10) + 'Action Input: ')} {args}")
        )
    branches = []
    if calls:
        branches.append('"Action: " ( ' + " | ".join(calls) + " )")
    if allow_final:
        char = "line-char" if answer_digits else "answer-char"
        branches.append(f'"Final Answer: " {char}{{1,{answer_chars}}}')
    lines = [
        f'root ::= "Thought: " line-char{{1,{thought_chars}}} "\\n" ( {" | ".join(branches)} )',
        "line-char ::= [^\\n\\r\\x00-\\x1f]",
        "answer-char ::= [^\\n\\r\\x00-\\x1f0-9]",
    ]
    lines.extend(f"{name} ::= {body}" for name, body in builder.rules.items())
    return "\n".join(lines) + "\n" + _COMMON.strip() + "\n"
