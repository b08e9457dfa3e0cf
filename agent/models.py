"""Chat models behind one small Protocol: scripted (tests), fallback chain, factory.

A chat model takes OpenAI-style messages (``[{"role": "system"|"user"|"assistant",
"content": str}]``) and returns one `Completion`. The local llama.cpp model lives in
`agent.local`, the remote OpenAI-compatible one (DeepSeek) in `agent.remote`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .errors import CircuitOpen, FormatError, ModelError, ModelTimeout, ModelUnavailable

_LOGGER = logging.getLogger(__name__)

__all__ = [
    "POLICIES",
    "ChatModel",
    "Completion",
    "FallbackModel",
    "ScriptedModel",
    "build_model",
    "close_agent_models",
    "close_model",
    "estimate_tokens",
    "model_options",
    "openai_tools",
    "start_turn",
    "step_budget",
]

Message = dict[str, str]
TokenCallback = Callable[[str], None]


@dataclass(frozen=True)
class Completion:
    """One model reply.

    `text` is the answer text only (reasoning output removed, kept apart in `reasoning`).
    `finish_reason` is "stop", "length" or "cancelled". `tool_calls` holds native OpenAI
    tool calls (``{"name", "arguments"}``) when the API returned them; `text` then holds
    the same call written in the ReAct format, so every caller reads one format. Times are
    milliseconds from the request; `cached_tokens` is how many prompt tokens were reused from the KV cache.
    `completion_tokens` counts every token of the reply, of which `forced_tokens` were
    appended in batches because the grammar admitted nothing else (jump-forward decoding);
    `decoded_tokens` is the rest, one model step each. `prefill_ms` is the prompt's
    evaluation (0 when unknown).
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
    tool_calls: tuple[dict[str, Any], ...] = ()
    forced_tokens: int = 0
    prefill_ms: float = 0.0

    @property
    def decoded_tokens(self) -> int:
        """Tokens the model chose one step at a time (`completion_tokens` - `forced_tokens`)."""
        return max(0, self.completion_tokens - self.forced_tokens)

    @property
    def prefill_tokens(self) -> int:
        """Prompt tokens evaluated for this reply (not reused from the KV cache)."""
        return max(0, self.prompt_tokens - self.cached_tokens)


@runtime_checkable
class ChatModel(Protocol):
    """What the agent needs from a chat model.

    `name` labels the backend in traces ("local", "remote", ...). `supports_grammar` says
    whether a GBNF grammar passed to `complete` is applied (others ignore it). `n_ctx` is
    the context size in tokens (None when unknown). `complete` raises ModelError (or a
    subclass) when no reply can be produced; on `cancel` it returns early with
    ``finish_reason="cancelled"``. `close()` (async) frees what the model holds (an HTTP
    session, model memory); the one owner of the models calls it at shutdown. Backends
    that read OpenAI ``tools`` (native tool calls) say so with ``supports_tools = True``
    and accept ``tools=`` in `complete`.
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

    async def close(self) -> None: ...


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
        self.closed = False
        self._queue: deque[Any] = deque(replies or [])

    async def close(self) -> None:
        """Nothing to free; records that it was called (`closed`)."""
        self.closed = True

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
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """Pop the next queued reply; raises ModelError when the queue is empty.

        A queued coroutine function is awaited with the messages (to stall in tests).
        """
        start = time.perf_counter()
        self.history.append(
            {
                "messages": [dict(m) for m in messages],
                "grammar": grammar,
                "max_tokens": max_tokens,
                "tools": tools,
            }
        )
        if not self._queue:
            raise ModelError("scripted model has no reply queued")
        reply = self._queue.popleft()
        if isinstance(reply, BaseException):
            raise reply
        if inspect.iscoroutinefunction(reply):
            reply = await reply(messages)
        elif callable(reply):
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
    half_open: bool = False
    format_errors: int = 0


@dataclass
class FallbackModel:
    """Try `primary`, then `secondary` on failure, with a circuit breaker per backend.

    Each backend has its own time budget: a backend's ``budget`` attribute (seconds, e.g.
    `RemoteModel.total_timeout`) or else `step_timeout`; a backend that overruns it is
    stopped and counts as failed, and the next one starts with its own budget intact.
    A backend falls back on a ModelError (load failure, HTTP error, timeout), on an empty
    reply, or after `max_format_errors` format errors in a row reported through
    `report_format_error` (once the caller reports parse results, only a reply that parsed,
    `report_ok`, counts as a success). After `breaker_failures` consecutive failures a backend is
    skipped for `breaker_seconds` seconds (no request at all, even when it is the only
    backend: then `CircuitOpen` is raised); after the cool-down one request probes it, and
    a failed probe opens the circuit again at once. A backend that failed during a turn
    (see `start_turn`; without it, for `turn_seconds`) is not asked again in that turn
    while another backend is usable. `clock` (monotonic seconds) is
    injectable for tests. The Completion's `backend` names the model that produced it.
    """

    primary: ChatModel
    secondary: ChatModel | None = None
    breaker_failures: int = 2
    breaker_seconds: float = 60.0
    max_format_errors: int = 2
    step_timeout: float | None = None
    clock: Callable[[], float] = time.monotonic
    name: str = "fallback"
    _state: dict[str, _Breaker] = field(default_factory=dict, repr=False)
    _last: ChatModel | None = field(default=None, repr=False)
    turn_seconds: float = 60.0
    _loop_step: float | None = field(default=None, repr=False)
    _feedback: bool = field(default=False, repr=False)
    _failed_in_turn: dict[int, float] = field(default_factory=dict, repr=False)

    @property
    def supports_grammar(self) -> bool:
        """True when any backend applies grammars (each backend ignores what it can't use)."""
        return any(m.supports_grammar for m in self._models())

    @property
    def supports_tools(self) -> bool:
        """True when any backend reads OpenAI ``tools`` (native tool calls)."""
        return any(getattr(m, "supports_tools", False) for m in self._models())

    @property
    def n_ctx(self) -> int | None:
        """The smallest known context size among the backends."""
        sizes = [m.n_ctx for m in self._models() if m.n_ctx]
        return min(sizes) if sizes else None

    @property
    def models(self) -> list[ChatModel]:
        """The backends in the order they are tried."""
        return self._models()

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

    def budget_of(self, model: ChatModel, step_timeout: float | None = None) -> float | None:
        """Seconds `model` may take for one reply: its own ``budget``, else the step's."""
        own = getattr(model, "budget", None)
        if isinstance(own, int | float) and own > 0:
            return float(own)
        if step_timeout is not None:
            return step_timeout
        return self.step_timeout if self.step_timeout is not None else self._loop_step

    def chain_timeout(self, step_timeout: float) -> float:
        """Seconds the whole chain may take for one step when each backend has its budget
        (a backend without its own gets `step_timeout`); for an outer safety limit."""
        self._loop_step = step_timeout  # the budget of backends without one of their own
        total = 0.0
        for model in self._models():
            total += self.budget_of(model) or step_timeout
        return total + 1.0

    def start_turn(self) -> None:
        """A new turn begins: backends that failed in the last turn may be asked again."""
        self._failed_in_turn.clear()

    def _failed_recently(self, model: ChatModel) -> bool:
        failed = self._failed_in_turn.get(id(model))
        return failed is not None and self.clock() - failed < self.turn_seconds

    def _breaker(self, model: ChatModel) -> _Breaker:
        return self._state.setdefault(f"{id(model)}", _Breaker())

    def is_open(self, model: ChatModel) -> bool:
        """True while `model`'s circuit breaker keeps it out of use."""
        breaker = self._breaker(model)
        if breaker.open_until > self.clock():
            return True
        if breaker.open_until:  # the cool-down is over: the next request is a probe
            breaker.open_until = 0.0
            breaker.half_open = True
        return False

    def _fail(self, model: ChatModel, reason: str) -> None:
        breaker = self._breaker(model)
        breaker.failures += 1
        self._failed_in_turn[id(model)] = self.clock()
        if breaker.failures >= self.breaker_failures or breaker.half_open:
            breaker.open_until = self.clock() + self.breaker_seconds
            breaker.failures = 0
            breaker.half_open = False
            self._failed_in_turn.pop(id(model), None)  # the breaker keeps it out now
            _LOGGER.warning(
                "model %s: circuit open for %.0f s (%s)", model.name, self.breaker_seconds, reason
            )

    def _succeed(self, model: ChatModel) -> None:
        breaker = self._breaker(model)
        if breaker.half_open:
            _LOGGER.info("model %s: circuit closed again", model.name)
        breaker.failures = 0
        breaker.half_open = False

    def report_format_error(self, backend: str, error: FormatError) -> None:
        """Count a format error by `backend`; too many in a row count as a failure."""
        self._feedback = True
        for model in self._models():
            if model.name == backend:
                breaker = self._breaker(model)
                breaker.format_errors += 1
                if breaker.format_errors >= self.max_format_errors:
                    breaker.format_errors = 0
                    self._fail(model, f"repeated format errors: {error.reason}")

    def report_ok(self, backend: str) -> None:
        """A reply from `backend` parsed: it counts as a success (failures and format
        errors reset; a probe after the cool-down closes the circuit)."""
        self._feedback = True
        for model in self._models():
            if model.name == backend:
                self._breaker(model).format_errors = 0
                self._succeed(model)

    async def close(self) -> None:
        """Close every backend (the remote HTTP session; the local model's memory)."""
        for model in self._models():
            await close_model(model)

    async def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        cancel: asyncio.Event | None = None,
        on_token: TokenCallback | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """Ask the first usable backend, each within its own budget.

        Raises CircuitOpen (no request sent) when every backend's circuit is open, and
        ModelUnavailable when every backend asked failed. `tools` (OpenAI tool specs) go
        only to backends with ``supports_tools``.
        """
        errors: list[str] = []
        models = self._models()
        resting = [m for m in models if self.is_open(m)]
        if len(resting) == len(models):
            now = self.clock()
            retry_in = min(self._breaker(m).open_until for m in resting) - now
            raise CircuitOpen([m.name for m in resting], max(0.0, retry_in))
        awake = [m for m in models if m not in resting]
        # One that failed earlier in this turn is asked again only when no other is left.
        usable = [m for m in awake if not self._failed_recently(m)] or awake
        errors.extend(f"{m.name}: circuit open" for m in resting)
        errors.extend(f"{m.name}: failed earlier in this turn" for m in awake if m not in usable)
        for model in usable:
            options: dict[str, Any] = {}
            if tools and getattr(model, "supports_tools", False):
                options["tools"] = tools
            budget = self.budget_of(model)
            started = self.clock()
            try:
                call = model.complete(
                    messages,
                    grammar=grammar if model.supports_grammar else None,
                    max_tokens=max_tokens,
                    stop=stop,
                    cancel=cancel,
                    on_token=on_token,
                    **options,
                )
                if budget is None:
                    completion = await call
                else:
                    # A backend with its own timer (the remote) gets a second of grace.
                    grace = 1.0 if getattr(model, "budget", None) else 0.0
                    try:
                        completion = await asyncio.wait_for(call, budget + grace)
                    except TimeoutError:
                        raise ModelTimeout(f"no reply within {budget:g} s") from None
            except ModelError as exc:
                errors.append(f"{model.name}: {exc}")
                _LOGGER.warning(
                    "model %s failed after %.1f s: %s", model.name, self.clock() - started, exc
                )
                self._fail(model, str(exc))
                continue
            if completion.finish_reason == "cancelled":
                return completion
            if not completion.text.strip():
                errors.append(f"{model.name}: empty reply")
                self._fail(model, "empty reply")
                continue
            if not self._feedback:  # nobody reports parse results: a reply is a success
                self._succeed(model)
            self._last = model
            return completion
        raise ModelUnavailable("; ".join(errors) or "no model configured")


async def close_model(model: Any) -> None:
    """Close one chat model, whether its ``close()`` is async (remote) or blocking (local,
    run in a worker thread); errors are logged, never raised, so shutdown goes on."""
    close = getattr(model, "close", None)
    if close is None:
        return
    try:
        if inspect.iscoroutinefunction(close):
            await close()
        else:
            result = await asyncio.to_thread(close)
            if inspect.isawaitable(result):
                await result
    except Exception:
        _LOGGER.exception("could not close model %s", getattr(model, "name", model))


def step_budget(model: Any, step_timeout: float) -> float:
    """Seconds the agent's loop waits for one step of `model`: `step_timeout`, or for a
    fallback chain the sum of its backends' own budgets, so the outer limit never cuts
    off a fallback that still has time of its own."""
    chain = getattr(model, "chain_timeout", None)
    return chain(step_timeout) if callable(chain) else step_timeout


def start_turn(model: Any) -> None:
    """Tell `model` a new turn begins (a fallback chain forgets this turn's failures)."""
    begin = getattr(model, "start_turn", None)
    if callable(begin):
        begin()


def model_options(model: Any, tools: Iterable[Any]) -> dict[str, Any]:
    """Extra keyword arguments for `model.complete`: ``tools`` (OpenAI specs) when the model
    reads native tool calls, else nothing."""
    if getattr(model, "supports_tools", False):
        return {"tools": openai_tools(tools)}
    return {}


async def close_agent_models(agent: Any, timeout: float = 5.0) -> None:
    """Close the chat model(s) of `agent` (an `Agent`, or a wrapper holding one as
    ``.agent``) within `timeout` seconds; for the device's shutdown path."""
    seen = 0
    while agent is not None and getattr(agent, "model", None) is None and seen < 4:
        agent, seen = getattr(agent, "agent", None), seen + 1
    model = getattr(agent, "model", None)
    if model is None:
        return
    try:
        await asyncio.wait_for(close_model(model), timeout)
        _LOGGER.info("language model closed")
    except TimeoutError:
        _LOGGER.warning("language model did not close within %.0f s", timeout)


def openai_tools(tools: Iterable[Any]) -> list[dict[str, Any]]:
    """OpenAI ``tools`` specs from registry tools (objects with `name`, `description`,
    `parameters`): ``[{"type": "function", "function": {"name", "description",
    "parameters"}}]``. Dots in names (MCP ``server.tool``) become ``__``, as the API
    allows only ``[A-Za-z0-9_-]``; `tool_name_from_api` reverses it. ``x-`` extension keys
    (``x-role``) are left out of the schemas."""
    specs = []
    for tool in tools:
        parameters = _plain_schema(tool.parameters or {})
        parameters.setdefault("type", "object")
        parameters.setdefault("properties", {})
        specs.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name.replace(".", "__"),
                    "description": (tool.description or "")[:1000],
                    "parameters": parameters,
                },
            }
        )
    return specs


def _plain_schema(value: Any) -> Any:
    """A JSON Schema without ``x-`` extension keys (some APIs reject what they don't know)."""
    if isinstance(value, dict):
        return {k: _plain_schema(v) for k, v in value.items() if not str(k).startswith("x-")}
    if isinstance(value, list):
        return [_plain_schema(v) for v in value]
    return value


def tool_name_from_api(name: str) -> str:
    """The registry name of a tool named `name` in an OpenAI tool call."""
    return name.replace("__", ".")


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
