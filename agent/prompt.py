"""System prompts and chat messages for the ReAct loop, in Chinese or English.

The templates are package data under ``agent/prompts/``. Each tool brings its own
when-to-use hint (zh/en) and examples (`Tool.hints`, `Tool.examples`); an example is only
included when every tool it uses is registered. The general example here uses no tool: a
question the listener's context answers. The examples reach
the model as earlier chat turns (`prompt_messages`), the library's titles after them. The user message
carries the listener's context line, then the utterance (`user_message`).
"""

from __future__ import annotations

import json
import re
import string
import tomllib
from collections.abc import Collection, Sequence
from functools import cache
from importlib import resources
from typing import Any

from .tools import Tool, ToolRegistry

__all__ = [
    "LANGUAGES",
    "STATE_THOUGHT",
    "example_messages",
    "likeness_line",
    "neutralise_labels",
    "observation_message",
    "prompt_messages",
    "render_system_prompt",
    "render_titles",
    "render_tool_line",
    "user_message",
]

_GENERAL_EXAMPLES = {
    "zh": [
        "（播放器：正在播放 聊斋 第3集（共40集），2分05秒）\n用户：这本书一共几集\n"
        "Thought: 播放器状态里写着共40集。\nFinal Answer: 聊斋一共40集，现在在听第3集。",
    ],
    "en": [
        "(Player: playing Rebecca, episode 3 of 24, at 2:05)\nListener: how many episodes does "
        "this book have\nThought: The player's state says 24.\nFinal Answer: Rebecca has 24 "
        "episodes; you are on episode 3.",
    ],
}
_CONTEXT = {"zh": "（播放器：{context}）", "en": "(Player: {context})"}
_SPEAKER = {"zh": "用户：", "en": "Listener: "}

LANGUAGES = ("zh", "en")

STATE_THOUGHT = {"zh": "播放器状态", "en": "The player's state"}
"""How the Thought of an answer given without a tool call begins (rule 5 of the prompts;
the grammar holds the model to it, `build_grammar(final_thought=...)`)."""

_LABEL = re.compile(
    r"(Observation|Final\s*Answer|Action\s*Input|Action|Thought)\s*[:：]", re.IGNORECASE
)


@cache
def _resource(name: str) -> str:
    return resources.files("agent").joinpath("prompts", name).read_text(encoding="utf-8")


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

    The when-to-use text is the tool's own hint in `language`, else its description.
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
    return f"- {tool.name}({', '.join(args)}): {tool.hint(language)}"


def render_system_prompt(
    tools: ToolRegistry | list[Tool],
    *,
    language: str = "zh",
    extra: str = "",
    titles: Sequence[str] = (),
) -> str:
    """The system prompt's text for `language` ("zh" or "en") listing `tools` (the rules
    and the tools; the examples are chat turns, `prompt_messages`); raises ValueError.

    `extra` is appended as-is (e.g. a note from the configuration); `titles`, when given,
    are appended last (`render_titles`).
    """
    _check_language(language)
    tool_list = tools.tools() if isinstance(tools, ToolRegistry) else list(tools)
    lines = "\n".join(render_tool_line(t, language) for t in tool_list)
    template = string.Template(_resource(f"system.{language}.txt"))
    text = template.safe_substitute(tools=lines)
    if extra:
        text = text.rstrip() + "\n\n" + extra.strip() + "\n"
    return text + render_titles(titles, language)


def prompt_messages(
    tools: ToolRegistry | list[Tool],
    *,
    language: str = "zh",
    extra: str = "",
    titles: Sequence[str] = (),
) -> list[dict[str, str]]:
    """The stable start of every turn's messages: the system prompt, the examples as
    whole chat turns (user, assistant, Observation, assistant), then the library's titles
    as a last system message.

    A small model follows examples it sees as earlier turns of the conversation far more
    closely than examples quoted inside the system text. Everything before the titles
    stays the same when the library changes, so a saved or cached evaluation of that
    prefix is reused and only the titles are evaluated again. Examples come from the
    tools (`Tool.examples`, sorted by their ``order``; one is used only when every tool it
    names is registered) after the general ones here (no tool).
    """
    _check_language(language)
    tool_list = tools.tools() if isinstance(tools, ToolRegistry) else list(tools)
    names = {t.name for t in tool_list}
    chosen = [
        example
        for tool in tool_list
        for example in tool.examples
        if example.get(language) and set(example.get("tools", [tool.name])) <= names
    ]
    chosen.sort(key=lambda e: e.get("order", 0))
    texts = list(_GENERAL_EXAMPLES[language]) + [e[language] for e in chosen]
    messages = [{"role": "system", "content": render_system_prompt(tool_list, language=language,
                                                                  extra=extra)}]  # fmt: skip
    for text in texts:
        messages += example_messages(text)
    if titles:
        messages.append({"role": "system", "content": render_titles(titles, language).strip()})
    return messages


_TURN_LABEL = re.compile(r"\n(?=Thought: )|\n(?=Observation: )")


def example_messages(text: str) -> list[dict[str, str]]:
    """One example turn's text as chat messages: the context line and utterance as the
    user, each reply (Thought … Action Input, or Thought … Final Answer) as the assistant,
    each ``Observation:`` line as the user; raises ValueError without a reply."""
    parts = _TURN_LABEL.split(text.strip())
    if len(parts) < 2:
        raise ValueError(f"an example needs a user part and a reply: {text[:60]!r}")
    messages = [{"role": "user", "content": parts[0]}]
    for part in parts[1:]:
        if part.startswith("Observation: "):
            messages.append({"role": "user", "content": part})
        elif messages[-1]["role"] == "assistant":
            messages[-1]["content"] += "\n" + part
        else:
            messages.append({"role": "assistant", "content": part})
    return messages


def render_titles(titles: Sequence[str], language: str = "zh") -> str:
    """The changing tail of the prompt: the library's album titles ("" if none)."""
    if not titles:
        return ""
    label = "书库里的专辑：" if language == "zh" else "Albums in the library: "
    sep = "、" if language == "zh" else "; "
    return "\n" + label + sep.join(t.replace("\n", " ") for t in titles) + "\n"


def user_message(utterance: str, context: str = "", *, language: str = "zh", like: str = "") -> str:
    """The user turn: the listener's context line (what plays, bookmarks), the line of
    what requests like this one asked for when given (`like`, from `likeness_line`), then
    the utterance with its ReAct labels defused (`neutralise_labels`)."""
    _check_language(language)
    line = _CONTEXT[language].format(context=neutralise_labels(context.strip() or "-"))
    if like:
        line += "\n" + like
    return f"{line}\n{_SPEAKER[language]}{neutralise_labels(utterance)}"


@cache
def _likeness(language: str) -> dict[str, Any]:
    return tomllib.loads(_resource("likeness.toml"))[language]


def likeness_line(intent: str, language: str = "zh", tools: Collection[str] = ()) -> str:
    """The line telling the model what the requests most like the utterance asked for
    (an intent of `words.analogs.INTENTS`: "volume:down", "sleep:end"…), with the tool
    and how it is called, from ``prompts/likeness.toml``; "" for an intent it does not
    name, or whose tool is not among `tools` (the registered tool names). The skip
    intents of one end or both share one line: the words say which end."""
    _check_language(language)
    table = _likeness(language)
    key = "skip" if intent.startswith("skip:") and intent != "skip:off" else intent
    tool, hint = table.get(key, ("", ""))
    if not hint or (tool and tool not in tools):
        return ""
    return table["line"].format(hint=hint)


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
