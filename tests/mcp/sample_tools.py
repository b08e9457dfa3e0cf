"""A sample tool registry built from plain async functions, shared by the MCP tests."""

from __future__ import annotations

import asyncio

from agent.tools import ToolRegistry

SLOW_TIMEOUT = 0.5
"""Seconds `nap` may run before the registry ends it with a timeout observation."""


async def echo(text: str, times: int = 1) -> str:
    """Repeat `text` `times` times."""
    return text * times


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


add.tool_read_only = True  # it changes nothing: MCP's readOnlyHint (`player.contract`)


async def download(seconds: float = 1.0) -> str:
    """Pretend to download an episode for `seconds` seconds, then report it done."""
    await asyncio.sleep(seconds)
    return f"downloaded in {seconds:g} s"


async def nap(seconds: float) -> str:
    """Sleep `seconds` seconds (longer than its timeout makes a timeout observation)."""
    await asyncio.sleep(seconds)
    return "awake"


def sample_registry() -> ToolRegistry:
    """echo, add, download (5 s limit) and nap (`SLOW_TIMEOUT` limit)."""
    registry = ToolRegistry(default_timeout=5.0)
    registry.add(echo)
    registry.add(add)
    registry.add(download)
    registry.add(nap, timeout=SLOW_TIMEOUT)
    return registry
