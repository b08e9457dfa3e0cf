"""The ReAct engine: tools, GBNF grammar, parser, loop, chat-model backends and traces."""

from __future__ import annotations

from .errors import (
    AgentError,
    FormatError,
    ModelError,
    ModelTimeout,
    ModelUnavailable,
    RemoteHTTPError,
    ToolError,
)
from .tools import Tool, ToolRegistry, ToolResult, tool_from_function

__all__ = [
    "AgentError",
    "FormatError",
    "ModelError",
    "ModelTimeout",
    "ModelUnavailable",
    "RemoteHTTPError",
    "Tool",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "tool_from_function",
]
