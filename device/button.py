"""Push-to-talk: the gesture logic, the gpiozero button and a keyboard stand-in.

Hold to talk, let go to end the utterance; a tap shorter than ``tap_seconds`` toggles the
book's pause/resume without waking the agent; a button held past ``max_utterance_seconds``
ends the utterance by itself. Raw edges reach the loop as `Event`s through the `Inbox`;
`PushToTalk` turns them into `Gesture`s and takes timestamps as arguments, so tests never
sleep.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import entry_points
from typing import Any, Protocol

from .events import Event, EventType, Inbox

_LOGGER = logging.getLogger(__name__)


class ButtonError(Exception):
    """The GPIO button cannot be used (no GPIO chip, pin busy, unknown pin factory)."""


class Gesture(StrEnum):
    """What a debounced edge means to the App."""

    TALK = "talk"
    """Accepted press: start listening (a barge-in when a turn is running)."""
    END = "end"
    """Release after the tap threshold: end the utterance (after the release tail)."""
    TAP = "tap"
    """Release before the tap threshold: toggle the book, no agent turn."""
    TIMEOUT = "timeout"
    """Held past the maximum utterance length: end the utterance now."""


@dataclass
class PushToTalk:
    """Debounce raw button edges and classify them; pure logic, times in seconds.

    An edge closer than `bounce_seconds` to the last accepted one is a bounce and ignored;
    `check_at` then tells when to re-read the level (`settle`), so a real change hidden in
    a bounce (two presses 20 ms apart, a release within the bounce window) is not lost.
    """

    tap_seconds: float = 0.35
    bounce_seconds: float = 0.05
    max_utterance_seconds: float = 20.0
    pressed: bool = False
    pressed_at: float = -math.inf
    last_edge: float = -math.inf
    timed_out: bool = False
    check_at: float | None = None
    bounces: int = 0

    def edge(self, down: bool, t: float) -> Gesture | None:
        """A raw edge (`down` True for a press) at monotonic time `t`."""
        if down == self.pressed:
            return None
        if t - self.last_edge < self.bounce_seconds:
            self.bounces += 1
            self.check_at = self.last_edge + self.bounce_seconds
            return None
        return self._accept(down, t)

    def settle(self, down: bool, t: float) -> Gesture | None:
        """The level read at `check_at`: accept it if it differs from the debounced state."""
        self.check_at = None
        if down == self.pressed:
            return None
        return self._accept(down, t)

    def _accept(self, down: bool, t: float) -> Gesture | None:
        self.pressed = down
        self.last_edge = t
        if down:
            self.pressed_at = t
            self.timed_out = False
            return Gesture.TALK
        if self.timed_out:
            self.timed_out = False
            return None
        if t - self.pressed_at < self.tap_seconds:
            return Gesture.TAP
        return Gesture.END

    @property
    def deadline(self) -> float | None:
        """Monotonic time at which a held button ends the utterance, or None."""
        if self.pressed and not self.timed_out:
            return self.pressed_at + self.max_utterance_seconds
        return None

    def expire(self, t: float) -> Gesture | None:
        """Called at or after `deadline`: TIMEOUT once per hold."""
        deadline = self.deadline
        if deadline is None or t < deadline:
            return None
        self.timed_out = True
        return Gesture.TIMEOUT


class ButtonSource(Protocol):
    """Something that posts BUTTON_DOWN/BUTTON_UP events and can report its level."""

    name: str

    def is_pressed(self) -> bool:
        """The current level (True while held)."""
        ...

    def close(self) -> None:
        """Stop posting events and release the hardware."""
        ...


def pin_factory_by_name(name: str) -> Any:
    """A gpiozero pin factory from its entry-point name (``lgpio``, ``mock``, ``native``...).

    Raises ButtonError when the name is unknown or the factory cannot start (no GPIO chip).
    """
    found = entry_points(group="gpiozero_pin_factories", name=name)
    if not found:
        raise ButtonError(f"unknown gpiozero pin factory {name!r}")
    try:
        return next(iter(found)).load()()
    except Exception as err:
        raise ButtonError(f"pin factory {name!r} unusable: {err}") from err


class GpioButton:
    """A gpiozero `Button` whose callbacks (on gpiozero's threads) post into the inbox.

    `pin` uses BCM numbering; `bounce_time` seconds is given to gpiozero (hardware
    debounce where the factory has it) and also applied by `PushToTalk`. The pin factory is
    `pin_factory` (an object or an entry-point name), else ``GPIOZERO_PIN_FACTORY``, else
    gpiozero's default (lgpio on a Pi 5). Raises ButtonError when GPIO is unusable.
    """

    name = "gpio"

    def __init__(
        self,
        inbox: Inbox,
        pin: int,
        *,
        pull_up: bool = True,
        bounce_time: float | None = None,
        pin_factory: Any = None,
    ) -> None:
        try:
            from gpiozero import Button
        except ImportError as err:
            raise ButtonError(f"gpiozero not installed: {err}") from err
        if isinstance(pin_factory, str):
            pin_factory = pin_factory_by_name(pin_factory) if pin_factory else None
        self._inbox = inbox
        try:
            self.button = Button(
                pin,
                pull_up=pull_up,
                bounce_time=bounce_time or None,
                pin_factory=pin_factory,
            )
        except Exception as err:
            factory = os.environ.get("GPIOZERO_PIN_FACTORY", "default")
            raise ButtonError(f"GPIO{pin} unusable (pin factory {factory}): {err}") from err
        self.button.when_pressed = self._down
        self.button.when_released = self._up

    def _down(self) -> None:
        self._inbox.post(Event(EventType.BUTTON_DOWN, time.monotonic(), self.name))

    def _up(self) -> None:
        self._inbox.post(Event(EventType.BUTTON_UP, time.monotonic(), self.name))

    def is_pressed(self) -> bool:
        """True while the button is held."""
        return bool(self.button.is_pressed)

    def close(self) -> None:
        """Release the pin."""
        self.button.when_pressed = None
        self.button.when_released = None
        self.button.close()


class KeyboardButton:
    """Push-to-talk from a terminal: each Enter toggles between held and released.

    Reads `stream` (stdin by default) with `loop.add_reader`, so no thread is needed;
    a line ``q`` posts STOP. Only useful on a terminal; raises ButtonError otherwise.
    """

    name = "keyboard"

    def __init__(self, inbox: Inbox, *, stream: Any = None, require_tty: bool = True) -> None:
        self._inbox = inbox
        self._stream = stream if stream is not None else sys.stdin
        if require_tty and not (hasattr(self._stream, "isatty") and self._stream.isatty()):
            raise ButtonError("stdin is not a terminal; keyboard push-to-talk off")
        self._held = False
        self._fd = self._stream.fileno()
        inbox.loop.add_reader(self._fd, self._on_line)
        print("Press Enter to start talking, Enter again to stop (q + Enter quits).")

    def _on_line(self) -> None:
        line = self._stream.readline()
        if line == "":  # EOF
            self.close()
            return
        if line.strip().lower() == "q":
            self._inbox.post(Event(EventType.STOP, source=self.name))
            return
        self._held = not self._held
        kind = EventType.BUTTON_DOWN if self._held else EventType.BUTTON_UP
        self._inbox.post(Event(kind, time.monotonic(), self.name))

    def is_pressed(self) -> bool:
        """True between the first Enter and the second."""
        return self._held

    def close(self) -> None:
        """Stop reading the terminal."""
        try:
            self._inbox.loop.remove_reader(self._fd)
        except (ValueError, RuntimeError):
            pass
