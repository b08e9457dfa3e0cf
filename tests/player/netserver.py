"""An in-process HTTP server that behaves like a real link, for catalog and download tests.

Bodies go out in small segments (1460 bytes, a TCP payload on Ethernet, a few milliseconds
apart) instead of one write, so a client that reads "what has arrived so far" is caught.
Each path is a `Route` that can also stall after the headers or mid-body, hang up, change
its file between requests (new ETag/Last-Modified), answer gzip, redirect (also in a loop),
answer 503 with Retry-After, or send no Content-Length and close early.
"""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web


@dataclass
class Route:
    """What the server does for one path.

    `body` is the full file; `segment`/`gap` set the pacing (bytes, seconds). `stall_after_
    headers` and `stall_at` (byte offset) pause for `stall_for` seconds; `drop_at` hangs up
    after that many body bytes on the first `drops` requests. `encoding` is "gzip" or
    "deflate". `no_length` omits Content-Length (the body ends when the connection closes)
    and `close_at` then closes cleanly after that many bytes. `redirect` answers 302 to that
    path. `status` other than 200 answers with `error_body`; `retry_after` adds the header.
    `on_request(route, request)` runs before each answer (e.g. to change `body`).
    """

    body: bytes = b""
    content_type: str = "application/octet-stream"
    status: int = 200
    error_body: bytes = b"error"
    segment: int = 1460
    gap: float = 0.003
    stall_after_headers: float = 0.0
    stall_at: int | None = None
    stall_for: float = 60.0
    drop_at: int | None = None
    drops: int = 1
    encoding: str = ""
    no_length: bool = False
    close_at: int | None = None
    redirect: str | None = None
    retry_after: int | None = None
    etag: str | None = None
    last_modified: str | None = None
    ranges: bool = True
    lie_length: int = 0
    extra_headers: dict[str, str] = field(default_factory=dict)
    on_request: Callable[[Route, web.Request], None] | None = None


@dataclass
class Hit:
    """One request the server saw."""

    path: str
    headers: dict[str, str]
    query: dict[str, str]


class NetServer:
    """Serves `routes` (path -> Route) on 127.0.0.1; `hits` records every request."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[Hit] = []
        self.base = ""
        self._runner: web.AppRunner | None = None
        self._handlers: dict[str, Callable] = {}

    def url(self, path: str) -> str:
        """The absolute URL of `path` on this server."""
        return f"{self.base}{path}"

    def add(self, path: str, body: bytes = b"", **options) -> Route:
        """Register a Route for `path` and return it (options as in `Route`)."""
        route = Route(body=body, **options)
        self.routes[path] = route
        return route

    def handle(self, path: str, handler: Callable) -> None:
        """Answer `path` with `handler(request) -> (body bytes, content type)` or a Route."""
        self._handlers[path] = handler

    def count(self, path: str) -> int:
        """How many requests `path` received."""
        return sum(1 for h in self.hits if h.path == path)

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", self._serve)
        self._runner = web.AppRunner(app, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        """Stop serving (open connections are dropped)."""
        if self._runner is not None:
            await self._runner.cleanup()

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits.append(Hit(path, dict(request.headers), dict(request.query)))
        route = self.routes.get(path)
        handler = self._handlers.get(path)
        if handler is not None:
            answer = handler(request)
            if asyncio.iscoroutine(answer):
                answer = await answer
            if isinstance(answer, Route):
                route = answer
            else:
                body, kind = answer
                route = Route(body=body, content_type=kind)
        if route is None:
            raise web.HTTPNotFound()
        if route.on_request is not None:
            route.on_request(route, request)
        if route.redirect is not None:
            raise web.HTTPFound(route.redirect)
        if route.status != 200:
            headers = dict(route.extra_headers)
            if route.retry_after is not None:
                headers["Retry-After"] = str(route.retry_after)
            return web.Response(status=route.status, body=route.error_body, headers=headers)
        return await self._body(request, route)

    async def _body(self, request: web.Request, route: Route) -> web.StreamResponse:
        body = route.body
        headers = {"Content-Type": route.content_type, **route.extra_headers}
        if route.etag:
            headers["ETag"] = route.etag
        if route.last_modified:
            headers["Last-Modified"] = route.last_modified
        status, start = 200, 0
        rng = request.headers.get("Range")
        if_range = request.headers.get("If-Range")
        validator_ok = if_range is None or if_range in (route.etag, route.last_modified)
        if route.ranges and not route.encoding:
            headers["Accept-Ranges"] = "bytes"
            if rng and rng.startswith("bytes=") and validator_ok:
                start = int(rng[6:].split("-")[0])
                if start >= len(body):
                    return web.Response(
                        status=416, headers={"Content-Range": f"bytes */{len(body)}"}
                    )
                status = 206
                headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
        payload = body[start:]
        if route.encoding == "gzip":
            payload = gzip.compress(payload)
            headers["Content-Encoding"] = "gzip"
        elif route.encoding == "deflate":
            payload = zlib.compress(payload)
            headers["Content-Encoding"] = "deflate"
        if route.no_length:
            return await self._raw(request, route, status, headers, payload)
        response = web.StreamResponse(status=status, headers=headers)
        response.content_length = len(payload) + route.lie_length
        await response.prepare(request)
        if route.stall_after_headers:
            await asyncio.sleep(route.stall_after_headers)
        limit = len(payload)
        dropping = route.drop_at is not None and route.drops > 0
        if dropping:
            route.drops -= 1
            limit = min(limit, route.drop_at)
        sent = 0
        while sent < limit:
            if route.stall_at is not None and sent <= route.stall_at < sent + route.segment:
                cut = route.stall_at - sent
                if cut:
                    await response.write(payload[sent : sent + cut])
                    sent += cut
                await asyncio.sleep(route.stall_for)
            piece = payload[sent : min(limit, sent + route.segment)]
            await response.write(piece)
            sent += len(piece)
            if route.gap:
                await asyncio.sleep(route.gap)
        if dropping or route.lie_length:
            request.transport.close()  # hang up mid-body
            return response
        await response.write_eof()
        return response

    async def _raw(
        self, request: web.Request, route: Route, status: int, headers: dict[str, str],
        payload: bytes,
    ) -> web.StreamResponse:  # fmt: skip
        """HTTP/1.1 without Content-Length or chunking: the body ends when the server closes."""
        transport = request.transport
        assert transport is not None
        reason = "OK" if status == 200 else "Partial Content"
        head = [f"HTTP/1.1 {status} {reason}", "Connection: close"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        transport.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        limit = len(payload) if route.close_at is None else min(len(payload), route.close_at)
        for sent in range(0, limit, route.segment):
            transport.write(payload[sent : min(limit, sent + route.segment)])
            if route.gap:
                await asyncio.sleep(route.gap)
        transport.close()
        raise asyncio.CancelledError  # the connection is gone; nothing more to send
