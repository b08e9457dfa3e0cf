"""Control socket: JSON lines over a Unix socket under the runtime directory (mode 0660).

Requests, one JSON object per line, each answered by one JSON object line:

- ``{"cmd": "ask", "text": "播放西游记", "speak": true}`` → runs a text turn on the running
  service: ``{"ok": true, "answer": ..., "steps": [...], "backend": ..., "elapsed_ms": ...}``
- ``{"cmd": "status"}`` → ``{"ok": true, "state": "idle", "player": "playing", ...}``
- ``{"cmd": "inject", "text": "不是这本，是第二本"}`` → ``{"ok": true}``; the correction
  joins the running (or next) turn as an extra observation.
- ``{"cmd": "tool", "name": "get_status", "arguments": {}}`` → ``{"ok": true, "text": ...}``

Errors come back as ``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

_LOGGER = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
MAX_LINE = 64 * 1024
"""Bytes of one request line; a longer one is answered "request too long"."""
MAX_CLIENTS = 8
"""Connections served at once; more are answered "too many clients" and closed."""
IDLE_SECONDS = 5.0
"""Seconds a client may take to send its (next) request before it is disconnected."""

# The fields each command takes, with their types (bool is not accepted for a str, etc.).
FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "status": {},
    "ask": {"text": str, "speak": bool, "language": str},
    "inject": {"text": str},
    "tool": {"name": str, "arguments": dict},
}
EVICT_AFTER_SECONDS = 0.2
"""A full server drops an idle client for a new one only after this long without a request."""
REQUIRED = {"ask": ("text",), "inject": ("text",), "tool": ("name",)}


def check_request(request: Any) -> str:
    """Why `request` is not a valid control request ('' when it is).

    It must be a JSON object with a known ``cmd`` and only that command's fields, each of
    its type (see `FIELDS`); text fields must not be blank.
    """
    if not isinstance(request, dict):
        return "request must be a JSON object"
    cmd = request.get("cmd")
    if not isinstance(cmd, str) or cmd not in FIELDS:
        return f"unknown command {cmd!r} ({', '.join(FIELDS)})"
    fields = FIELDS[cmd]
    for key, value in request.items():
        if key == "cmd":
            continue
        if key not in fields:
            return f"{cmd}: unknown field {key!r} (fields: {', '.join(fields) or 'none'})"
        want = fields[key]
        if (isinstance(value, bool) and want is not bool) or not isinstance(value, want):
            kind = _TYPE_NAMES.get(getattr(want, "__name__", ""), str(want))
            return f"{cmd}: field {key!r} must be {kind}, got {_json_type(value)}"
    for key in REQUIRED.get(cmd, ()):
        if key not in request:
            return f"{cmd}: field {key!r} is required"
        if fields[key] is str and not request[key].strip():
            return f"{cmd}: field {key!r} is empty"
    return ""


_TYPE_NAMES = {"str": "a string", "bool": "true or false", "dict": "a JSON object"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "a string"


class _RateLimited:
    """At most one log line per `interval` seconds; counts what it held back."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.last = -math.inf
        self.held = 0

    def warn(self, msg: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self.last < self.interval:
            self.held += 1
            return
        more = f" (and {self.held} more in the last {now - self.last:.0f} s)" if self.held else ""
        self.last, self.held = now, 0
        _LOGGER.warning("%s%s", msg % args, more)


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ControlTarget(Protocol):
    """What the control socket drives: the public side of `device.app.App`."""

    def status(self) -> dict[str, Any]:
        """Facts for ``xiaoting status``."""
        ...

    async def ask(
        self, text: str, *, speak: bool = True, language: str | None = None
    ) -> dict[str, Any]:
        """Run a text turn and return its result (refused in a language it does not speak)."""
        ...

    def inject(self, text: str) -> dict[str, Any]:
        """Queue a correction."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call one tool."""
        ...


def handler_for(target: ControlTarget) -> Handler:
    """The request handler that checks a request and calls the matching method of `target`."""

    async def handle(request: dict[str, Any]) -> dict[str, Any]:
        problem = check_request(request)
        if problem:
            return {"ok": False, "error": problem}
        cmd = request["cmd"]
        if cmd == "status":
            return target.status()
        if cmd == "inject":
            return target.inject(request["text"].strip())
        if cmd == "ask":
            language = request.get("language")
            if language is not None:
                return await target.ask(
                    request["text"].strip(), speak=request.get("speak", True), language=language
                )
            return await target.ask(request["text"].strip(), speak=request.get("speak", True))
        return await target.call_tool(request["name"], request.get("arguments") or {})

    return handle


class ControlError(Exception):
    """The control socket cannot be reached or answered with an error."""


class NotListeningError(ControlError):
    """Nothing listens on the control socket (no such file, or refused): no service runs,
    or one is still starting (it opens the socket once its models are loaded)."""


class NotRunningError(NotListeningError):
    """There is no control socket: the service is not running. Its message says how to
    start it (`hint`, with the command as the config is used)."""

    def hint(self, command: str = "xiaoting") -> str:
        return (
            f"{self.args[0]} (start it with `{command} run`, "
            "or `sudo systemctl start xiaoting` on a device)"
        )

    def __str__(self) -> str:
        return self.hint()


def socket_path(runtime_dir: str | Path) -> Path:
    """Where the control socket of a service with this runtime directory lives."""
    return Path(runtime_dir).expanduser() / SOCKET_NAME


class ControlServer:
    """Serves `target` (an App, or a bare `Handler`) on the Unix socket `path` (mode 0660).

    At most `max_clients` connections at once: a new client takes the place of the one that
    has been idle longest, and is refused only while every connection is mid-request. A
    client has `idle_seconds` to send each request line of at most `MAX_LINE` bytes. Refusals are answered in one JSON line and
    logged at most once per second. Only the server that created the socket file removes it.
    """

    def __init__(
        self,
        path: str | Path,
        target: ControlTarget | Handler,
        *,
        max_clients: int = MAX_CLIENTS,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self.path = Path(path)
        self.handler: Handler = target if callable(target) else handler_for(target)
        self.max_clients = max_clients
        self.idle_seconds = idle_seconds
        self.refused = 0
        self.evicted = 0
        self._server: asyncio.AbstractServer | None = None
        self._clients: dict[asyncio.StreamWriter, float | None] = {}  # → idle since
        self._identity: tuple[int, int] | None = None
        self._refusals = _RateLimited()

    async def start(self) -> None:
        """Bind the socket (replacing a stale one); raises OSError when that fails.

        The caller holds the service lock (`device.lock`), so a socket file found here was
        left by a service that is gone.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        old = os.umask(0o117)
        try:
            self._server = await asyncio.start_unix_server(
                self._client, path=str(self.path), limit=MAX_LINE, backlog=self.max_clients * 4
            )
        finally:
            os.umask(old)
        os.chmod(self.path, 0o660)
        st = os.stat(self.path)
        self._identity = (st.st_dev, st.st_ino)
        _LOGGER.info("control socket at %s", self.path)

    async def _reply(self, writer: asyncio.StreamWriter, reply: dict[str, Any]) -> None:
        writer.write(json.dumps(reply, ensure_ascii=False, default=str).encode() + b"\n")
        await writer.drain()

    def _make_room(self) -> bool:
        """At the limit, drop the client that has waited longest without a request (so idle
        connections cannot lock `status` out); False when every client is mid-request."""
        if len(self._clients) < self.max_clients:
            return True
        # A client accepted a moment ago may have sent its request already (not yet read).
        grace = time.monotonic() - EVICT_AFTER_SECONDS
        idle = [(since, w) for w, since in self._clients.items() if since is not None]
        idle = [(since, w) for since, w in idle if since < grace]
        if not idle:
            return False
        _, oldest = min(idle, key=lambda pair: pair[0])
        del self._clients[oldest]
        self.evicted += 1
        self._refusals.warn(
            "control socket: %d clients connected; the longest idle one was dropped",
            self.max_clients,
        )
        with contextlib.suppress(Exception):
            oldest.write(b'{"ok": false, "error": "idle, disconnected for a new client"}\n')
            oldest.close()
        return True

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self._make_room():
            self.refused += 1
            self._refusals.warn(
                "control socket: client refused, %d clients connected", len(self._clients)
            )
            with contextlib.suppress(Exception):
                writer.write(b'{"ok": false, "error": "too many clients, try again"}\n')
                writer.close()
            return
        self._clients[writer] = time.monotonic()
        try:
            while True:
                self._clients[writer] = time.monotonic()
                try:
                    line = await asyncio.wait_for(reader.readline(), self.idle_seconds)
                except TimeoutError:
                    self._refusals.warn(
                        "control socket: client sent nothing for %.0f s, disconnected",
                        self.idle_seconds,
                    )
                    await self._reply(writer, {"ok": False, "error": "idle timeout"})
                    return
                except (asyncio.LimitOverrunError, ValueError):
                    self._refusals.warn("control socket: request over %d bytes refused", MAX_LINE)
                    await self._reply(
                        writer, {"ok": False, "error": f"request too long (over {MAX_LINE} bytes)"}
                    )
                    return
                if not line or writer not in self._clients:
                    return
                self._clients[writer] = None
                try:
                    request = json.loads(line)
                except ValueError as err:
                    reply: dict[str, Any] = {"ok": False, "error": f"bad request: {err}"}
                else:
                    try:
                        reply = await self.handler(request)
                    except asyncio.CancelledError:
                        raise
                    except Exception as err:
                        cmd = request.get("cmd") if isinstance(request, dict) else None
                        _LOGGER.exception("control request %s failed", cmd)
                        reply = {"ok": False, "error": f"{type(err).__name__}: {err}"}
                await self._reply(writer, reply)
        except ConnectionError:
            pass
        finally:
            self._clients.pop(writer, None)
            writer.close()

    def owns_socket(self) -> bool:
        """True while the socket file at `path` is the one this server created."""
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        return self._identity == (st.st_dev, st.st_ino)

    async def close(self) -> None:
        """Stop listening, end open connections and remove the socket file if it is ours."""
        if self._server is not None:
            self._server.close()
            for writer in list(self._clients):
                writer.close()  # the client's readline sees EOF and its handler returns
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None
        if self.owns_socket():
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self._identity = None


async def control_request(
    socket_path: str | Path, request: dict[str, Any], *, wait: float = 120.0
) -> dict[str, Any]:
    """Send one request to a running service and return its reply.

    Raises NotListeningError when the socket is missing or refused, ControlError when it
    times out (`wait` seconds) or the reply is not JSON. A reply with ``ok: false`` is
    returned as is.
    """
    try:
        async with asyncio.timeout(wait):
            reader, writer = await asyncio.open_unix_connection(str(socket_path), limit=MAX_LINE)
            try:
                writer.write(json.dumps(request, ensure_ascii=False).encode() + b"\n")
                await writer.drain()
                line = await reader.readline()
            finally:
                writer.close()
    except FileNotFoundError:
        raise NotRunningError(f"{socket_path}: no such socket: xiaoting is not running") from None
    except PermissionError:
        raise ControlError(f"{socket_path}: permission denied (join the service's group)") from None
    except ConnectionRefusedError:
        raise NotListeningError(f"{socket_path}: connection refused (stale socket?)") from None
    except TimeoutError:
        raise ControlError(f"{socket_path}: no answer within {wait:g} s") from None
    if not line:
        raise ControlError(f"{socket_path}: connection closed without an answer")
    try:
        return json.loads(line)
    except ValueError as err:
        raise ControlError(f"{socket_path}: bad reply: {err}") from None


async def ask(
    socket_path: str | Path, text: str, *, speak: bool = True, wait: float = 120.0
) -> dict[str, Any]:
    """Run a text turn on the service; the reply has ``answer``."""
    return await control_request(
        socket_path, {"cmd": "ask", "text": text, "speak": speak}, wait=wait
    )


async def status(socket_path: str | Path, *, wait: float = 5.0) -> dict[str, Any]:
    """The service's state (app, player, devices, counters)."""
    return await control_request(socket_path, {"cmd": "status"}, wait=wait)


async def inject(socket_path: str | Path, text: str, *, wait: float = 5.0) -> dict[str, Any]:
    """Queue a human correction into the running (or next) turn."""
    return await control_request(socket_path, {"cmd": "inject", "text": text}, wait=wait)
