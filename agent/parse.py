"""Reading a model reply in the ReAct format into an `Action` or a `FinalAnswer`.

The format (labels as in the original design note)::

    Thought: <reasoning>
    Action: <tool name>
    Action Input: <JSON object>
    ...
    Final Answer: <what is spoken>

`parse` accepts the shapes real models produce: JSON in code fences, prose after the JSON,
single-quoted or slightly broken JSON (repaired with the json-repair library), full-width
colons, any capitalisation, markdown bold or headings around the labels, Chinese labels
(思考/行动/行动输入/最终答案), ``<think>…</think>`` blocks, ``<tool_call>`` JSON, a call
written as ``name({...})`` or ``name(key=value)``, an invented ``Observation:`` (it and
everything after it are dropped), and a Final Answer over several lines. When both an
Action and a Final Answer appear, the first one in the text wins. Anything else raises
`FormatError` whose `reason` says exactly what was wrong, so the model can correct it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import json_repair

from .errors import FormatError

__all__ = ["Action", "FinalAnswer", "FormatError", "parse", "strip_labels", "strip_reasoning"]


@dataclass(frozen=True)
class Action:
    """The model asks for one tool call: `tool` with `arguments` (a JSON object)."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    thought: str = ""


@dataclass(frozen=True)
class FinalAnswer:
    """The model's answer to speak; `answer` is the text after ``Final Answer:``."""

    answer: str
    thought: str = ""


_KINDS = (
    ("action_input", r"action[\s_\-]*inputs?|行动输入|动作输入|操作输入|工具输入"),
    ("final", r"final[\s_\-]*answer|最终答案|最终回答|最终回复"),
    ("observation", r"observations?|观察结果|观察"),
    ("thought", r"thoughts?|thinking|思考|想法"),
    ("action", r"actions?|行动|动作|工具"),
)
_LABEL_ALT = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _KINDS)
_DECOR = r"[ \t>#*_`\-]*"
_LINE_LABEL = re.compile(
    rf"^{_DECOR}(?:{_LABEL_ALT})[ \t]*(?:\*\*|__)?[ \t]*[:：](?:[ \t]*(?:\*\*|__))?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_INLINE_LABEL = re.compile(
    rf"(?:(?<=[\s。.，,；;!！?？>])|^)(?:\*\*|__)?(?:{_LABEL_ALT})[ \t]*(?:\*\*|__)?[ \t]*[:：]"
    r"(?:[ \t]*(?:\*\*|__))?[ \t]*",
    re.IGNORECASE,
)
_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.IGNORECASE | re.DOTALL)
_NONE_NAMES = {"", "none", "null", "n/a", "na", "无", "没有", "不需要", "nothing", "no action"}
_EMPTY_INPUTS = {"", "none", "null", "无", "{}", "n/a", "空"}


def strip_reasoning(text: str) -> str:
    """`text` without ``<think>…</think>`` blocks (an unclosed one hides everything after it)."""
    text = _THINK_BLOCK.sub("", text)
    close = re.search(r"</think(?:ing)?>", text, re.IGNORECASE)
    if close:  # a closing tag without its opening one: the reasoning is everything before it
        text = text[close.end() :]
    opening = re.search(r"<think(?:ing)?>", text, re.IGNORECASE)
    if opening:
        text = text[: opening.start()]
    return text


def strip_labels(text: str) -> str:
    """`text` without ReAct labels at line starts (``Thought:`` and the like)."""
    return _LINE_LABEL.sub("", strip_reasoning(text or "")).strip()


def _labels(text: str, pattern: re.Pattern[str]) -> list[tuple[str, int, int]]:
    """[(kind, label start, content start)] in text order."""
    found = []
    for match in pattern.finditer(text):
        kind = next(k for k, _ in _KINDS if match.group(k) is not None)
        found.append((kind, match.start(), match.end()))
    return found


def _section(text: str, labels: list[tuple[str, int, int]], index: int) -> str:
    end = labels[index + 1][1] if index + 1 < len(labels) else len(text)
    return text[labels[index][2] : end].strip()


def _strip_fences(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("```"))


def _balanced_object(text: str) -> str | None:
    """The first ``{...}`` in `text` with balanced braces (quotes respected), else its tail."""
    start = text.find("{")
    if start < 0:
        return None
    depth = 0
    quote = ""
    escaped = False
    for i in range(start, len(text)):
        char = text[i]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


_KV = re.compile(r"""(\w+)\s*[=:]\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,)]+)""")


def _scalar(raw: str) -> Any:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _parse_arguments(raw: str) -> dict[str, Any] | str:
    """A JSON object from an Action Input text; a str means "not an object" (the bare value)."""
    body = _strip_fences(raw).strip()
    if body.lower().strip("` \"'") in _EMPTY_INPUTS:
        return {}
    candidate = _balanced_object(body)
    if candidate is not None:
        try:
            value = json.loads(candidate)
        except ValueError:
            value = json_repair.loads(candidate)
        if isinstance(value, dict):
            return value
    pairs = _KV.findall(body)
    if pairs and candidate is None and re.match(r"^\(?\s*\w+\s*=", body):
        return {key: _scalar(value) for key, value in pairs}
    first_line = body.splitlines()[0].strip() if body else ""
    return first_line.strip("\"'` ")


def _clean_name(raw: str) -> tuple[str, str]:
    """(tool name, text after the name on the same line) from an Action line."""
    line = raw.strip().splitlines()[0] if raw.strip() else ""
    line = line.strip().strip("*`_\"' ")
    match = re.match(r"([\w.\-/:]+)", line)
    if not match:
        return line, ""
    name = match.group(1).rstrip(".:")
    for prefix in ("functions.", "tools.", "tool."):
        if name.lower().startswith(prefix):
            name = name[len(prefix) :]
    return name, line[match.end() :].strip()


def _resolve_tool(name: str, tools: Collection[str] | None) -> str:
    if tools is None or name in tools:
        return name
    lowered = {t.lower(): t for t in tools}
    if name.lower() in lowered:
        return lowered[name.lower()]
    normalised = {re.sub(r"[\s\-]", "_", t.lower()): t for t in tools}
    key = re.sub(r"[\s\-]", "_", name.lower())
    if key in normalised:
        return normalised[key]
    suffix = [t for t in tools if t.lower().endswith("." + name.lower())]
    if len(suffix) == 1:
        return suffix[0]
    known = ", ".join(tools) or "none"
    raise FormatError(f"unknown tool '{name}' in Action; use one of: {known}")


def _wrap_bare(
    tool: str, value: str, schemas: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, Any]:
    """Turn a bare Action Input value into an object when the tool has one obvious argument."""
    schema = (schemas or {}).get(tool)
    if schema is not None and not value.startswith(("[", "{")):
        props = list(schema.get("properties", {}))
        required = list(schema.get("required", []))
        target = required[0] if len(required) == 1 else (props[0] if len(props) == 1 else None)
        if target is not None and value:
            return {target: _scalar(value) if value[0] in "\"'0123456789-" else value}
        if not props:
            return {}
    raise FormatError(
        f'Action Input must be a JSON object such as {{"name": "value"}}, got {value[:60]!r}'
    )


def _from_tool_call(text: str) -> Action | None:
    """Qwen-style ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` or bare JSON."""
    match = _TOOL_CALL.search(text)
    body = match.group(1) if match else _strip_fences(text).strip()
    if not body.startswith("{") and match is None:
        return None
    candidate = _balanced_object(body)
    if candidate is None:
        return None
    try:
        value = json.loads(candidate)
    except ValueError:
        value = json_repair.loads(candidate)
    if not isinstance(value, dict):
        return None
    name = value.get("name") or value.get("action") or value.get("tool")
    args = value.get("arguments", value.get("action_input", value.get("parameters", {})))
    if isinstance(args, str):
        repaired = json_repair.loads(args) if args.strip() else {}
        args = repaired if isinstance(repaired, dict) else {}
    if not isinstance(name, str) or not isinstance(args, dict):
        return None
    return Action(tool=name, arguments=args, thought="")


def parse(
    text: str,
    *,
    tools: Collection[str] | None = None,
    schemas: Mapping[str, Mapping[str, Any]] | None = None,
) -> Action | FinalAnswer:
    """Read one model reply; raises FormatError with a specific reason when it cannot.

    `tools` (names), when given, makes an unknown Action name a FormatError and corrects
    capitalisation; `schemas` ({name: JSON Schema}) lets a bare Action Input value such
    as ``西游记`` fill a tool's single argument.
    """
    if text is None or not text.strip():
        raise FormatError(
            "the reply is empty; write a Thought line, then an Action or a Final Answer"
        )
    body = strip_reasoning(text)
    if not body.strip():
        raise FormatError(
            "the reply holds only reasoning; add an Action or a Final Answer", text=text
        )
    for line in body.splitlines():
        kinds = {kind for kind, _, _ in _labels(line, _INLINE_LABEL)}
        if {"action", "final"} <= kinds:
            raise FormatError(
                "one line holds both an 'Action:' and a 'Final Answer:'; write either an "
                "Action with its Action Input, or a Final Answer",
                text=text,
            )
    labels = _labels(body, _LINE_LABEL)
    if not any(kind in ("action", "final") for kind, _, _ in labels):
        inline = _labels(body, _INLINE_LABEL)
        if any(kind in ("action", "final") for kind, _, _ in inline):
            labels = inline
    # An invented Observation ends the reply: drop it and everything after it.
    for i, (kind, start, _) in enumerate(labels):
        if kind == "observation":
            body = body[:start]
            labels = labels[:i]
            break
    thought = ""
    for i, (kind, _, _) in enumerate(labels):
        if kind == "thought":
            thought = _section(body, labels, i)
            break
    if not thought and labels:
        thought = body[: labels[0][1]].strip()
    decisive = [
        i
        for i, (kind, _, _) in enumerate(labels)
        if kind == "final" or (kind == "action" and _clean_name(_section(body, labels, i))[0])
    ]
    decisive = [
        i
        for i in decisive
        if labels[i][0] == "final"
        or _clean_name(_section(body, labels, i))[0].lower() not in _NONE_NAMES
    ]
    if not decisive:
        call = _from_tool_call(body)
        if call is not None:
            return Action(
                tool=_resolve_tool(call.tool, tools), arguments=call.arguments, thought=thought
            )
        if not labels and "Observation" in text and not body.strip():
            raise FormatError("the reply starts with an Observation; the system writes those")
        if labels and all(kind == "thought" for kind, _, _ in labels):
            raise FormatError(
                "the reply has a Thought but neither an Action nor a Final Answer", text=text
            )
        if any(kind == "action_input" for kind, _, _ in labels):
            raise FormatError("Action Input without an Action line naming the tool", text=text)
        raise FormatError(
            "no 'Action:' or 'Final Answer:' label found; reply with 'Thought: ...' then "
            "'Action: <tool>' and 'Action Input: {...}', or 'Final Answer: ...'",
            text=text,
        )
    index = decisive[0]
    kind = labels[index][0]
    if kind == "final":
        answer = _section(body, labels, index)
        answer = _strip_fences(answer).strip().strip("*_").strip()
        if not answer:
            raise FormatError("the Final Answer is empty; say something to the listener", text=text)
        return FinalAnswer(answer=answer, thought=thought)
    name, rest = _clean_name(_section(body, labels, index))
    tool = _resolve_tool(name, tools)
    raw_input: str | None = None
    for j in range(index + 1, len(labels)):
        if labels[j][0] == "action_input":
            raw_input = _section(body, labels, j)
            break
        if labels[j][0] in ("action", "final"):
            break
    if raw_input is None and rest:
        raw_input = rest.strip().removeprefix("(").removesuffix(")") if "(" in rest else rest
        if "(" in rest and "{" not in rest and "=" not in rest:
            raw_input = rest.strip()[1:-1] if rest.strip().endswith(")") else rest
    if raw_input is None:
        return Action(tool=tool, arguments={}, thought=thought)
    arguments = _parse_arguments(raw_input)
    if isinstance(arguments, str):
        arguments = _wrap_bare(tool, arguments, schemas)
    return Action(tool=tool, arguments=arguments, thought=thought)
