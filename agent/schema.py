"""JSON Schema (draft 2020-12) of a function's arguments, from its signature and docstring.

Types come from the type hints (str, int, float, bool, list[X], dict, Literal, Enum,
``X | None``, ``Annotated[X, "description"]``); defaults become ``default``; arguments
without a default are ``required``. Argument descriptions come from a Google-style
``Args:`` section of the docstring.
"""

from __future__ import annotations

import enum
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["docstring_parts", "schema_from_signature"]


_SIMPLE_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    tuple: "array",
    type(None): "null",
}
_STRING_HINTS = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
}


def _type_schema(hint: Any) -> dict[str, Any]:
    """JSON Schema for one type hint; unknown hints give an unconstrained schema ``{}``."""
    if hint is inspect.Parameter.empty or hint is Any:
        return {}
    if isinstance(hint, str):
        base = hint.split("[", 1)[0].strip()
        return {"type": _STRING_HINTS[base]} if base in _STRING_HINTS else {}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        schema = _type_schema(args[0])
        for extra in args[1:]:
            if isinstance(extra, str):
                schema["description"] = extra
            elif isinstance(extra, dict):
                schema.update(extra)
        return schema
    if origin is typing.Literal:
        values = list(args)
        schema: dict[str, Any] = {"enum": values}
        kinds = {type(v) for v in values}
        if len(kinds) == 1 and next(iter(kinds)) in _SIMPLE_TYPES:
            schema["type"] = _SIMPLE_TYPES[next(iter(kinds))]
        return schema
    if origin in (typing.Union, types.UnionType):
        non_null = [a for a in args if a is not type(None)]
        if len(non_null) == 1 and len(args) == 2:
            inner = _type_schema(non_null[0])
            if isinstance(inner.get("type"), str):
                inner["type"] = [inner["type"], "null"]
                return inner
            return {"anyOf": [inner, {"type": "null"}]}
        return {"anyOf": [_type_schema(a) for a in args]}
    if origin in (list, tuple, set, frozenset) or hint in (list, tuple):
        schema = {"type": "array"}
        if args and origin is not tuple:
            schema["items"] = _type_schema(args[0])
        return schema
    if origin is dict or hint is dict:
        return {"type": "object"}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        values = [m.value for m in hint]
        return {"enum": values}
    if hint in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[hint]}
    return {}


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$", re.IGNORECASE)
_ARG_LINE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def docstring_parts(func: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """(first paragraph as one line, {argument: description}) from a Google-style docstring."""
    doc = inspect.getdoc(func) or ""
    paragraphs = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)
    first = " ".join(line.strip() for line in paragraphs[0].splitlines()).strip()
    if _ARGS_HEADER.match(paragraphs[0].splitlines()[0] if paragraphs[0] else ""):
        first = ""
    arg_docs: dict[str, str] = {}
    in_args = False
    current = ""
    indent = -1
    for line in doc.splitlines():
        if _ARGS_HEADER.match(line):
            in_args = True
            continue
        if not in_args or not line.strip():
            continue
        this_indent = len(line) - len(line.lstrip())
        if this_indent == 0:
            break  # the next section (Returns:, Raises:) or prose
        match = _ARG_LINE.match(line)
        if match and (indent < 0 or this_indent <= indent):
            indent = this_indent
            current = match.group(1)
            arg_docs[current] = match.group(2).strip()
        elif current:
            arg_docs[current] += " " + line.strip()
    return first, arg_docs


def _resolved_hints(func: Callable[..., Any]) -> dict[str, Any]:
    target = func.func if isinstance(func, functools.partial) else func
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception:  # unresolved forward references: fall back to the raw strings
        return dict(getattr(target, "__annotations__", {}) or {})


def schema_from_signature(func: Callable[..., Any]) -> dict[str, Any]:
    """JSON Schema object for `func`'s keyword arguments (``self``/``*args``/``**kw`` excluded).

    Defaults become ``"default"``; arguments without a default are ``"required"``; extra
    keys are rejected (``additionalProperties: false``).
    """
    signature = inspect.signature(func)
    hints = _resolved_hints(func)
    _, arg_docs = docstring_parts(func)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in signature.parameters.items():
        if name in ("self", "cls") or param.kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
            inspect.Parameter.POSITIONAL_ONLY,
        ):
            continue
        schema = _type_schema(hints.get(name, param.annotation))
        if name in arg_docs and "description" not in schema:
            schema["description"] = arg_docs[name]
        if param.default is inspect.Parameter.empty:
            required.append(name)
        else:
            default = param.default
            if isinstance(default, enum.Enum):
                default = default.value
            if isinstance(default, (str, int, float, bool, type(None))):
                schema["default"] = default
        properties[name] = schema
    result: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        result["required"] = required
    return result
