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
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

_LOGGER = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
MAX_LINE = 64 * 1024

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ControlTarget(Protocol):
    """What the control socket drives: the public side of `device.app.App`."""

    def status(self) -> dict[str, Any]:
        """Facts for ``xiaoting status``."""
        ...

    async def ask(self, text: str, *, speak: bool = True) -> dict[str, Any]:
        """Run a text turn and return its result."""
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
        cmd = request.get("cmd")
        if cmd == "status":
            return target.status()
        if cmd == "inject":
            text = str(request.get("text", "")).strip()
            if not text:
                return {"ok": False, "error": "inject needs text"}
            return target.inject(text)
        if cmd == "ask":
            text = str(request.get("text", "")).strip()
            if not text:
                return {"ok": False, "error": "ask needs text"}
            return await target.ask(text, speak=bool(request.get("speak", True)))
        if cmd == "tool":
            name = str(request.get("name", ""))
            arguments = request.get("arguments") or {}
            if not isinstance(arguments, dict):
                return {"ok": False, "error": f"no tool {name!r} or arguments not an object"}
            return await target.call_tool(name, arguments)
        return {"ok": False, "error": f"unknown command {cmd!r} (ask, status, inject, tool)"}

    return handle


class ControlError(Exception):
    """The control socket cannot be reached or answered with an error."""


def socket_path(runtime_dir: str | Path) -> Path:
    """Where the control socket of a service with this runtime directory lives."""
    return Path(runtime_dir).expanduser() / SOCKET_NAME


class ControlServer:
    """Serves `target` (an App, or a bare `Handler`) on the Unix socket `path` (mode 0660)."""

    def __init__(self, path: str | Path, target: ControlTarget | Handler) -> None:
        self.path = Path(path)
        self.handler: Handler = target if callable(target) else handler_for(target)
        self._server: asyncio.AbstractServer | None = None
        self._clients: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        """Bind the socket (replacing a stale one); raises OSError when that fails."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        old = os.umask(0o117)
        try:
            self._server = await asyncio.start_unix_server(
                self._client, path=str(self.path), limit=MAX_LINE
            )
        finally:
            os.umask(old)
        os.chmod(self.path, 0o660)
        _LOGGER.info("control socket at %s", self.path)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._clients.add(writer)
        try:
            while line := await reader.readline():
                try:
                    request = json.loads(line)
                    if not isinstance(request, dict):
                        raise ValueError("request must be a JSON object")
                except ValueError as err:
                    reply: dict[str, Any] = {"ok": False, "error": f"bad request: {err}"}
                else:
                    try:
                        reply = await self.handler(request)
                    except asyncio.CancelledError:
                        raise
                    except Exception as err:
                        _LOGGER.exception("control request %s failed", request.get("cmd"))
                        reply = {"ok": False, "error": f"{type(err).__name__}: {err}"}
                writer.write(json.dumps(reply, ensure_ascii=False, default=str).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            self._clients.discard(writer)
            writer.close()

    async def close(self) -> None:
        """Stop listening, end open connections and remove the socket file."""
        if self._server is not None:
            self._server.close()
            for writer in list(self._clients):
                writer.close()  # the client's readline sees EOF and its handler returns
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


async def control_request(
    socket_path: str | Path, request: dict[str, Any], *, wait: float = 120.0
) -> dict[str, Any]:
    """Send one request to a running service and return its reply.

    Raises ControlError when the socket is missing, refused, times out (`wait`
    seconds) or the reply is not JSON. A reply with ``ok: false`` is returned as is.
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
        raise ControlError(f"{socket_path}: no such socket (is xiaoting running?)") from None
    except PermissionError:
        raise ControlError(f"{socket_path}: permission denied (join the service's group)") from None
    except ConnectionRefusedError:
        raise ControlError(f"{socket_path}: connection refused (stale socket?)") from None
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
