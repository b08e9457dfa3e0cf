"""The tool registry: schemas from signatures, validation, timeouts, failures, truncation."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Literal

import pytest

from agent import Tool, ToolError, ToolRegistry, tool_from_function


class Player:
    async def play_book(self, keyword: str, section: int = 1) -> str:
        """Find an album and play one episode.

        Use when the listener asks to play something.

        Args:
            keyword: words from the album title
            section: episode number, from 1
        """
        return f"playing {keyword} {section}"


def mixed(
    name: str,
    speed: float = 1.0,
    loud: bool = False,
    mode: Literal["a", "b"] = "a",
    tags: list[str] | None = None,
    note: Annotated[str, "a free note"] = "",
) -> dict:
    """A sync tool with many types."""
    return {"name": name, "speed": speed, "loud": loud, "mode": mode, "tags": tags, "note": note}


def test_schema_from_bound_method() -> None:
    tool = tool_from_function(Player().play_book)
    assert tool.name == "play_book"
    assert tool.description == "Find an album and play one episode."
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "keyword": {"type": "string", "description": "words from the album title"},
            "section": {"type": "integer", "description": "episode number, from 1", "default": 1},
        },
        "required": ["keyword"],
        "additionalProperties": False,
    }


def test_schema_types() -> None:
    props = tool_from_function(mixed).parameters["properties"]
    assert props["speed"] == {"type": "number", "default": 1.0}
    assert props["loud"] == {"type": "boolean", "default": False}
    assert props["mode"] == {"enum": ["a", "b"], "type": "string", "default": "a"}
    assert props["tags"] == {
        "type": ["array", "null"],
        "items": {"type": "string"},
        "default": None,
    }
    assert props["note"] == {"type": "string", "description": "a free note", "default": ""}


async def call(registry: ToolRegistry, name: str, args: dict):
    return await asyncio.wait_for(registry.call(name, args), timeout=5)


async def test_sync_tool_runs_in_a_thread_and_json_result() -> None:
    registry = ToolRegistry([mixed])
    result = await call(registry, "mixed", {"name": "x", "loud": "true", "speed": "2"})
    assert result.ok and result.text.startswith('{"name": "x", "speed": 2.0, "loud": true')


async def test_validation_errors_name_the_problem() -> None:
    registry = ToolRegistry([Player().play_book])
    missing = await call(registry, "play_book", {})
    assert not missing.ok and "'keyword' is required" in missing.text
    extra = await call(registry, "play_book", {"keyword": "x", "episode": 2})
    assert not extra.ok and "unknown argument" in extra.text and "episode" in extra.text
    wrong = await call(registry, "play_book", {"keyword": "x", "section": "two"})
    assert not wrong.ok and "section" in wrong.text
    coerced = await call(registry, "play_book", {"keyword": "x", "section": "2"})
    assert coerced.ok and coerced.arguments["section"] == 2
    unknown = await call(registry, "fly", {})
    assert not unknown.ok and "unknown tool 'fly'" in unknown.text and "play_book" in unknown.text
    not_object = await call(registry, "play_book", ["x"])  # type: ignore[arg-type]
    assert not not_object.ok and "JSON object" in not_object.text


async def test_exceptions_and_tool_errors_become_text() -> None:
    async def broken() -> str:
        """Fails."""
        raise RuntimeError("disk on fire")

    def refuses() -> str:
        """Refuses."""
        raise ToolError("no album with that id; search first")

    registry = ToolRegistry([broken, refuses])
    result = await call(registry, "broken", {})
    assert not result.ok and result.text == "Error: broken failed: disk on fire"
    result = await call(registry, "refuses", {})
    assert not result.ok and result.text == "Error: no album with that id; search first"


async def test_timeouts_per_tool_and_default() -> None:
    async def slow() -> str:
        """Slow."""
        await asyncio.sleep(5)
        return "late"

    def blocking() -> str:
        """Blocks a thread."""
        time.sleep(0.5)
        return "late"

    registry = ToolRegistry(default_timeout=0.1)
    registry.add(slow, timeout=0.05)
    registry.add(blocking)
    start = time.perf_counter()
    result = await call(registry, "slow", {})
    assert not result.ok and "within 0.05 s" in result.text
    result = await call(registry, "blocking", {})
    assert not result.ok and "within 0.1 s" in result.text
    assert time.perf_counter() - start < 0.5


async def test_long_observations_are_cut() -> None:
    def long() -> str:
        """Long."""
        return "x" * 1000

    registry = ToolRegistry([long], max_observation_chars=100)
    result = await call(registry, "long", {})
    assert len(result.text) == 100 and result.text.endswith("(truncated)")


async def test_return_direct_only_on_success() -> None:
    def fine() -> str:
        """Fine."""
        return "done"

    def failing() -> dict:
        """Reports failure."""
        return {"status": "error", "message": "nothing is playing"}

    registry = ToolRegistry()
    registry.add(fine, return_direct=True)
    registry.add(failing, return_direct=True)
    assert (await call(registry, "fine", {})).return_direct
    result = await call(registry, "failing", {})
    assert not result.ok and not result.return_direct


def test_version_and_subscribers() -> None:
    registry = ToolRegistry()
    seen = []
    unsubscribe = registry.subscribe(lambda: seen.append(registry.version))
    registry.add(mixed)
    registry.add(Player().play_book, name="play")
    registry.remove("mixed")
    registry.remove("missing")
    assert seen == [1, 2, 3] and registry.names() == ["play"]
    unsubscribe()
    registry.add(mixed)
    assert seen == [1, 2, 3] and registry.version == 4
    assert registry.specs()[0]["name"] == "play"


def test_tool_objects_and_bad_schemas() -> None:
    async def anything(**kwargs) -> str:
        return str(kwargs)

    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    registry = ToolRegistry()
    tool = registry.add(Tool("remote.search", "Search elsewhere.", schema, anything))
    assert registry.get("remote.search") is tool
    with pytest.raises(ValueError):
        registry.add(Tool("bad", "", {"type": "nonsense"}, anything))


async def test_an_answer_raised_is_logged_as_info_a_tool_bug_as_a_warning(caplog) -> None:
    """A book the library does not hold is the listener's answer, not a fault to warn of
    in the journal; any other exception of a tool is."""

    class NotHeld(Exception):
        pass

    async def play(keyword: str) -> dict:
        """Play a book."""
        if keyword == "bug":
            raise ValueError("broken")
        raise NotHeld(f"no book {keyword}")

    registry = ToolRegistry([tool_from_function(play)], answers=(NotHeld,))
    with caplog.at_level("INFO", logger="agent.tools"):
        held = await registry.call("play", {"keyword": "dinner"})
        bug = await registry.call("play", {"keyword": "bug"})
    assert not held.ok and not bug.ok and "no book dinner" in held.text
    levels = {r.getMessage().split(":")[1].strip(): r.levelname
              for r in caplog.records if r.getMessage().startswith("tool play failed:")}  # fmt: skip
    assert levels == {"NotHeld": "INFO", "ValueError": "WARNING"}
