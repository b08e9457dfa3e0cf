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
import json
import logging
import random
import time
from typing import Any

import aiohttp

from .errors import ModelError, ModelTimeout, ModelUnavailable, RemoteHTTPError
from .models import Completion, Message, TokenCallback
from .parse import strip_reasoning

_LOGGER = logging.getLogger(__name__)

__all__ = ["RemoteModel"]

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class RemoteModel:
    """An OpenAI-compatible chat model reached over HTTP (DeepSeek by default).

    `base_url` like ``https://api.deepseek.com`` (``/chat/completions`` is appended;
    a trailing ``/v1`` is kept); `model` e.g. ``deepseek-chat`` (the non-thinking model,
    preferred because thinking makes replies slow). `connect_timeout` and `total_timeout`
    are seconds per attempt; `max_retries` extra attempts on 429/5xx/connection errors
    with backoff starting at `backoff` seconds (``Retry-After`` honoured up to
    `max_backoff`). A `session` may be injected; otherwise one is created and closed by
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
        total_timeout: float = 30.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        temperature: float = 0.0,
        max_tokens: int = 256,
        n_ctx: int | None = 32768,
        name: str = "remote",
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._api_key = api_key
        self.model = model
        self.connect_timeout = connect_timeout
        self.total_timeout = total_timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.n_ctx = n_ctx
        self.name = name
        self._session = session
        self._own_session = session is None

    def __repr__(self) -> str:  # never show the key
        return f"RemoteModel(url={self.url!r}, model={self.model!r})"

    async def close(self) -> None:
        """Close the HTTP session if this model created it."""
        if self._session is not None and self._own_session:
            await self._session.close()
            self._session = None

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
    ) -> Completion:
        """Stream one reply; see `ChatModel.complete`. `grammar` is ignored.

        Raises ModelUnavailable without an API key, RemoteHTTPError for an HTTP error
        status (after retries for 429/5xx), ModelTimeout when an attempt exceeds its time
        limit, and ModelError for a broken or unreadable stream.
        """
        if not self._api_key:
            raise ModelUnavailable("no API key configured for the remote model")
        body = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "temperature": self.temperature,
            "max_tokens": max_tokens or self.max_tokens,
            "stop": stop or ["Observation:"],
        }
        attempt = 0
        while True:
            try:
                return await self._attempt(body, cancel, on_token)
            except (RemoteHTTPError, _Retryable) as exc:
                retryable = isinstance(exc, _Retryable) or (
                    isinstance(exc, RemoteHTTPError) and exc.status in _RETRY_STATUS
                )
                if not retryable or attempt >= self.max_retries:
                    if isinstance(exc, _Retryable):
                        raise ModelError(str(exc)) from None
                    raise
                delay = min(self.max_backoff, self.backoff * (2**attempt))
                delay *= 1.0 + random.random() * 0.25
                retry_after = getattr(exc, "retry_after", None)
                if retry_after is not None:
                    delay = min(self.max_backoff, max(delay, retry_after))
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
        cancel: asyncio.Event | None,
        on_token: TokenCallback | None,
    ) -> Completion:
        start = time.perf_counter()
        timeout = aiohttp.ClientTimeout(
            total=self.total_timeout,
            sock_connect=self.connect_timeout,
            connect=self.connect_timeout,
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
                        if state.done:
                            break
        except TimeoutError as exc:
            raise ModelTimeout(f"no complete reply within {self.total_timeout:g} s") from exc
        except aiohttp.ClientResponseError as exc:
            raise RemoteHTTPError(exc.status, self._scrub(exc.message)) from None
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
            if state.text and not state.done:
                raise _Retryable(f"stream broke after {len(state.text)} characters") from None
            raise _Retryable(f"connection failed: {type(exc).__name__}") from None
        if state.finish_reason != "cancelled" and not state.done and not state.whole:
            raise _Retryable("stream ended without [DONE] or a finish reason")
        answer = strip_reasoning(state.text)
        reasoning = state.reasoning
        if answer != state.text:
            reasoning += state.text[: len(state.text) - len(answer)]
        return Completion(
            text=answer.strip(),
            backend=self.name,
            prompt_tokens=state.prompt_tokens,
            completion_tokens=state.completion_tokens or len(state.pieces),
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
            first_token_ms=state.first_ms,
            finish_reason=state.finish_reason,
            reasoning=reasoning,
        )


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
        self.finish_reason = value["choices"][0].get("finish_reason") or "stop"
        if self.finish_reason not in ("stop", "length"):
            self.finish_reason = "stop"
        self.whole = True
        self.done = True
