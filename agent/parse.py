"""Reading a model reply in the ReAct format into an `Action` or a `FinalAnswer`.

The format (labels as in the original design note)::

    Thought: <reasoning>
    Action: <tool name>
    Action Input: <JSON object>
    ...
    Final Answer: <what is spoken>

`parse` reads the shapes models really write:

- labels in any case, with ASCII or full-width colons, ``**``/``__`` emphasis, markdown
  headings, indentation, trailing spaces and ReAct numbering (``Action 1:``); Chinese
  labels (思考/行动/行动输入/最终答案); ``Answer:`` for ``Final Answer:``;
- the Action as a bare name, ``name({...})``, a Python call ``name(key="v", n=2)`` or
  ``name("v")``, a bracket call ``name[v]``, and ``Finish[answer]`` as the Final Answer;
- JSON-only replies (``{"action", "action_input"}``, ``{"name", "arguments"|"parameters"}``,
  ``{"tool_call": {...}}``, OpenAI ``{"function": {"name", "arguments"}}``, Qwen
  ``<tool_call>``), also in Python-repr single quotes, fenced, or with text around them;
  DeepSeek's inline tool-call tokens (``<｜tool▁call▁begin｜>…``);
- ``<think>…</think>`` reasoning, dropped; a whole ReAct reply inside it is recovered when
  nothing is outside; an invented ``Observation:`` and everything after it are dropped;
- Action Input as JSON (fenced, repaired when slightly broken), ``key=value`` pairs, or a
  bare value mapped to the tool's first parameter (one pair of quotes stripped, a
  numeric-looking id kept a string when the schema says string); ``{}``, ``null``,
  ``None``, an empty string or an echoed empty schema for a tool without parameters;
- plain prose that answers the listener as the Final Answer.

Tool names are cleaned of backticks, quotes and a trailing ``()`` and matched exactly or
case-insensitively, nothing fuzzier. Anything else raises `FormatError` whose `reason`
says what was wrong and, when `tools` are given, lists the valid tools: prose that only
announces a tool, one line with both an Action and a Final Answer, an unknown tool, an
echoed schema for a tool with parameters, a missing required argument (before the call).
"""

from __future__ import annotations

import ast
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


Schemas = Mapping[str, Mapping[str, Any]]

_KINDS = (
    ("action_input", r"action[\s_\-]*inputs?|行动输入|动作输入|操作输入|工具输入"),
    ("final", r"final[\s_\-]*answer|answer|最终答案|最终回答|最终回复|答案|回答"),
    ("observation", r"observations?|观察结果|观察"),
    ("thought", r"thoughts?|thinking|思考|想法"),
    ("action", r"actions?|行动|动作|工具"),
)
_LABEL_ALT = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _KINDS)
_DECOR = r"[ \t>#*_`\-]*(?:\d+[.)][ \t]*)?[ \t*_]*"
_NUMBER = r"(?:[ \t]*\d+)?"
_EMPH = r"(?:\*\*|__|\*|_)?"
_LINE_LABEL = re.compile(
    rf"^{_DECOR}(?:{_LABEL_ALT}){_NUMBER}[ \t]*{_EMPH}[ \t]*[:：](?:[ \t]*{_EMPH})?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_INLINE_LABEL = re.compile(
    rf"(?:(?<=[\s。.，,；;!！?？>])|^){_EMPH}(?:{_LABEL_ALT}){_NUMBER}[ \t]*{_EMPH}[ \t]*[:：]"
    rf"(?:[ \t]*{_EMPH})?[ \t]*",
    re.IGNORECASE,
)
_THINK_BLOCK = re.compile(r"<think(?:ing)?>(.*?)</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.IGNORECASE | re.DOTALL)
# DeepSeek's tool-call tokens, with full-width bars and ▁, or their ASCII look-alikes.
_DS = r"<[|｜]\s*tool[▁_ ]{kind}[|｜]>"
_DS_CALL = re.compile(
    _DS.format(kind="call[▁_ ]begin")
    + r"(.*?)(?:"
    + _DS.format(kind="call[▁_ ]end")
    + r"|"
    + _DS.format(kind="calls[▁_ ]end")
    + r"|$)",
    re.IGNORECASE | re.DOTALL,
)
_DS_SEP = re.compile(_DS.format(kind="sep"), re.IGNORECASE)
_DS_ANY = re.compile(r"<[|｜]\s*tool[▁_ ][a-z▁_ ]+[|｜]>", re.IGNORECASE)
_NONE_NAMES = {"", "none", "null", "n/a", "na", "无", "没有", "不需要", "nothing", "no action"}
_EMPTY_INPUTS = {"", "none", "null", "无", "{}", "n/a", "空", '""', "''"}
_FINISH_NAMES = {"finish", "final answer", "final_answer", "finalanswer", "answer"}
_NAME_KEYS = ("name", "action", "tool", "tool_name", "function", "function_name")
_ARG_KEYS = ("arguments", "action_input", "parameters", "args", "input", "tool_input", "params")
_WRAP_KEYS = ("tool_call", "function_call", "tool_calls", "call", "function")

# Prose that only says a tool is about to be used ("Let me look that up.").
_ANNOUNCES = re.compile(
    r"(?:^|[\s，,。.!！])(?:let me|let's|i'll|i will|i am going to|i'm going to|i need to|"
    r"i should|i must|i can use|i'd like to use|we need to|first,? i|now i|next,? i|"
    r"我来|让我|我将|我会先|我先|我需要|我要先|需要先|我去|我帮你(?:查|搜|找|看)|"
    r"正在(?:为你|帮你)?(?:查|搜|找)|稍等)",
    re.IGNORECASE,
)
_TOOL_WORDS = re.compile(r"\b(?:tool|function call|api)\b|工具|调用", re.IGNORECASE)
_MAX_PROSE_CHARS = 600


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


# --------------------------------------------------------------------------- pieces


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


def _balanced(text: str, start: int, opening: str = "{", closing: str = "}") -> str:
    """The bracketed span of `text` from `start` with balanced brackets (quotes respected),
    or the tail when it never closes."""
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
        if char in "\"'" and (char == '"' or depth > 0):
            quote = char
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


def _balanced_object(text: str) -> str | None:
    """The first ``{...}`` in `text` with balanced braces, else None."""
    start = text.find("{")
    return None if start < 0 else _balanced(text, start)


def _load_object(candidate: str) -> Any:
    """A JSON value from `candidate`: JSON, then a Python literal (single quotes, None,
    True), then json-repair for slightly broken JSON."""
    try:
        return json.loads(candidate)
    except ValueError:
        pass
    try:
        return ast.literal_eval(candidate)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return json_repair.loads(candidate)


_KV = re.compile(r"""(\w+)\s*[=:]\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,)]+)""")


def _unquote(raw: str) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'`":
        return raw[1:-1]
    if len(raw) >= 2 and raw[0] in "“‘「" and raw[-1] in "”’」":
        return raw[1:-1]
    return raw


def _scalar(raw: str) -> Any:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _typed(value: Any, prop: Mapping[str, Any] | None) -> Any:
    """A bare value as the parameter's schema type wants it (a string id stays a string)."""
    kinds = (prop or {}).get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    if isinstance(value, str):
        text = value.strip()
        if "string" in kinds or not kinds:
            if not kinds and re.fullmatch(r"-?\d+", text):
                return int(text)
            return text
        if "integer" in kinds and re.fullmatch(r"-?\d+", text):
            return int(text)
        if "number" in kinds and re.fullmatch(r"-?\d+(?:\.\d+)?", text):
            return float(text)
        if "boolean" in kinds and text.lower() in ("true", "false"):
            return text.lower() == "true"
        return text
    if isinstance(value, int | float) and not isinstance(value, bool) and "string" in kinds:
        return str(value)
    return value


def _first_parameter(schema: Mapping[str, Any] | None) -> str | None:
    if not schema:
        return None
    props = list(schema.get("properties") or {})
    required = [r for r in schema.get("required") or [] if r in props] or list(
        schema.get("required") or []
    )
    if required:
        return required[0]
    return props[0] if props else None


def _has_parameters(schema: Mapping[str, Any] | None) -> bool:
    return bool(schema and schema.get("properties"))


def _is_schema(value: Mapping[str, Any]) -> bool:
    """True for a JSON Schema echoed as arguments (``{"type": "object", "properties": …}``)."""
    if value.get("type") == "object" and ("properties" in value or len(value) == 1):
        return True
    props = value.get("properties")
    return isinstance(props, dict) and set(value) <= {"properties", "required", "type", "title"}


# --------------------------------------------------------------------------- arguments


def _parse_arguments(raw: str) -> dict[str, Any] | str | list[Any]:
    """An object from an Action Input text; a str is a bare value, a list a positional call."""
    body = _strip_fences(raw).strip()
    if body.lower().strip("` \"'") in _EMPTY_INPUTS or body.lower() in _EMPTY_INPUTS:
        return {}
    candidate = _balanced_object(body)
    if candidate is not None and body.lstrip("(`'\" ").startswith("{"):
        value = _load_object(candidate)
        if isinstance(value, dict):
            return value
        if isinstance(value, str) and value.strip().startswith("{"):  # JSON inside a string
            inner = _load_object(value)
            if isinstance(inner, dict):
                return inner
    if body.startswith("["):
        value = _load_object(_balanced(body, 0, "[", "]"))
        if isinstance(value, list):
            raise FormatError(
                f'Action Input must be a JSON object such as {{"name": "value"}}, got {body[:60]!r}'
            )
    pairs = _KV.findall(body)
    if pairs and re.match(r"^\(?\s*\w+\s*=", body):
        return {key: _scalar(value) for key, value in pairs}
    if candidate is not None:
        value = _load_object(candidate)
        if isinstance(value, dict):
            return value
    first_line = body.splitlines()[0].strip() if body else ""
    return _unquote(first_line.rstrip(".。"))


def _call_arguments(inner: str) -> dict[str, Any] | list[Any] | str:
    """Arguments of a Python-style call ``(…)``: keywords, positionals, JSON or a bare value."""
    inner = inner.strip()
    if not inner:
        return {}
    if inner.startswith("{"):
        return _parse_arguments(inner)
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
    except SyntaxError:
        return _parse_arguments(inner)
    if not isinstance(call, ast.Call):
        return _parse_arguments(inner)
    try:
        keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        positional = [ast.literal_eval(a) for a in call.args]
    except (ValueError, SyntaxError, TypeError):
        return _parse_arguments(inner)
    if positional and not keywords:
        if len(positional) == 1 and isinstance(positional[0], dict):
            return positional[0]
        return positional
    if positional:
        return [*positional, keywords]
    return keywords


def _shape_arguments(
    tool: str, value: dict[str, Any] | list[Any] | str | Any, schemas: Schemas | None
) -> dict[str, Any]:
    """The tool's arguments as an object, checked against its schema where one is given."""
    schema = (schemas or {}).get(tool)
    props: Mapping[str, Any] = (schema or {}).get("properties") or {}
    if value is None:
        value = {}
    if isinstance(value, list):
        keywords = value.pop() if value and isinstance(value[-1], dict) else {}
        if schema is None or len(value) > len(props):
            raise FormatError(
                f"Action Input for '{tool}' must be a JSON object such as "
                f'{{"name": "value"}}, got {len(value)} values without names'
            )
        value = {**dict(zip(props, value, strict=False)), **keywords}
    if isinstance(value, int | float | bool):
        value = str(value) if not isinstance(value, bool) else value
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in _EMPTY_INPUTS:
            value = {}
        elif schema is not None and not props:
            value = {}  # a tool without parameters: whatever was written is not an argument
        else:
            target = _first_parameter(schema)
            if target is None:
                raise FormatError(
                    f"Action Input for '{tool}' must be a JSON object such as "
                    f'{{"name": "value"}}, got {text[:60]!r}'
                )
            value = {target: _typed(text, props.get(target))}
    if not isinstance(value, dict):
        raise FormatError(f"Action Input for '{tool}' must be a JSON object, got {value!r:.60}")
    if _is_schema(value):
        if _has_parameters(schema):
            names = ", ".join(props)
            raise FormatError(
                f"Action Input for '{tool}' repeats the tool's schema instead of giving values; "
                f"write the values of {names}, e.g. {_example(tool, schema)}"
            )
        return {}
    if schema is not None:
        missing = [r for r in schema.get("required") or [] if r not in value]
        if missing:
            raise FormatError(
                f"'{tool}' needs {', '.join(repr(m) for m in missing)} in its Action Input, "
                f"e.g. {_example(tool, schema)}"
            )
        if props:  # an id written as a number stays the string its schema asks for
            value = {
                k: _typed(v, props.get(k)) if isinstance(v, int | float) else v
                for k, v in value.items()
            }
    return value


def _example(tool: str, schema: Mapping[str, Any] | None) -> str:
    props = (schema or {}).get("properties") or {}
    required = list((schema or {}).get("required") or []) or list(props)[:1]
    sample = {}
    for name in required:
        kind = (props.get(name) or {}).get("type")
        sample[name] = 1 if kind in ("integer", "number") else "..."
    return json.dumps(sample, ensure_ascii=False)


# --------------------------------------------------------------------------- tool names


def _clean_name(raw: str) -> str:
    """A tool name without decoration: backticks, quotes, emphasis, a trailing ``()``,
    a ``functions.`` prefix and a trailing full stop."""
    name = raw.strip().strip("*_`\"'“”‘’ ").strip()
    name = re.sub(r"\(\s*\)$", "", name).strip().strip("`\"' ")
    name = name.rstrip(".:：。")
    for prefix in ("functions.", "tools.", "tool.", "function."):
        if name.lower().startswith(prefix):
            name = name[len(prefix) :]
    return name


def _split_action(line: str) -> tuple[str, str | None, str]:
    """(name, call arguments or None, how) from the first line of an Action section.

    ``how`` is "call" for ``name(...)``, "bracket" for ``name[...]``, "json" for a JSON
    object on the line, "bare" for a name (possibly followed by other text).
    """
    text = line.strip().strip("*_` ").strip()
    if text.startswith("{"):
        return "", text, "json"
    match = re.match(r"([\w.\-/]+)\s*(?:`\s*)?([(\[])", text)
    if match:
        opening = match.group(2)
        closing = ")" if opening == "(" else "]"
        start = match.end() - 1
        span = _balanced(text, start, opening, closing)
        inner = span[1:-1] if span.endswith(closing) else span[1:]
        return match.group(1), inner, "call" if opening == "(" else "bracket"
    match = re.match(r"[\"'`“‘]?([\w.\-/]+)[\"'`”’]?", text)
    if not match:
        return text, None, "bare"
    rest = text[match.end() :].strip()
    if rest.startswith("{"):
        return match.group(1), rest, "json"
    return match.group(1), None, "bare"


def _resolve_tool(name: str, tools: Collection[str] | None) -> str:
    """`name` as a registry name: exact, else case-insensitive; FormatError otherwise."""
    name = _clean_name(name)
    if tools is None or name in tools:
        return name
    lowered = {t.lower(): t for t in tools}
    if name.lower() in lowered:
        return lowered[name.lower()]
    raise FormatError(f"unknown tool '{name}' in Action")


# --------------------------------------------------------------------------- whole shapes


def _envelope(value: Any) -> tuple[str, Any] | None:
    """(tool name, arguments) from a JSON tool-call envelope, else None."""
    if isinstance(value, list):
        for item in value:
            found = _envelope(item)
            if found is not None:
                return found
        return None
    if not isinstance(value, dict):
        return None
    for key in _WRAP_KEYS:
        inner = value.get(key)
        if isinstance(inner, dict | list) and inner:
            found = _envelope(inner)
            if found is not None:
                return found
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    if name is None:
        return None
    args: Any = next((value[k] for k in _ARG_KEYS if k in value), {})
    if isinstance(args, str) and args.strip().startswith(("{", "[")):
        loaded = _load_object(args)
        args = loaded if isinstance(loaded, dict | list) else args
    return name, args


def _json_call(text: str) -> tuple[tuple[str, Any], int, int] | None:
    """A tool-call envelope found in `text`: ((name, arguments), start, end)."""
    match = _TOOL_CALL.search(text)
    if match:
        body = _strip_fences(match.group(1)).strip()
        candidate = _balanced_object(body)
        if candidate is not None:
            found = _envelope(_load_object(candidate))
            if found is not None:
                return found, match.start(), match.end()
    for start in [m.start() for m in re.finditer(r"[{\[]", text)][:6]:
        opening = text[start]
        span = _balanced(text, start, opening, "}" if opening == "{" else "]")
        try:
            value = _load_object(span)
        except Exception:  # json-repair gives up on some inputs by raising
            continue
        found = _envelope(value)
        if found is not None:
            return found, start, start + len(span)
    return None


def _deepseek_call(text: str) -> tuple[tuple[str, Any], str] | None:
    """((name, arguments), text before) from DeepSeek's inline tool-call tokens."""
    match = _DS_CALL.search(text)
    if not match:
        return None
    parts = _DS_SEP.split(match.group(1), maxsplit=1)
    if len(parts) == 2 and parts[0].strip().lower() == "function":
        lines = parts[1].strip().split("\n", 1)
        name, raw = lines[0], lines[1] if len(lines) > 1 else ""
    elif len(parts) == 2:
        name, raw = parts
    else:
        lines = parts[0].strip().split("\n", 1)
        name, raw = lines[0], lines[1] if len(lines) > 1 else ""
    raw = _DS_ANY.sub("", _strip_fences(raw)).strip()
    before = _DS_ANY.sub("", text[: match.start()]).strip()
    return (name.strip(), _parse_arguments(raw) if raw else {}), before


def _bare_call(body: str, tools: Collection[str] | None) -> tuple[str, Any, str] | None:
    """``tool[...]``, ``Finish[...]`` or ``tool(...)`` on a line of its own (no labels)."""
    for line in body.splitlines():
        name, inner, how = _split_action(line)
        if how not in ("call", "bracket") or inner is None:
            continue
        cleaned = _clean_name(name)
        known = tools is None or cleaned.lower() in {t.lower() for t in tools}
        if cleaned.lower() in _FINISH_NAMES or known:
            return cleaned, inner, how
    return None


def _prose_answer(body: str, tools: Collection[str] | None) -> str | None:
    """The reply as a Final Answer when it is plain prose that answers the listener."""
    text = body.strip()
    if not text or len(text) > _MAX_PROSE_CHARS:
        return None
    if re.search(r"[{}\[\]<>`|=]", text) or text.rstrip().endswith((":", "：")):
        return None
    if _ANNOUNCES.search(text) or _TOOL_WORDS.search(text):
        return None
    lowered = text.lower()
    for tool in tools or ():
        if re.search(rf"(?<![\w]){re.escape(tool.lower())}(?![\w])", lowered):
            return None
    if not re.search(r"[\w\u4e00-\u9fff]", text):
        return None
    answer = text.strip("*_ \n")
    return answer or None


def _announcement_error(text: str) -> FormatError:
    return FormatError(
        "the reply only says what it will do: no 'Action:' or 'Final Answer:' label found; "
        "reply with 'Thought: ...' then 'Action: <tool>' and 'Action Input: {...}', "
        "or 'Final Answer: ...'",
        text=text,
    )


# --------------------------------------------------------------------------- parse


def parse(
    text: str,
    *,
    tools: Collection[str] | None = None,
    schemas: Schemas | None = None,
) -> Action | FinalAnswer:
    """Read one model reply; raises FormatError with a specific reason when it cannot.

    `tools` (names), when given, makes an unknown Action name a FormatError, corrects
    capitalisation, keeps prose naming a tool from being taken as an answer, and is
    listed in every error's reason; `schemas` ({name: JSON Schema}) maps a bare Action
    Input value such as ``西游记`` to the tool's first parameter and checks required
    arguments before the call.
    """
    try:
        return _parse(text, tools, schemas)
    except FormatError as exc:
        if tools is None or "valid tools:" in exc.reason:
            raise
        known = ", ".join(tools) or "none"
        raise FormatError(f"{exc.reason}; valid tools: {known}", text=exc.text or text) from None


def _action(
    name: str, arguments: Any, thought: str, tools: Collection[str] | None, schemas: Schemas | None
) -> Action | FinalAnswer:
    cleaned = _clean_name(name)
    if cleaned.lower() in _FINISH_NAMES and (tools is None or cleaned not in tools):
        answer = arguments
        if isinstance(answer, dict):
            answer = next((v for v in answer.values() if isinstance(v, str)), "")
        answer = _unquote(str(answer or "")).strip()
        if not answer:
            raise FormatError("the Final Answer is empty; say something to the listener")
        return FinalAnswer(answer=answer, thought=thought)
    tool = _resolve_tool(cleaned, tools)
    return Action(tool=tool, arguments=_shape_arguments(tool, arguments, schemas), thought=thought)


def _parse(
    text: str, tools: Collection[str] | None, schemas: Schemas | None
) -> Action | FinalAnswer:
    if text is None or not text.strip():
        raise FormatError(
            "the reply is empty; write a Thought line, then an Action or a Final Answer"
        )
    deepseek = _deepseek_call(text)
    if deepseek is not None:
        (name, arguments), before = deepseek
        return _action(name, arguments, strip_labels(before), tools, schemas)
    body = strip_reasoning(text)
    recovered = False
    if not body.strip():
        inner = "\n".join(m.group(1) for m in _THINK_BLOCK.finditer(text)).strip()
        if inner and (_labels(inner, _LINE_LABEL) or _json_call(inner) or _bare_call(inner, tools)):
            body, recovered = inner, True  # a whole ReAct reply written inside <think>
        else:
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
            if i == 0 and not body[:start].strip():
                raise FormatError("the reply starts with an Observation; the system writes those")
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

    def action_name(index: int) -> str:
        first = (_section(body, labels, index).splitlines() or [""])[0]
        return _clean_name(_split_action(first)[0])

    decisive = [
        i
        for i, (kind, _, _) in enumerate(labels)
        if kind == "final"
        or (
            kind == "action"
            and (
                action_name(i).lower() not in _NONE_NAMES
                or _split_action((_section(body, labels, i).splitlines() or [""])[0])[2] == "json"
            )
        )
    ]
    if not decisive:
        return _unlabelled(text, body, labels, thought, tools, schemas, recovered)
    index = decisive[0]
    if labels[index][0] == "final":
        answer = _section(body, labels, index)
        answer = _strip_fences(answer).strip().strip("*_").strip()
        if not answer:
            raise FormatError("the Final Answer is empty; say something to the listener", text=text)
        return FinalAnswer(answer=answer, thought=thought)
    section = _section(body, labels, index)
    first, _, after = section.partition("\n")
    name, inner, how = _split_action(first)
    if how == "json":
        found = _envelope(_load_object(_balanced(inner or "", 0)))
        if found is not None and not name:
            name, inner_args = found
            return _action(name, inner_args, thought, tools, schemas)
    raw_input: Any = None
    for j in range(index + 1, len(labels)):
        if labels[j][0] == "action_input":
            raw_input = _section(body, labels, j)
            break
        if labels[j][0] in ("action", "final"):
            break
    if raw_input is not None:
        arguments: Any = _parse_arguments(raw_input)
    elif how == "call":
        arguments = _call_arguments(inner or "")
    elif how == "bracket" and _clean_name(name).lower() in _FINISH_NAMES:
        arguments = inner or ""  # Finish[the answer, as written]
    elif how == "bracket":
        arguments = _parse_arguments(inner or "")
    elif how == "json":
        arguments = _parse_arguments(inner or "")
    elif "{" in after:  # the JSON object on the lines after the name, without a label
        arguments = _parse_arguments(after)
    else:
        arguments = {}
    return _action(name, arguments, thought, tools, schemas)


def _unlabelled(
    text: str,
    body: str,
    labels: list[tuple[str, int, int]],
    thought: str,
    tools: Collection[str] | None,
    schemas: Schemas | None,
    recovered: bool,
) -> Action | FinalAnswer:
    """A reply without an Action or Final Answer label: JSON envelopes, bare calls, prose."""
    found = _json_call(body)
    if found is not None:
        (name, arguments), start, _ = found
        if not thought:
            thought = strip_labels(_strip_fences(body[:start])).strip()
        if isinstance(name, str) and name.strip():
            return _action(name, arguments, thought, tools, schemas)
    call = _bare_call(body, tools)
    if call is not None:
        name, inner, how = call
        arguments = _call_arguments(inner) if how == "call" else _parse_arguments(inner)
        if name.lower() in _FINISH_NAMES:
            arguments = inner
        return _action(name, arguments, thought, tools, schemas)
    if labels and all(kind == "thought" for kind, _, _ in labels):
        raise FormatError(
            "the reply has a Thought but neither an Action nor a Final Answer", text=text
        )
    if any(kind == "action_input" for kind, _, _ in labels):
        raise FormatError("Action Input without an Action line naming the tool", text=text)
    if not labels and not recovered:
        answer = _prose_answer(body, tools)
        if answer is not None:
            return FinalAnswer(answer=answer, thought="")
        if _ANNOUNCES.search(body) or _TOOL_WORDS.search(body):
            raise _announcement_error(text)
    raise FormatError(
        "no 'Action:' or 'Final Answer:' label found; reply with 'Thought: ...' then "
        "'Action: <tool>' and 'Action Input: {...}', or 'Final Answer: ...'",
        text=text,
    )
