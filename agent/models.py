"""Chat models behind one small Protocol: scripted (tests), fallback chain, factory.

A chat model takes OpenAI-style messages (``[{"role": "system"|"user"|"assistant",
"content": str}]``) and returns one `Completion`. The local llama.cpp model lives in
`agent.local`, the remote OpenAI-compatible one (DeepSeek) in `agent.remote`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .errors import FormatError, ModelError, ModelUnavailable

_LOGGER = logging.getLogger(__name__)

__all__ = [
    "POLICIES",
    "ChatModel",
    "Completion",
    "FallbackModel",
    "ScriptedModel",
    "build_model",
    "estimate_tokens",
]

Message = dict[str, str]
TokenCallback = Callable[[str], None]


@dataclass(frozen=True)
class Completion:
    """One model reply.

    `text` is the answer text only (reasoning output removed, kept apart in `reasoning`).
    `finish_reason` is "stop", "length" or "cancelled". Times are milliseconds from the
    request; `cached_tokens` is how many prompt tokens were reused from the KV cache.
    """

    text: str
    backend: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    elapsed_ms: float = 0.0
    first_token_ms: float | None = None
    finish_reason: str = "stop"
    reasoning: str = ""


@runtime_checkable
class ChatModel(Protocol):
    """What the agent needs from a chat model.

    `name` labels the backend in traces ("local", "remote", ...). `supports_grammar` says
    whether a GBNF grammar passed to `complete` is applied (others ignore it). `n_ctx` is
    the context size in tokens (None when unknown). `complete` raises ModelError (or a
    subclass) when no reply can be produced; on `cancel` it returns early with
    ``finish_reason="cancelled"``.
    """

    name: str
    supports_grammar: bool
    n_ctx: int | None

    async def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        cancel: asyncio.Event | None = None,
        on_token: TokenCallback | None = None,
    ) -> Completion: ...


def estimate_tokens(text: str) -> int:
    """Rough token count of `text`: CJK characters ~1 token each, other text ~4 chars/token."""
    cjk = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return cjk + (len(text) - cjk) // 4 + 1


# --------------------------------------------------------------------------- scripted


class ScriptedModel:
    """A chat model that replays queued replies; for tests and demonstrations.

    `enqueue` adds replies (text, a `Completion`, an exception instance to raise, or a
    callable ``messages -> text``); `history` records every call's messages and options.
    An empty queue raises ModelError. `token_delay` (seconds) streams replies token by
    token (split on spaces) so cancellation can be tested.
    """

    def __init__(
        self,
        replies: list[Any] | None = None,
        *,
        name: str = "scripted",
        supports_grammar: bool = False,
        n_ctx: int | None = 4096,
        token_delay: float = 0.0,
    ) -> None:
        self.name = name
        self.supports_grammar = supports_grammar
        self.n_ctx = n_ctx
        self.token_delay = token_delay
        self.history: list[dict[str, Any]] = []
        self._queue: deque[Any] = deque(replies or [])

    def enqueue(self, *replies: Any) -> None:
        """Queue replies for the next calls, in order."""
        self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Replies still queued."""
        return len(self._queue)

    def count_tokens(self, text: str) -> int:
        """Estimated tokens of `text` (see `estimate_tokens`)."""
        return estimate_tokens(text)

    async def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        cancel: asyncio.Event | None = None,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        """Pop the next queued reply; raises ModelError when the queue is empty."""
        start = time.perf_counter()
        self.history.append(
            {"messages": [dict(m) for m in messages], "grammar": grammar, "max_tokens": max_tokens}
        )
        if not self._queue:
            raise ModelError("scripted model has no reply queued")
        reply = self._queue.popleft()
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(messages)
        if isinstance(reply, Completion):
            return reply
        text = str(reply)
        out: list[str] = []
        pieces = text.split(" ")
        for i, piece in enumerate(pieces):
            if cancel is not None and cancel.is_set():
                return self._done("".join(out), start, len(out), "cancelled")
            token = piece if i == len(pieces) - 1 else piece + " "
            out.append(token)
            if on_token is not None:
                on_token(token)
            if self.token_delay:
                await asyncio.sleep(self.token_delay)
        return self._done(text, start, len(pieces), "stop")

    def _done(self, text: str, start: float, tokens: int, reason: str) -> Completion:
        return Completion(
            text=text,
            backend=self.name,
            completion_tokens=tokens,
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
            finish_reason=reason,
        )


# --------------------------------------------------------------------------- fallback

POLICIES = ("local", "local-then-remote", "remote-then-local", "remote")


@dataclass
class _Breaker:
    failures: int = 0
    open_until: float = 0.0
    format_errors: int = 0


@dataclass
class FallbackModel:
    """Try `primary`, then `secondary` on failure, with a circuit breaker per backend.

    A backend falls back on a ModelError (load failure, HTTP error, timeout), on an empty
    reply, or after `max_format_errors` format errors in a row reported through
    `report_format_error`. After `breaker_failures` consecutive failures a backend is
    skipped for `breaker_seconds` seconds. `clock` (monotonic seconds) is injectable for
    tests. The Completion's `backend` names the model that produced it.
    """

    primary: ChatModel
    secondary: ChatModel | None = None
    breaker_failures: int = 2
    breaker_seconds: float = 60.0
    max_format_errors: int = 2
    clock: Callable[[], float] = time.monotonic
    name: str = "fallback"
    _state: dict[str, _Breaker] = field(default_factory=dict, repr=False)
    _last: ChatModel | None = field(default=None, repr=False)

    @property
    def supports_grammar(self) -> bool:
        """True when any backend applies grammars (each backend ignores what it can't use)."""
        return any(m.supports_grammar for m in self._models())

    @property
    def n_ctx(self) -> int | None:
        """The smallest known context size among the backends."""
        sizes = [m.n_ctx for m in self._models() if m.n_ctx]
        return min(sizes) if sizes else None

    async def warm(self, messages: list[Message]) -> None:
        """Pre-evaluate `messages` on every backend that can (the local model's KV cache)."""
        for model in self._models():
            warm = getattr(model, "warm", None)
            if warm is not None:
                try:
                    await warm(messages)
                except ModelError as exc:
                    _LOGGER.warning("could not warm %s: %s", model.name, exc)

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` as the primary model counts them (estimated otherwise)."""
        counter = getattr(self.primary, "count_tokens", None)
        return counter(text) if counter else estimate_tokens(text)

    def _models(self) -> list[ChatModel]:
        return [m for m in (self.primary, self.secondary) if m is not None]

    def _breaker(self, model: ChatModel) -> _Breaker:
        return self._state.setdefault(f"{id(model)}", _Breaker())

    def is_open(self, model: ChatModel) -> bool:
        """True while `model`'s circuit breaker keeps it out of use."""
        return self._breaker(model).open_until > self.clock()

    def _fail(self, model: ChatModel, reason: str) -> None:
        breaker = self._breaker(model)
        breaker.failures += 1
        if breaker.failures >= self.breaker_failures:
            breaker.open_until = self.clock() + self.breaker_seconds
            breaker.failures = 0
            _LOGGER.warning(
                "model %s: circuit open for %.0f s (%s)", model.name, self.breaker_seconds, reason
            )

    def report_format_error(self, backend: str, error: FormatError) -> None:
        """Count a format error by `backend`; too many in a row count as a failure."""
        for model in self._models():
            if model.name == backend:
                breaker = self._breaker(model)
                breaker.format_errors += 1
                if breaker.format_errors >= self.max_format_errors:
                    breaker.format_errors = 0
                    self._fail(model, f"repeated format errors: {error.reason}")
                    # Force the next step onto the other backend.
                    breaker.open_until = max(breaker.open_until, self.clock() + 1e-3)

    def report_ok(self, backend: str) -> None:
        """A reply from `backend` parsed: reset its format-error count."""
        for model in self._models():
            if model.name == backend:
                self._breaker(model).format_errors = 0

    async def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        cancel: asyncio.Event | None = None,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        """Ask the first usable backend; raises ModelUnavailable when every backend failed."""
        errors: list[str] = []
        models = self._models()
        usable = [m for m in models if not self.is_open(m)] or models[:1]
        skipped = [m.name for m in models if m not in usable]
        if skipped:
            errors.extend(f"{name}: circuit open" for name in skipped)
        for model in usable:
            try:
                completion = await model.complete(
                    messages,
                    grammar=grammar if model.supports_grammar else None,
                    max_tokens=max_tokens,
                    stop=stop,
                    cancel=cancel,
                    on_token=on_token,
                )
            except ModelError as exc:
                errors.append(f"{model.name}: {exc}")
                _LOGGER.warning("model %s failed: %s", model.name, exc)
                self._fail(model, str(exc))
                continue
            if completion.finish_reason == "cancelled":
                return completion
            if not completion.text.strip():
                errors.append(f"{model.name}: empty reply")
                self._fail(model, "empty reply")
                continue
            self._breaker(model).failures = 0
            self._last = model
            return completion
        raise ModelUnavailable("; ".join(errors) or "no model configured")


def build_model(
    policy: str,
    local: ChatModel | None = None,
    remote: ChatModel | None = None,
    **options: Any,
) -> ChatModel:
    """The chat model for a configured `policy` (one of `POLICIES`).

    "local-then-remote" without a remote model (no API key) is plain local, and
    "remote-then-local" without a local model is plain remote. Options go to
    `FallbackModel`. Raises ValueError for an unknown policy or a missing backend.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    first, second = (local, remote) if policy.startswith("local") else (remote, local)
    if policy in ("local", "remote"):
        second = None
    if first is None:
        first, second = second, None
    if first is None:
        raise ValueError(f"policy {policy!r} needs a model, none was given")
    return FallbackModel(first, second, **options)
