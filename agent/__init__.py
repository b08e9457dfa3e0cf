"""The ReAct engine: tools, GBNF grammar, parser, loop, chat-model backends and traces.

Stable public names are re-exported here; `LocalModel` (llama-cpp-python) and
`RemoteModel` (aiohttp) import their heavy libraries only when used.
"""

from __future__ import annotations

from typing import Any

from .errors import (
    AgentError,
    FormatError,
    ModelError,
    ModelTimeout,
    ModelUnavailable,
    RemoteHTTPError,
    ToolError,
)
from .fastpath import FastPath
from .grammar import Constraints, build_grammar
from .loop import Agent, Step, StepKind, TurnResult
from .models import POLICIES, ChatModel, Completion, FallbackModel, ScriptedModel, build_model
from .parse import Action, FinalAnswer, parse
from .prompt import render_system_prompt
from .tools import Tool, ToolRegistry, ToolResult, tool_from_function
from .trace import TraceWriter, format_turns, read_last

__all__ = [
    "POLICIES",
    "Action",
    "Agent",
    "AgentError",
    "ChatModel",
    "Completion",
    "Constraints",
    "FallbackModel",
    "FastPath",
    "FinalAnswer",
    "FormatError",
    "LocalModel",
    "ModelError",
    "ModelTimeout",
    "ModelUnavailable",
    "RemoteHTTPError",
    "RemoteModel",
    "ScriptedModel",
    "Step",
    "StepKind",
    "Tool",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "TraceWriter",
    "TurnResult",
    "build_grammar",
    "build_model",
    "format_turns",
    "parse",
    "read_last",
    "render_system_prompt",
    "tool_from_function",
]


def __getattr__(name: str) -> Any:
    if name == "LocalModel":
        from .local import LocalModel

        return LocalModel
    if name == "RemoteModel":
        from .remote import RemoteModel

        return RemoteModel
    raise AttributeError(f"module 'agent' has no attribute {name!r}")
