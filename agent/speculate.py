"""The turn's first model step started on the partial transcript, before the final one.

After the button is released, the recogniser keeps listening for a short tail
(``timings.release_tail_seconds``) before it gives the final transcript; the model has
nothing to do meanwhile. `Speculation` uses that time: it runs the agent's turn on the
partial transcript with every tool call refused (nothing is played, paused or changed),
so the local model computes the first reply for exactly the prompt and grammar the real
turn will ask for. When the final transcript is the same text, the real turn's first
model call gets that reply at once (`LocalModel.complete` under `SPECULATIVE`); when it
differs, the speculative step is stopped within one token and the turn runs as usual.
Only a local model is asked this way (a remote API is never called on a guess).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections import deque
from typing import Any

from .local import SPECULATIVE, LocalModel

_LOGGER = logging.getLogger(__name__)

__all__ = ["Speculation"]


class _Refused(BaseException):
    """Raised instead of running a tool in a speculative turn (not an `Exception`, so the
    agent's own error handling lets it through)."""


class _NoCalls:
    """A tool registry that reads like `registry` but runs no tool."""

    def __init__(self, registry: Any) -> None:
        self._registry = registry

    def __getattr__(self, name: str) -> Any:
        return getattr(self._registry, name)

    async def call(self, *args: Any, **kwargs: Any) -> Any:
        raise _Refused()


class _FirstStep:
    """`model` for a speculative turn: its first `complete` runs, a second one is refused
    (the kept reply is the first step's; later steps depend on tool results)."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.asked = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        if self.asked:
            raise _Refused()
        self.asked = True
        return await self._model.complete(*args, **kwargs)


class _Quiet(logging.Filter):
    """Drops the agent's log records of a speculative turn (it is not a turn)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not SPECULATIVE.get()


logging.getLogger("agent.loop").addFilter(_Quiet())


def local_model(agent: Any) -> LocalModel | None:
    """The local model the agent asks first, or None (a remote first, no model)."""
    model = getattr(agent, "model", None)
    first = getattr(model, "primary", model)
    return first if isinstance(first, LocalModel) else None


class Speculation:
    """Speculative first steps of one turn of `agent` (an `agent.loop.Agent`).

    `guess(text)` starts the turn's first model step on `text` (a newer guess stops the
    older one); `settle(transcript)` ends the speculation: True when the last guess is
    the transcript (its reply is kept for the turn), False when it was stopped.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.model = local_model(agent)
        self.guessed = ""
        self.guesses = 0
        self._task: asyncio.Task[None] | None = None
        self._cancel: asyncio.Event | None = None
        self._step: _FirstStep | None = None

    @property
    def enabled(self) -> bool:
        """True when the agent's first model is local (nothing to gain otherwise)."""
        return self.model is not None and getattr(self.agent, "registry", None) is not None

    def guess(self, text: str) -> None:
        """Start the first step for the partial transcript `text` (ignored when empty, the
        same as the last guess, or without a local model)."""
        text = " ".join((text or "").split())
        if not self.enabled or not text or text == self.guessed:
            return
        if getattr(self.agent, "_injections", None):
            return  # a queued correction belongs to the real turn
        self._stop_task()
        self.guessed = text
        self.guesses += 1
        self._cancel = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(
            self._run(text, self._cancel), name="speculation"
        )

    async def _run(self, text: str, cancel: asyncio.Event) -> None:
        SPECULATIVE.set(True)  # this task's own context: the real turn is not speculative
        shadow = copy.copy(self.agent)
        shadow.model = self._step = _FirstStep(self.agent.model)
        shadow.registry = _NoCalls(self.agent.registry)
        shadow.trace = None
        shadow.defer_trace = True
        shadow._injections = deque()
        try:
            await shadow.run(text, cancel=cancel)
        except _Refused:
            pass  # the step reached its tool call: the reply is kept in the model
        except Exception as exc:  # a guess must never disturb the real turn
            _LOGGER.debug("speculative step failed: %s", exc)

    def close(self) -> None:
        """The turn is over: stop whatever is still running."""
        self._stop_task()

    def _stop_task(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
        if self.model is not None:
            self.model.stop_speculation()
        self._task = None

    def settle(self, transcript: str) -> bool:
        """The final `transcript` is known: keep the reply if it was guessed, else stop."""
        same = " ".join((transcript or "").split()) == self.guessed
        if self.guessed and same and self._step is not None and self._step.asked:
            _LOGGER.debug("partial transcript %r was final", self.guessed)
            return True
        if self.guessed:
            _LOGGER.debug("guess %r was not the transcript %r", self.guessed, transcript)
        self._stop_task()
        return False
