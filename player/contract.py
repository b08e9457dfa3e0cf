"""The contract between the player's tools and any agent that calls them.

Everything an agent needs to know about a tool travels with the tool function, written
once here in `player/`:

- each parameter's *role* and bounds, in its JSON Schema through ``Annotated`` (the
  ``x-role`` key; roles are ``title``, ``album-id``, ``episode``, ``page``, ``seconds``,
  ``percent``, ``minutes``, ``rate``: a playback speed, 1.0 normal; ``intro-seconds`` and
  ``outro-seconds``: a book's intro and outro skip; ``sleep-at-end``: true when playback
  stops at the end of the episode), so an agent can build
  exact constraints without knowing the tool's name;
- whether a successful call ends the turn (``return_direct``: its ``message`` is the
  answer), the zh/en when-to-use hints and short examples, set as attributes by `tool`
  (what listeners say to call a tool is data of the words layer, ``words/phrases/``,
  keyed by the tool's name: no phrase table lives beside the tool);
- the shape of the result (``output_schema``, a JSON Schema as MCP's ``outputSchema``):
  a dict with one short speakable ``message`` in the configured language plus data whose
  fields carry roles too (``album-id``, ``title``, ``episode-count``, ``episode``,
  ``seconds``, ``playback-state``), so an agent learns admissible ids and counts from the
  data, never from prose.

- whether the tool acts only on the book loaded now (``needs_loaded``: pause, stop, seek),
  so an agent offers it only when the listener's context has a book loaded (a value of
  role ``playback-state``);
- whether it only reads (``read_only``: status, details, search, the library, help), so an
  agent may run it on a guess, where a call that changes playback is asked about first;

The attribute names are plain strings (`ATTR_RETURN_DIRECT`, `ATTR_HINTS`,
`ATTR_EXAMPLES`, `ATTR_OUTPUT_SCHEMA`, `ATTR_NEEDS_LOADED`, `ATTR_READ_ONLY`); a bound method exposes its function's attributes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

__all__ = [
    "ALBUM",
    "ATTR_EXAMPLES",
    "ATTR_HINTS",
    "ATTR_NEEDS_LOADED",
    "ATTR_OUTPUT_SCHEMA",
    "ATTR_RETURN_DIRECT",
    "CONTEXT",
    "NOW",
    "OFFER",
    "STATUS_TOPICS",
    "AlbumId",
    "EpisodeNo",
    "EpisodeTitle",
    "Keyword",
    "Minutes",
    "Page",
    "Percent",
    "Rate",
    "Seconds",
    "SkipSeconds",
    "SleepMinutes",
    "SpeedStep",
    "StatusTopic",
    "result_schema",
    "returns",
    "tool",
]

ATTR_RETURN_DIRECT = "tool_return_direct"
ATTR_HINTS = "tool_hints"
ATTR_EXAMPLES = "tool_examples"
ATTR_OUTPUT_SCHEMA = "tool_output_schema"
ATTR_NEEDS_LOADED = "tool_needs_loaded"
ATTR_READ_ONLY = "tool_read_only"

MAX_PAGE = 50
"""Highest result page a search accepts (5 albums a page: 250 results)."""

MAX_EPISODE = 9999
MAX_SEEK_SECONDS = 36000
MAX_SLEEP_MINUTES = 600
MAX_SKIP_SECONDS = 600
MIN_RATE, MAX_RATE = 0.5, 2.0
"""Playback speeds a book may be set to (FFmpeg's atempo keeps the pitch)."""
SPEED_STEP = 0.25
"""How much one "faster" or "slower" changes the speed."""

Keyword = Annotated[str, {"x-role": "title", "maxLength": 100}]
AlbumId = Annotated[str, {"x-role": "album-id", "maxLength": 100}]
EpisodeNo = Annotated[
    int | None, {"x-role": "episode", "minimum": -MAX_EPISODE, "maximum": MAX_EPISODE}
]
"""An episode number, 1-based; a negative one counts from the end (-1 the last); 0 is none."""
EpisodeTitle = Annotated[str, {"x-role": "episode-title", "maxLength": 100}]
"""Words of an episode's title ("未初", "Sol 9"): its own role, not a book's title; the
agent's grammar leaves it to the fast path."""
Page = Annotated[int, {"x-role": "page", "minimum": 1, "maximum": MAX_PAGE}]
Seconds = Annotated[
    float, {"x-role": "seconds", "minimum": -MAX_SEEK_SECONDS, "maximum": MAX_SEEK_SECONDS}
]
Percent = Annotated[int, {"x-role": "percent", "minimum": 0, "maximum": 100}]
Minutes = Annotated[float, {"x-role": "minutes", "minimum": 0, "maximum": MAX_SLEEP_MINUTES}]
SleepMinutes = Annotated[
    float | None, {"x-role": "minutes", "minimum": 0, "maximum": MAX_SLEEP_MINUTES}
]
Rate = Annotated[float | None, {"x-role": "rate", "minimum": MIN_RATE, "maximum": MAX_RATE}]
SpeedStep = Annotated[int, {"minimum": -4, "maximum": 4}]
"""Steps of `SPEED_STEP` from the current speed: 1 faster, -1 slower."""
SkipSeconds = Annotated[
    float | None,
    {"x-role": "seconds", "minimum": -MAX_SKIP_SECONDS, "maximum": MAX_SKIP_SECONDS},
]
"""Seconds of intro or outro skipped, 0..600; a change of it (`set_skip`'s ``relative``)
may be negative, -600..600."""
STATUS_TOPICS = ("now", "episodes", "left", "time_left", "length", "author", "narrator",
                 "description", "volume", "sleep", "skip")  # fmt: skip
"""What a status question may ask about (`get_status`'s ``about``)."""
StatusTopic = Annotated[str, {"enum": list(STATUS_TOPICS)}]

ALBUM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "x-role": "album-id"},
        "title": {"type": "string", "x-role": "title"},
        "episodes": {"type": "integer", "x-role": "episode-count"},
    },
}
"""One album in a result: ``{"id": "lib:3ea9489e79", "title": "西游记", "episodes": 100}``."""

OFFER: dict[str, Any] = {"type": "object", "x-role": "offer"}
"""A result's ``offer``: the arguments of the same call that its message asks about ("Did you
mean Treasure Island?" offers ``{"keyword": "Treasure Island"}``); the agent makes that call
when the listener's next words say yes."""

F = TypeVar("F", bound=Callable[..., Any])

NOW: dict[str, Any] = {
    "type": "object",
    "properties": {
        **ALBUM["properties"],
        "state": {
            "type": "string",
            "enum": ["playing", "paused", "loading"],
            "x-role": "playback-state",
        },
        "episode": {"type": "integer", "x-role": "episode"},
        "episode_title": {"type": "string"},
        "position": {"type": "number", "x-role": "seconds"},
        "duration": {"type": "number", "x-role": "seconds"},
        "speed": {"type": "number", "x-role": "rate"},
        "intro": {"type": "number", "x-role": "intro-seconds"},
        "outro": {"type": "number", "x-role": "outro-seconds"},
    },
}
"""The album and episode loaded now: album fields plus state, episode and position (s),
the book's playback speed (1.0 normal) and the seconds skipped at the start (``intro``) and
end (``outro``) of each of its episodes (0: none)."""

BOOKMARK: dict[str, Any] = {
    "type": "object",
    "properties": {
        **ALBUM["properties"],
        "episode": {"type": "integer", "x-role": "episode"},
        "position": {"type": "number", "x-role": "seconds"},
    },
}
"""Where an album was left off: album fields plus episode and position (s)."""


CONTEXT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string"},
        "now": NOW,
        "bookmarks": {"type": "array", "items": BOOKMARK},
        "before": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    **BOOKMARK["properties"],
                    "before": {"type": "boolean", "x-role": "book-before"},
                },
            },
        },
    },
}
"""The listener's context: the album loaded now, bookmarks of albums the words name, and
the book listened to before the one loaded now (``before``, at most one)."""


def returns(schema: dict[str, Any]) -> Callable[[F], F]:
    """Attach the result's JSON Schema to a function that is not a tool (the context)."""

    def mark(func: F) -> F:
        setattr(func, ATTR_OUTPUT_SCHEMA, schema)
        return func

    return mark


def result_schema(**properties: dict[str, Any]) -> dict[str, Any]:
    """A result's JSON Schema: the speakable ``message`` plus the given data properties."""
    return {
        "type": "object",
        "properties": {"message": {"type": "string"}, **properties},
        "required": ["message"],
    }


def tool(
    *,
    return_direct: bool = False,
    zh: str = "",
    en: str = "",
    output: dict[str, Any] | None = None,
    examples: list[dict[str, Any]] | None = None,
    needs_loaded: bool = False,
    read_only: bool = False,
) -> Callable[[F], F]:
    """Mark a function as a tool with its contract metadata; returns it unchanged.

    `zh`/`en` say when to use the tool; `return_direct` makes a successful result end the
    turn with its ``message`` as the spoken answer; `output` is the result's JSON Schema
    (default: a message only); `examples` are ``{"zh": text, "en": text, "tools": [...]}``
    ReAct snippets for the prompt, used only when every tool they name is registered;
    `needs_loaded` says the tool can only act on a book loaded now (with nothing loaded it
    does nothing, so it is not offered to the model then); `read_only` says it only
    reads the player and the library and changes nothing the listener hears (MCP's
    ``readOnlyHint``).
    """

    def mark(func: F) -> F:
        setattr(func, ATTR_RETURN_DIRECT, return_direct)
        setattr(func, ATTR_HINTS, {"zh": zh, "en": en})
        setattr(func, ATTR_OUTPUT_SCHEMA, output or result_schema())
        setattr(func, ATTR_EXAMPLES, list(examples or []))
        setattr(func, ATTR_NEEDS_LOADED, needs_loaded)
        setattr(func, ATTR_READ_ONLY, read_only)
        return func

    return mark
