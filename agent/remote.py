"""The remote chat model: an OpenAI-compatible ``/chat/completions`` API (DeepSeek) over aiohttp.

Requests stream server-sent events (``data: {...}`` lines ending with ``data: [DONE]``)
with ``stop=["Observation:"]`` so the model cannot write the framework's observations.
Reasoning output (``reasoning_content`` deltas, or ``<think>…</think>`` text) is kept
apart in `Completion.reasoning` and never returned as the answer. 429 and 5xx answers and
connection errors are retried with exponential backoff; 4xx answers are not. The API key
is sent only in the Authorization header and never logged or put in an error message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import re
import time
from typing import Any

import aiohttp

from .errors import (
    FormatError,
    ModelBudgetError,
    ModelError,
    ModelTimeout,
    ModelUnavailable,
    RemoteHTTPError,
)
from .models import Completion, Message, TokenCallback, tool_name_from_api
from .parse import parse, strip_labels, strip_reasoning

_LOGGER = logging.getLogger(__name__)

__all__ = ["RemoteModel"]

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


_REASONING_NAMES = re.compile(r"reason|think|\br1\b|-r1|qwq|\bo[134]\b|o[134]-", re.IGNORECASE)
_TOOL_CALL_MODELS = ("deepseek-chat",)
_OBSERVATION = re.compile(r"^[ \t*_>#]*observation[ \t*_]*[:：]", re.IGNORECASE | re.MULTILINE)


class RemoteModel:
    """An OpenAI-compatible chat model reached over HTTP (DeepSeek by default).

    `base_url` like ``https://api.deepseek.com`` (``/chat/completions`` is appended;
    a trailing ``/v1`` is kept); `model` e.g. ``deepseek-chat`` (the non-thinking model,
    preferred because thinking makes replies slow).

    Time limits, in seconds: `connect_timeout` per connection attempt; `first_token_timeout`
    until the first token (reasoning or answer) of a reply, and also the longest silence
    between two chunks of a stream (a server that stalls before its headers or mid-stream);
    `total_timeout` for the whole `complete` call, retries and backoff included (it is the
    model's `budget`). `max_retries` extra attempts on 429/5xx/connection errors while time
    is left, with backoff starting at `backoff` seconds (``Retry-After`` honoured up to
    `max_backoff`); timeouts are not retried.

    Reasoning models: `reasoning` True/False says whether the model thinks before answering
    (None: guessed from the model name and learnt from ``reasoning_content`` in replies);
    no stop sequences are sent to them, and an invented Observation is cut here instead.
    A reply that ends with ``finish_reason: "length"`` without an Action or Final Answer is
    asked again once with ``max_tokens`` doubled (at least 1024, at most
    `max_tokens_ceiling`); if that too runs out, ModelBudgetError.

    Native tool calls: `tool_calls` True sends the registry as OpenAI ``tools`` (when the
    caller passes them) and reads ``tool_calls`` from the reply, written back into `text`
    as ``Thought / Action / Action Input`` (None: on for ``deepseek-chat`` only).

    A `session` may be injected; otherwise one is created on first use and closed by
    `close()`.
    """

    supports_grammar = False

    def __init__(
        self,
        *,
        base_url: str = "https://api.deepseek.com",
        api_key: str = "",
        model: str = "deepseek-chat",
        connect_timeout: float = 5.0,
        first_token_timeout: float = 15.0,
        total_timeout: float = 30.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        temperature: float = 0.0,
        max_tokens: int = 256,
        max_tokens_ceiling: int = 4096,
        reasoning: bool | None = None,
        tool_calls: bool | None = None,
        n_ctx: int | None = 32768,
        name: str = "remote",
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._api_key = api_key
        self.model = model
        self.connect_timeout = connect_timeout
        self.first_token_timeout = first_token_timeout
        self.total_timeout = total_timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_tokens_ceiling = max(max_tokens, max_tokens_ceiling)
        self.reasoning = bool(_REASONING_NAMES.search(model)) if reasoning is None else reasoning
        self._reasoning_fixed = reasoning is not None
        self.tool_calls = model in _TOOL_CALL_MODELS if tool_calls is None else tool_calls
        self.n_ctx = n_ctx
        self.name = name
        self._session = session
        self._own_session = session is None

    def __repr__(self) -> str:  # never show the key
        return f"RemoteModel(url={self.url!r}, model={self.model!r})"

    @property
    def budget(self) -> float:
        """Seconds one `complete` call may take (`total_timeout`), for the fallback chain."""
        return self.total_timeout

    @property
    def supports_tools(self) -> bool:
        """True when native tool calls are on (`tool_calls`)."""
        return self.tool_calls

    async def close(self) -> None:
        """Close the HTTP session if this model created it (safe to call twice)."""
        session, self._session = self._session, None
        if session is not None and self._own_session and not session.closed:
            await session.close()

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
            self._own_session = True
        return self._session

    def _scrub(self, text: str) -> str:
        if self._api_key and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text

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
        """Stream one reply within `total_timeout`; see `ChatModel.complete`.

        `grammar` is ignored; `tools` (OpenAI specs) are sent when `tool_calls` is on.
        Raises ModelUnavailable without an API key, RemoteHTTPError for an HTTP error
        status (after retries for 429/5xx), ModelTimeout when the server stalls or the
        budget runs out, ModelBudgetError when the token budget runs out twice, and
        ModelError for a broken or unreadable stream.
        """
        if not self._api_key:
            raise ModelUnavailable("no API key configured for the remote model")
        deadline = time.monotonic() + self.total_timeout
        limit = max_tokens or self.max_tokens
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "temperature": self.temperature,
            "max_tokens": limit,
        }
        if not self.reasoning:
            body["stop"] = stop or ["Observation:"]
        if tools and self.tool_calls:
            body["tools"] = tools
        completion = await self._cancellable(body, deadline, cancel, on_token)
        if (
            completion.finish_reason == "length"
            and not completion.tool_calls
            and not _decides(completion.text)
        ):
            bigger = min(self.max_tokens_ceiling, max(limit * 2, 1024))
            if bigger <= limit:
                raise ModelBudgetError(
                    f"the reply ran out of its {limit} tokens without an Action or Final Answer"
                )
            _LOGGER.warning(
                "remote model: %d tokens spent without an answer%s; asking again with %d",
                limit,
                " (reasoning)" if completion.reasoning else "",
                bigger,
            )
            body["max_tokens"] = bigger
            if self.reasoning:  # learnt from this reply: its thinking may hold stop words
                body.pop("stop", None)
            completion = await self._cancellable(body, deadline, cancel, on_token)
            if (
                completion.finish_reason == "length"
                and not completion.tool_calls
                and not _decides(completion.text)
            ):
                raise ModelBudgetError(
                    f"the reply ran out of {bigger} tokens without an Action or Final Answer"
                )
        return completion

    async def _cancellable(
        self,
        body: dict[str, Any],
        deadline: float,
        cancel: asyncio.Event | None,
        on_token: TokenCallback | None,
    ) -> Completion:
        """`_with_retries`, returned early as "cancelled" when `cancel` is set even while
        the server sends nothing (a barge-in during a stall does not wait for the timeout)."""
        if cancel is None:
            return await self._with_retries(body, deadline, cancel, on_token)
        request = asyncio.ensure_future(self._with_retries(body, deadline, cancel, on_token))
        waiter = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({request, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            if not request.done():
                request.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await request
        if request.done() and not request.cancelled():
            return request.result()
        return Completion(text="", backend=self.name, finish_reason="cancelled")

    async def _with_retries(
        self,
        body: dict[str, Any],
        deadline: float,
        cancel: asyncio.Event | None,
        on_token: TokenCallback | None,
    ) -> Completion:
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0.05:
                raise ModelTimeout(f"no reply within {self.total_timeout:g} s")
            try:
                async with asyncio.timeout(remaining):
                    return await self._attempt(body, remaining, cancel, on_token)
            except TimeoutError:
                raise ModelTimeout(f"no complete reply within {self.total_timeout:g} s") from None
            except (RemoteHTTPError, _Retryable) as exc:
                retryable = isinstance(exc, _Retryable) or (
                    isinstance(exc, RemoteHTTPError) and exc.status in _RETRY_STATUS
                )
                delay = min(self.max_backoff, self.backoff * (2**attempt))
                delay *= 1.0 + random.random() * 0.25
                retry_after = getattr(exc, "retry_after", None)
                if retry_after is not None:
                    delay = min(self.max_backoff, max(delay, retry_after))
                no_time = time.monotonic() + delay >= deadline - 0.05
                if not retryable or attempt >= self.max_retries or no_time:
                    if isinstance(exc, _Retryable):
                        raise ModelError(str(exc)) from None
                    raise
                attempt += 1
                _LOGGER.warning(
                    "remote model: %s; retry %d/%d in %.1f s",
                    self._scrub(str(exc)),
                    attempt,
                    self.max_retries,
                    delay,
                )
                await asyncio.sleep(delay)

    async def _attempt(
        self,
        body: dict[str, Any],
        remaining: float,
        cancel: asyncio.Event | None,
        on_token: TokenCallback | None,
    ) -> Completion:
        start = time.perf_counter()
        timeout = aiohttp.ClientTimeout(
            total=remaining,
            sock_connect=self.connect_timeout,
            connect=self.connect_timeout,
            sock_read=self.first_token_timeout,
        )
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        }
        state = _StreamState()
        try:
            async with self._session_now().post(
                self.url, json=body, headers=headers, timeout=timeout
            ) as response:
                if response.status != 200:
                    detail = self._scrub((await response.text())[:200])
                    error = RemoteHTTPError(response.status, _error_message(detail))
                    retry_after = response.headers.get("Retry-After")
                    if retry_after and retry_after.replace(".", "", 1).isdigit():
                        error.retry_after = float(retry_after)  # type: ignore[attr-defined]
                    raise error
                content_type = response.headers.get("Content-Type", "")
                if "text/event-stream" not in content_type:
                    payload = await response.text()
                    state.feed_whole(payload)
                else:
                    async for raw in response.content:
                        if cancel is not None and cancel.is_set():
                            state.finish_reason = "cancelled"
                            break
                        if state.feed_line(raw.decode("utf-8", "replace"), on_token):
                            if state.first_ms is None:
                                state.first_ms = (time.perf_counter() - start) * 1000.0
                        elif state.first_ms is None and (state.reasoning or state.calls()):
                            state.first_ms = (time.perf_counter() - start) * 1000.0
                        if (
                            state.first_ms is None
                            and time.perf_counter() - start > self.first_token_timeout
                        ):  # keep-alive comments only: the model has not started
                            raise ModelTimeout(
                                f"no first token within {self.first_token_timeout:g} s"
                            )
                        if state.done:
                            break
        except TimeoutError:
            if time.perf_counter() - start >= remaining - 0.05:
                raise ModelTimeout(f"no complete reply within {self.total_timeout:g} s") from None
            what = "first token" if state.first_ms is None else "next chunk"
            raise ModelTimeout(
                f"the server stalled: no {what} within {self.first_token_timeout:g} s"
            ) from None
        except aiohttp.ClientResponseError as exc:
            raise RemoteHTTPError(exc.status, self._scrub(exc.message)) from None
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
            if state.text and not state.done:
                raise _Retryable(f"stream broke after {len(state.text)} characters") from None
            raise _Retryable(f"connection failed: {type(exc).__name__}") from None
        if state.finish_reason != "cancelled" and not state.done and not state.whole:
            raise _Retryable("stream ended without [DONE] or a finish reason")
        if state.reasoning and not self._reasoning_fixed and not self.reasoning:
            _LOGGER.info("remote model %s reasons before answering: no stop sequences", self.model)
            self.reasoning = True
        content = state.text
        answer = strip_reasoning(content)
        reasoning = state.reasoning
        if answer != content:
            reasoning += content[: len(content) - len(answer)]
            if not answer.strip() and not state.reasoning:
                # Only a <think> block: the parser may recover a reply written inside it.
                answer = content
        match = _OBSERVATION.search(answer)
        if match:  # the model wrote the framework's Observation (no stop sequence sent)
            answer = answer[: match.start()]
        calls = tuple(state.calls())
        if calls:
            answer = _react_text(answer, calls[0])
        return Completion(
            text=answer.strip(),
            backend=self.name,
            prompt_tokens=state.prompt_tokens,
            completion_tokens=state.completion_tokens or len(state.pieces),
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
            first_token_ms=state.first_ms,
            finish_reason=state.finish_reason,
            reasoning=reasoning,
            tool_calls=calls,
        )


def _decides(text: str) -> bool:
    """True when `text` holds an Action or a Final Answer the parser can read."""
    try:
        parse(text)
    except FormatError:
        return False
    return True


def _react_text(content: str, call: dict[str, Any]) -> str:
    """A native tool call written in the ReAct format (the content, if any, as Thought)."""
    thought = " ".join(strip_labels(content).split()) or "-"
    arguments = call.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments or {}, ensure_ascii=False)
    name = tool_name_from_api(str(call.get("name") or ""))
    return f"Thought: {thought}\nAction: {name}\nAction Input: {arguments.strip() or '{}'}"


class _Retryable(ModelError):
    """A transport problem worth another attempt."""


def _error_message(detail: str) -> str:
    try:
        value = json.loads(detail)
        error = value.get("error", value)
        if isinstance(error, dict):
            return str(error.get("message") or error)[:200]
        return str(error)[:200]
    except (ValueError, AttributeError):
        return detail[:200] or "no detail"


class _StreamState:
    """Accumulates one streamed (or whole) chat completion."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.reasoning = ""
        self.done = False
        self.whole = False
        self.finish_reason = "stop"
        self.first_ms: float | None = None
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.garbage = 0
        self._calls: dict[int, dict[str, Any]] = {}

    def add_calls(self, calls: Any) -> None:
        """Merge OpenAI ``tool_calls`` (whole, or stream deltas keyed by ``index``)."""
        if not isinstance(calls, list):
            return
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                continue
            index = call.get("index", position)
            index = index if isinstance(index, int) else position
            slot = self._calls.setdefault(index, {"name": "", "arguments": ""})
            function = call.get("function") or {}
            if not isinstance(function, dict):
                continue
            if function.get("name"):
                slot["name"] += str(function["name"])
            arguments = function.get("arguments")
            if isinstance(arguments, dict):
                slot["arguments"] = json.dumps(arguments, ensure_ascii=False)
            elif arguments:
                slot["arguments"] += str(arguments)

    def calls(self) -> list[dict[str, Any]]:
        """The tool calls read so far, in index order (those with a name)."""
        return [self._calls[i] for i in sorted(self._calls) if self._calls[i]["name"]]

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    def _usage(self, value: dict[str, Any]) -> None:
        usage = value.get("usage") or {}
        if isinstance(usage, dict):
            self.prompt_tokens = int(usage.get("prompt_tokens") or self.prompt_tokens)
            self.completion_tokens = int(usage.get("completion_tokens") or self.completion_tokens)

    def feed_line(self, line: str, on_token: TokenCallback | None) -> bool:
        """Read one SSE line; True when it carried answer text."""
        line = line.strip()
        if not line or line.startswith(":") or not line.startswith("data:"):
            return False
        data = line[5:].strip()
        if data == "[DONE]":
            self.done = True
            return False
        try:
            value = json.loads(data)
        except ValueError:
            self.garbage += 1
            if self.garbage > 3:
                raise ModelError("the stream holds data that is not JSON") from None
            return False
        if not isinstance(value, dict):
            raise ModelError("the stream holds JSON that is not a chat completion chunk")
        if "error" in value:
            raise ModelError(f"the stream reports an error: {_error_message(json.dumps(value))}")
        self._usage(value)
        choices = value.get("choices") or []
        if not choices:
            return False
        choice = choices[0]
        delta = choice.get("delta") or {}
        if choice.get("finish_reason"):
            self.finish_reason = "length" if choice["finish_reason"] == "length" else "stop"
            self.done = True
        if delta.get("reasoning_content"):
            self.reasoning += delta["reasoning_content"]
        if delta.get("tool_calls"):
            self.add_calls(delta["tool_calls"])
        piece = delta.get("content")
        if piece:
            self.pieces.append(piece)
            if on_token is not None:
                on_token(piece)
            return True
        return False

    def feed_whole(self, payload: str) -> None:
        """Read a non-streamed JSON completion (some servers ignore ``stream``)."""
        try:
            value = json.loads(payload)
            message = value["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(
                "the response is neither an event stream nor a chat completion"
            ) from None
        self._usage(value)
        self.reasoning += message.get("reasoning_content") or ""
        self.pieces.append(message.get("content") or "")
        self.add_calls(message.get("tool_calls"))
        self.finish_reason = value["choices"][0].get("finish_reason") or "stop"
        if self.finish_reason not in ("stop", "length"):
            self.finish_reason = "stop"
        self.whole = True
        self.done = True
