"""Tools the agent can call: plain typed Python functions turned into a validated registry.

A tool is any sync or async function with type hints and a docstring::

    async def search_album(keyword: str, page: int = 1) -> str:
        '''Search the catalog for albums whose title matches `keyword`.'''

`tool_from_function` derives the name (``__name__``), the description (the docstring's
first paragraph) and a JSON Schema (draft 2020-12) of the arguments from the signature:
types, defaults and which arguments are required; ``Annotated`` extras such as
``{"x-role": "album-id", "minimum": 1}`` join a parameter's schema. What the tool says
about itself is read from attributes of the function (any of them may be missing):

- ``tool_return_direct`` (bool): a successful result ends the turn, its message spoken;
- ``tool_hints`` (``{"zh": ..., "en": ...}``): when to use it, for the prompt;
- ``tool_examples`` (``[{"zh", "en", "tools"}]``): ReAct snippets for the prompt;
- ``tool_output_schema``: the JSON Schema of its result, whose fields carry roles too;
- ``tool_needs_loaded`` (bool): the tool acts only on the book loaded now.
- ``tool_read_only`` (bool): the tool only reads and changes nothing the listener hears.

A tool may return a dict with a speakable ``message`` and data: the model sees the dict
as compact JSON, the listener hears the message. `ToolRegistry.call` validates the
arguments with jsonschema, runs the tool with a timeout and turns every failure into a
`ToolResult` with ``ok=False`` and a short text the model can act on, never an exception.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import logging
import re
import time
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from .errors import ToolError
from .schema import docstring_parts, schema_from_signature

_LOGGER = logging.getLogger(__name__)

__all__ = [
    "Tool",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "tool_from_function",
]

DEFAULT_TIMEOUT = 10.0
"""Seconds a tool may run before its call ends with a timeout observation."""

DEFAULT_MAX_OBSERVATION_CHARS = 600
"""Observation texts longer than this many characters are cut (config `observation_max_chars`)."""

TRUNCATION_MARK = " …(truncated)"


@dataclass(frozen=True)
class Tool:
    """One callable tool: its name, when-to-use description, argument schema and function.

    `parameters` is a JSON Schema object (``{"type": "object", "properties": {...},
    "required": [...]}``). `func` is called with the validated arguments as keyword
    arguments and may be sync (run in a worker thread) or async. `return_direct` makes a
    successful result end the turn with the result text as the spoken answer. `timeout`
    in seconds overrides the registry's default; None means the default.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    func: Callable[..., Any] = field(repr=False, compare=False)
    return_direct: bool = False
    timeout: float | None = None
    hints: dict[str, str] = field(default_factory=dict, compare=False)
    examples: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    output_schema: dict[str, Any] | None = field(default=None, compare=False)
    needs_loaded: bool = field(default=False, compare=False)
    """The tool acts only on the book loaded now (pause, stop, seek): the agent does not
    offer it when the listener's context has nothing loaded."""
    read_only: bool = field(default=False, compare=False)
    """The tool only reads (status, search, help) and changes nothing the listener hears."""

    def hint(self, language: str) -> str:
        """When to use the tool, in `language` ("zh"/"en"), else its description."""
        return self.hints.get(language) or self.description or self.name

    def roles(self) -> dict[str, str]:
        """{argument: role} for the arguments whose schema names an ``x-role``."""
        props = self.parameters.get("properties", {}) or {}
        return {k: v["x-role"] for k, v in props.items() if isinstance(v.get("x-role"), str)}

    def spec(self) -> dict[str, Any]:
        """The tool as ``{"name", "description", "parameters"}`` (the MCP/OpenAI shape)."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass(frozen=True)
class ToolResult:
    """What one tool call produced: `text` is the observation (already cut to size).

    `elapsed_ms` is the wall time of the call in milliseconds, validation included.
    """

    name: str
    arguments: dict[str, Any]
    ok: bool
    text: str
    elapsed_ms: float
    return_direct: bool = False
    data: dict[str, Any] | None = None
    message: str = ""
    tool_error: bool = False
    """The failure is the tool's own error, raised by it once its arguments were valid (a
    sentence written to be heard), not a validation error or a timeout."""

    def spoken(self) -> str:
        """The sentence for the listener: the result's ``message``, the error without its
        framework prefix, or the plain text; "" when there is nothing speakable."""
        if self.message:
            return self.message
        text = self.text.strip().removeprefix("Error: ")
        return text.removeprefix(f"{self.name} failed: ").strip()


def tool_from_function(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    return_direct: bool = False,
    timeout: float | None = None,
) -> Tool:
    """Build a `Tool` from a typed sync or async function (bound methods drop ``self``).

    Raises ValueError when the function has no usable name.
    """
    tool_name = (
        name
        or getattr(func, "__name__", None)
        or getattr(getattr(func, "func", None), "__name__", None)
    )
    if not tool_name:
        raise ValueError(f"cannot name tool for {func!r}; pass name=")
    description, _ = docstring_parts(func)
    target = getattr(func, "func", func)  # functools.partial

    def meta(key: str, default: Any) -> Any:
        return getattr(func, key, getattr(target, key, default))

    hints = meta("tool_hints", {}) or {}
    output = meta("tool_output_schema", None)
    return Tool(
        name=tool_name,
        description=description,
        parameters=schema_from_signature(func),
        func=func,
        return_direct=return_direct or bool(meta("tool_return_direct", False)),
        timeout=timeout,
        hints={str(k): str(v) for k, v in dict(hints).items() if v},
        examples=tuple(meta("tool_examples", ()) or ()),
        output_schema=output if isinstance(output, dict) else None,
        needs_loaded=bool(meta("tool_needs_loaded", False)),
        read_only=bool(meta("tool_read_only", False)),
    )


# --------------------------------------------------------------------------- results


def result_text(value: Any) -> str:
    """Observation text for a tool's return value: str as is, JSON for dict/list, "OK" for None."""
    if value is None:
        return "OK"
    if isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, (dict, list, tuple, int, float, bool)):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            pass
    return str(value)


def result_data(value: Any) -> dict[str, Any] | None:
    """A tool's return value as a dict (dataclasses included), or None for other values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return value if isinstance(value, dict) else None


def _failed_value(value: Any) -> bool:
    """True for a dict result that itself reports failure (``{"ok": false}``/``status: error``)."""
    if not isinstance(value, dict):
        return False
    if value.get("ok") is False or value.get("success") is False:
        return True
    return str(value.get("status", "")).lower() in ("error", "failed", "failure")


def cut_text(text: str, max_chars: int) -> str:
    """`text` cut to at most `max_chars` characters, ending in a visible truncation mark."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    keep = max(0, max_chars - len(TRUNCATION_MARK))
    return text[:keep] + TRUNCATION_MARK


def _coerce(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Loosen near-misses before validation: "3" -> 3 for integers, 2.0 -> 2, "true" -> True."""
    props = schema.get("properties", {})
    out = dict(arguments)
    for key, value in arguments.items():
        kind = props.get(key, {}).get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if "integer" in kinds:
            if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
                out[key] = int(value)
            elif isinstance(value, float) and value.is_integer():
                out[key] = int(value)
        elif "number" in kinds and isinstance(value, str):
            try:
                out[key] = float(value)
            except ValueError:
                pass
        elif "boolean" in kinds and isinstance(value, str):
            if value.strip().lower() in ("true", "false"):
                out[key] = value.strip().lower() == "true"
        elif "string" in kinds and isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = str(value)
    return out


def _validation_message(tool: Tool, error: jsonschema.ValidationError) -> str:
    props = tool.parameters.get("properties", {})
    expected = ", ".join(
        f"{k} ({v.get('type', 'any')})" + ("" if k in tool.parameters.get("required", []) else "?")
        for k, v in props.items()
    )
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        detail = error.message.replace("Additional properties are not allowed", "unknown argument")
    elif error.validator == "required":
        detail = error.message.replace("is a required property", "is required")
    else:
        detail = f"{where}: {error.message}" if where else error.message
    return f"invalid arguments for {tool.name}: {detail}. Expected {{{expected}}}"


# --------------------------------------------------------------------------- registry


class ToolRegistry:
    """The set of tools the agent may call, validated and time-limited.

    `version` grows by one on every `add`/`remove`; `subscribe` callbacks (no arguments)
    run after every change, so grammars and prompts built from the registry can be rebuilt.
    `catalog`, when set, returns the album titles the tools work on (e.g. ``player.titles``);
    `context(utterance)` returns the listener's context as a result dict (``message`` plus
    role-tagged data: what plays, bookmarks of albums named); `fold(text)` is the text
    folding the tools' title matcher uses; `index()` returns the library's
    `words.TitleIndex` (titles with their aliases); `spoken(title)` returns the name to say
    an album title by in the configured language (e.g. ``player.spoken_title``: "西游记" ->
    "Journey to the West" in English). An `Agent` given none of its own uses these.
    `answers` are the exception types a tool raises as an answer the listener hears (a
    book the library does not hold, an argument out of range: e.g. the player's
    ``NotFoundError`` and ``BadInputError``): logged at INFO, where any other exception, a
    tool's own bug, is logged at WARNING.
    """

    def __init__(
        self,
        tools: list[Tool | Callable[..., Any]] | None = None,
        *,
        default_timeout: float = DEFAULT_TIMEOUT,
        max_observation_chars: int = DEFAULT_MAX_OBSERVATION_CHARS,
        catalog: Callable[[], list[str]] | None = None,
        context: Callable[[str], dict[str, Any]] | None = None,
        fold: Callable[[str], str] | None = None,
        index: Callable[[], Any] | None = None,
        spoken: Callable[[str], str] | None = None,
        answers: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.catalog = catalog
        self.answers = answers
        self.context = context
        self.fold = fold
        self.index = index
        self.spoken = spoken
        self.default_timeout = default_timeout
        self.max_observation_chars = max_observation_chars
        self.version = 0
        self._tools: dict[str, Tool] = {}
        self._validators: dict[str, jsonschema.protocols.Validator] = {}
        self._subscribers: list[Callable[[], None]] = []
        for item in tools or []:
            self.add(item)

    # -- contents

    def add(
        self,
        tool_or_func: Tool | Callable[..., Any],
        *,
        name: str | None = None,
        return_direct: bool = False,
        timeout: float | None = None,
    ) -> Tool:
        """Register a `Tool` or a typed function (replacing a tool of the same name).

        Options apply to functions; for a `Tool` a given `name` renames it, and
        `return_direct`/`timeout` override its own when set. Raises ValueError for an
        invalid JSON Schema.
        """
        if isinstance(tool_or_func, Tool):
            tool = tool_or_func
            changes: dict[str, Any] = {}
            if name:
                changes["name"] = name
            if return_direct:
                changes["return_direct"] = True
            if timeout is not None:
                changes["timeout"] = timeout
            if changes:
                tool = dataclasses.replace(tool, **changes)
        else:
            tool = tool_from_function(
                tool_or_func, name=name, return_direct=return_direct, timeout=timeout
            )
        validator_cls = jsonschema.validators.validator_for(tool.parameters)
        try:
            validator_cls.check_schema(tool.parameters)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"tool {tool.name}: invalid parameters schema: {exc.message}") from exc
        self._tools[tool.name] = tool
        self._validators[tool.name] = validator_cls(tool.parameters)
        self._changed()
        return tool

    def remove(self, name: str) -> None:
        """Remove the tool called `name`; unknown names are ignored."""
        if self._tools.pop(name, None) is not None:
            self._validators.pop(name, None)
            self._changed()

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def tools(self) -> list[Tool]:
        """The registered tools in registration order."""
        return list(self._tools.values())

    def specs(self) -> list[dict[str, Any]]:
        """Every tool as ``{"name", "description", "parameters"}``."""
        return [tool.spec() for tool in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` after every change; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _changed(self) -> None:
        self.version += 1
        for callback in list(self._subscribers):
            try:
                callback()
            except Exception:
                _LOGGER.exception("tool registry subscriber failed")

    # -- calling

    def validate(self, name: str, arguments: Any) -> dict[str, Any]:
        """Validated (and lightly coerced) arguments for tool `name`.

        Raises ToolError naming the unknown tool or exactly what is wrong with the arguments.
        """
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            raise ToolError(f"unknown tool '{name}'. Available tools: {known}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolError(
                f"Action Input for {name} must be a JSON object, got {type(arguments).__name__}"
            )
        arguments = _coerce(arguments, tool.parameters)
        error = jsonschema.exceptions.best_match(self._validators[name].iter_errors(arguments))
        if error is not None:
            raise ToolError(_validation_message(tool, error))
        return arguments

    def check(self, name: str, arguments: Any) -> str:
        """Why `arguments` do not fit tool `name` ("" when they do): `validate`'s error."""
        try:
            self.validate(name, arguments)
        except ToolError as err:
            return str(err)
        return ""

    async def call(
        self, name: str, arguments: dict[str, Any], *, caller: str = "agent"
    ) -> ToolResult:
        """Validate and run one tool; every failure becomes ``ok=False`` with a short text.

        Sync tools run in a worker thread. The time limit is the tool's `timeout` or
        `default_timeout` seconds. `caller` only labels the log line ("agent", "fastpath",
        "mcp", "cli"). Cancellation of the calling task propagates.
        """
        start = time.perf_counter()
        tool = self._tools.get(name)
        raw_args = arguments if isinstance(arguments, dict) else {}
        ok = False
        return_direct = False
        data: dict[str, Any] | None = None
        message = ""
        validated = tool_error = False
        try:
            args = self.validate(name, arguments)
            raw_args = args
            validated = True
            assert tool is not None
            limit = tool.timeout if tool.timeout is not None else self.default_timeout
            value = await asyncio.wait_for(self._invoke(tool, args), timeout=limit)
            data = result_data(value)
            if data is not None and isinstance(data.get("message"), str):
                message = data["message"].strip()
            text = result_text(value)
            ok = not _failed_value(value)
            return_direct = tool.return_direct and ok
            tool_error = not ok
        except ToolError as exc:
            text = f"Error: {exc}"
            tool_error = validated  # raised by the tool, not by the arguments' check
        except TimeoutError:
            limit = tool.timeout if tool and tool.timeout is not None else self.default_timeout
            text = f"Error: {name} did not finish within {limit:g} s; try again or another way"
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool's own bug must not end the turn
            level = logging.INFO if isinstance(exc, self.answers) else logging.WARNING
            _LOGGER.log(level, "tool %s failed: %s: %s", name, type(exc).__name__, exc)
            detail = str(exc) or type(exc).__name__
            text = f"Error: {name} failed: {detail}"
            tool_error = validated
        text = cut_text(text, self.max_observation_chars)
        elapsed = (time.perf_counter() - start) * 1000.0
        _LOGGER.info(
            "tool %s by %s %s in %.0f ms: %s",
            name,
            caller,
            "ok" if ok else "failed",
            elapsed,
            text[:120].replace("\n", " "),
        )
        return ToolResult(
            name=name,
            arguments=raw_args,
            ok=ok,
            text=text,
            elapsed_ms=elapsed,
            return_direct=return_direct,
            data=data,
            message=message,
            tool_error=tool_error,
        )

    @staticmethod
    async def _invoke(tool: Tool, args: dict[str, Any]) -> Any:
        func = tool.func
        if inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
            getattr(func, "__call__", None)  # noqa: B004
        ):
            return await func(**args)
        value = await asyncio.to_thread(func, **args)
        if inspect.isawaitable(value):
            return await typing.cast(Awaitable[Any], value)
        return value
