"""systemd notification (sd_notify(3)) over the ``NOTIFY_SOCKET`` datagram socket.

`READY=1` once the models are loaded, `WATCHDOG=1` from the event loop at half of
``WATCHDOG_USEC`` while it is healthy, `STATUS=` text for ``systemctl status``, and
`STOPPING=1` on shutdown. Without ``NOTIFY_SOCKET`` (a terminal, tests) every call is a
no-op.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable

_LOGGER = logging.getLogger(__name__)


class Notifier:
    """Sends sd_notify messages; `socket_path` defaults to ``$NOTIFY_SOCKET``."""

    def __init__(self, socket_path: str | None = None, *, watchdog_usec: int | None = None) -> None:
        path = socket_path if socket_path is not None else os.environ.get("NOTIFY_SOCKET", "")
        if path.startswith("@"):
            path = "\0" + path[1:]  # abstract namespace
        self.path = path
        usec = watchdog_usec
        if usec is None:
            try:
                usec = int(os.environ.get("WATCHDOG_USEC", "0"))
            except ValueError:
                usec = 0
        self.watchdog_usec = usec
        self.sent: list[str] = []
        self._sock: socket.socket | None = None
        if path:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @property
    def enabled(self) -> bool:
        """True when a notify socket is configured."""
        return self._sock is not None

    def notify(self, *fields: str) -> bool:
        """Send ``KEY=value`` fields in one datagram; False (logged at debug) on failure."""
        if self._sock is None:
            return False
        message = "\n".join(fields)
        try:
            self._sock.sendto(message.encode(), self.path)
        except OSError as err:
            _LOGGER.debug("sd_notify %r failed: %s", message, err)
            return False
        self.sent.append(message)
        return True

    def ready(self, status: str = "") -> bool:
        """READY=1 (and STATUS= when given)."""
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        """STATUS=text for ``systemctl status``."""
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        """STOPPING=1."""
        return self.notify("STOPPING=1")

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between WATCHDOG=1 pings (half of WATCHDOG_USEC), or None when off."""
        if not self.enabled or self.watchdog_usec <= 0:
            return None
        return self.watchdog_usec / 2 / 1_000_000

    async def watchdog(self, healthy: Callable[[], bool]) -> None:
        """Ping WATCHDOG=1 from the loop while `healthy()`; returns at once when off."""
        interval = self.watchdog_interval
        if interval is None:
            return
        while True:
            if healthy():
                self.notify("WATCHDOG=1")
            else:
                _LOGGER.warning("unhealthy: watchdog ping withheld")
            await asyncio.sleep(interval)

    def close(self) -> None:
        """Close the socket."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
