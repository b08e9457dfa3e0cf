"""The household's page: now playing, the books, uploads, settings, what the box heard and
did, behind a password on the local network (`server.WebServer`, started by `xiaoting
run` when ``web.enabled``). This module itself stays light: `page_url` for the doctor and
the CLI, with no aiohttp import."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from typing import Any

__all__ = ["lan_address", "page_url"]


def lan_address() -> str:
    """This machine's address on its local network (the one its default route leaves
    from; no packet is sent), or 127.0.0.1 when it has none."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 9))
        return str(probe.getsockname()[0])
    return "127.0.0.1"


def page_url(config: Any, *, port: int | None = None) -> str:
    """The address to open the page at, e.g. ``http://192.168.1.20:8080/``: the
    configured bind address when it is one address, else this machine's LAN address."""
    bind = config.web.bind
    host = bind
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(bind).is_unspecified:
            host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port or config.web.port}/"
