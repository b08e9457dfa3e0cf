"""System prompts and chat messages for the ReAct loop, in Chinese or English.

The templates, the when-to-use hints for the audiobook tools and the short examples are
package data under ``agent/prompts/``. Examples are only included when every tool they use
is registered, and they use no placeholder values (no ``"123"`` album ids) that a small
model could copy.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from .tools import Tool, ToolRegistry

__all__ = [
    "LANGUAGES",
    "neutralise_labels",
    "observation_message",
    "render_system_prompt",
    "render_titles",
    "render_tool_line",
]

LANGUAGES = ("zh", "en")

_LABEL = re.compile(
    r"(Observation|Final\s*Answer|Action\s*Input|Action|Thought)\s*[:：]", re.IGNORECASE
)


@cache
def _resource(name: str) -> str:
    return resources.files("agent").joinpath("prompts", name).read_text(encoding="utf-8")


@cache
def _hints() -> dict[str, dict[str, str]]:
    return json.loads(_resource("tool_hints.json"))


@cache
def _examples() -> dict[str, list[dict[str, Any]]]:
    return json.loads(_resource("examples.json"))


def _check_language(language: str) -> str:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    return language


def _type_name(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = "/".join(k for k in kind if k != "null")
    return {"string": "str", "integer": "int", "number": "number", "boolean": "bool"}.get(
        kind, str(kind)
    )


def render_tool_line(tool: Tool, language: str = "zh") -> str:
    """One line for the prompt: ``- name(arg: type, opt: type = default): when to use it``.

    The when-to-use text is the built-in hint for known audiobook tools, else the tool's
    own description.
    """
    props = tool.parameters.get("properties", {}) or {}
    required = set(tool.parameters.get("required", []))
    args = []
    for name, schema in props.items():
        text = f"{name}: {_type_name(schema)}"
        if name not in required and "default" in schema:
            text += f" = {json.dumps(schema['default'], ensure_ascii=False)}"
        elif name not in required:
            text += "（可选）" if language == "zh" else " (optional)"
        args.append(text)
    hint = _hints().get(language, {}).get(tool.name) or tool.description or tool.name
    if tool.description and hint != tool.description and language == "en":
        hint = f"{tool.description} {hint}"
    return f"- {tool.name}({', '.join(args)}): {hint}"


def render_system_prompt(
    tools: ToolRegistry | list[Tool],
    *,
    language: str = "zh",
    extra: str = "",
    titles: Sequence[str] = (),
) -> str:
    """The system prompt for `language` ("zh" or "en") listing `tools`; raises ValueError.

    `extra` is appended as-is (e.g. a note from the configuration). `titles` (album
    titles of the library) come last (`render_titles`): everything before them stays the
    same when the library changes, so a model's saved or cached evaluation of that stable
    prefix is reused and only the titles are evaluated again.
    """
    _check_language(language)
    tool_list = tools.tools() if isinstance(tools, ToolRegistry) else list(tools)
    names = {t.name for t in tool_list}
    lines = "\n".join(render_tool_line(t, language) for t in tool_list)
    examples = [
        example["text"] for example in _examples()[language] if set(example["tools"]) <= names
    ]
    template = string.Template(_resource(f"system.{language}.txt"))
    text = template.safe_substitute(tools=lines, examples="\n\n".join(examples))
    if extra:
        text = text.rstrip() + "\n\n" + extra.strip() + "\n"
    return text + render_titles(titles, language)


def render_titles(titles: Sequence[str], language: str = "zh") -> str:
    """The changing tail of the system prompt: the library's album titles ("" if none)."""
    if not titles:
        return ""
    label = "书库里的专辑：" if language == "zh" else "Albums in the library: "
    sep = "、" if language == "zh" else "; "
    return "\n" + label + sep.join(t.replace("\n", " ") for t in titles) + "\n"


def neutralise_labels(text: str) -> str:
    """`text` with ReAct labels defused (``Observation:`` -> ``Observation -``).

    Used on utterances and tool results so that a label inside them cannot be taken for
    the framework's own.
    """
    return _LABEL.sub(lambda m: f"{m.group(1)} -", text)


def observation_message(text: str, *, language: str = "zh", injected: bool = False) -> str:
    """The user-role message carrying one observation (or a listener's correction)."""
    if injected:
        prefix = (
            "Observation（用户纠正）: "
            if language == "zh"
            else "Observation (listener's correction): "
        )
        return prefix + neutralise_labels(text)
    return "Observation: " + neutralise_labels(text)
