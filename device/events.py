"""Events of the device runtime: one inbox fed from GPIO threads, the keyboard and the socket.

Everything that happens outside the event loop (a gpiozero callback on its own thread, a line
typed on the terminal, a book player state change, a signal) becomes one frozen `Event` posted into one
`asyncio.Queue` with `loop.call_soon_threadsafe`; the `App` is its only consumer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

_LOGGER = logging.getLogger(__name__)


class EventType(StrEnum):
    """What happened; the `App` dispatches on this."""

    BUTTON_DOWN = "button-down"
    """The push-to-talk button went down (raw edge; debounced by `PushToTalk`)."""
    BUTTON_UP = "button-up"
    """The push-to-talk button came up (raw edge)."""
    PLAYER_STATE = "player-state"
    """The book player changed state (data: the new PlayerState)."""
    STOP = "stop"
    """SIGTERM/SIGINT or a fatal error: shut down."""


@dataclass(frozen=True)
class Event:
    """One entry of the inbox; `time` is `time.monotonic()` seconds at the source."""

    type: EventType
    time: float = field(default_factory=time.monotonic)
    source: str = ""
    data: Any = None


class Inbox:
    """The one queue of events; `post` is safe from any thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop or asyncio.get_running_loop()
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        self.closed = False

    def post(self, event: Event) -> None:
        """Queue `event`; from the loop thread or any other thread. Dropped once closed."""
        if self.closed:
            _LOGGER.debug("inbox closed, dropped %s", event.type)
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.queue.put_nowait(event)
        else:
            try:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, event)
            except RuntimeError:  # loop closed during shutdown
                _LOGGER.debug("loop closed, dropped %s", event.type)

    async def get(self) -> Event:
        """The next event (waits)."""
        return await self.queue.get()

    def close(self) -> None:
        """Stop accepting events (shutdown)."""
        self.closed = True
