"""The household's page, served by the service's own event loop (aiohttp).

`WebServer(config, app=..., player=..., registry=..., on_call=...)`; ``await start()`` binds
``web.bind:web.port`` and returns the page's URL, ``await close()`` ends open streams and
unbinds. ``/`` always serves the page (a login form until logged in); ``/static/*`` its
script and style; ``/api/*`` the JSON API the page uses (listed in README.md, "The page").

Every request passes `guard`: the client must be on the local network, the Host header
must name this box, a change (any method but GET/HEAD) must come from this page's own
origin and carry the session's CSRF token; every ``/api/`` call but ``session`` and
``login`` needs a session cookie, and all of them answer 401 while no password is set.
Refusals are JSON ``{"ok": false, "error": code, "message": words}`` in the language the
page asks for (header ``X-Xiaoting-Language``), else the configured one.

Playback requests call the player's tools through the agent's tool registry (the code a
voice turn calls, with its argument checks), with ``caller="web"``; each is written to the
trace as MCP calls are.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from device.config import Config

from . import auth, settings, uploads
from .books import BookRoutes, body, number
from .errors import WebError
from .live import Live, snapshot
from .texts import say

_LOGGER = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
PAGES = {"app.js": "text/javascript", "style.css": "text/css"}
COOKIE = "xiaoting_session"
OPEN_API = ("/api/session", "/api/login")
"""API paths answered without a session (each still answers 401 with no password set)."""
HEALTH_SECONDS = 20.0
"""The doctor's lines are kept this long before they are checked again."""
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
}


def _json(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=_dumps)


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, default=str)


class WebServer(BookRoutes):
    """The page and its API on ``config.web.bind:config.web.port`` (see the module); the
    library's routes come from `books.BookRoutes`."""

    def __init__(
        self,
        config: Config,
        *,
        app: Any = None,
        player: Any = None,
        registry: Any = None,
        on_call: Any = None,
        limiter: auth.LoginLimiter | None = None,
    ) -> None:
        self.config = config
        self.running = config
        """The config the service started with (what a restart would change is told)."""
        self.app = app
        self.player = player
        self.registry = registry
        self.on_call = on_call
        """``on_call(caller, ToolResult)`` after each tool the page calls (the trace)."""
        self.language = config.language
        self.password = auth.Password(auth.password_path(config.path("state_dir")))
        self.sessions = auth.Sessions(self.password)
        self.limiter = limiter or auth.LoginLimiter()
        self.names = auth.own_names(config.web.hosts)
        self.limits = uploads.Limits(
            max_bytes=config.web.upload_max_mb << 20, max_files=config.web.upload_max_files
        )
        self.live = Live(lambda: snapshot(self.app, self.player))
        self.port = config.web.port
        self._runner: web.AppRunner | None = None
        self._health: tuple[float, list[dict[str, str]]] = (float("-inf"), [])
        self._uploading = asyncio.Lock()

    # ------------------------------------------------------------ lifecycle

    def make_app(self) -> web.Application:
        """The aiohttp application (routes and the `guard` middleware)."""
        app = web.Application(middlewares=[self.guard], client_max_size=1 << 20)
        r = app.router
        r.add_get("/", self.index)
        r.add_get("/static/{name}", self.static)
        r.add_get("/api/session", self.session)
        r.add_post("/api/login", self.login)
        r.add_post("/api/logout", self.logout)
        r.add_get("/api/state", self.state)
        r.add_get("/api/events", self.events)
        for name, tool in TOOL_ROUTES.items():
            r.add_post(f"/api/{name}", self._tool_route(tool))
        r.add_post("/api/volume", self.volume)
        r.add_post("/api/speed", self.speed)
        r.add_post("/api/sleep", self.sleep)
        r.add_get("/api/albums", self.albums)
        r.add_get("/api/albums/{album_id}", self.album)
        r.add_post("/api/albums/{album_id}/settings", self.album_settings)
        r.add_post("/api/albums/{album_id}/rename", self.album_rename)
        r.add_delete("/api/albums/{album_id}", self.album_delete)
        r.add_post("/api/upload", self.upload)
        r.add_get("/api/sources", self.sources)
        r.add_get("/api/settings", self.settings_read)
        r.add_post("/api/settings", self.settings_save)
        r.add_get("/api/turns", self.turns)
        r.add_get("/api/health", self.health)
        return app

    async def start(self) -> str:
        """Bind and serve; returns the page's URL. Raises OSError when the address cannot
        be bound (the port in use)."""
        if self.player is not None and hasattr(self.player, "subscribe"):
            self.player.subscribe(lambda _state: self.live.poke())
        for root in self.config.library.paths:
            removed = uploads.sweep(Path(root).expanduser())
            if removed:
                _LOGGER.info("web: %d unfinished upload(s) removed from %s", removed, root)
        runner = web.AppRunner(
            self.make_app(), access_log=None, shutdown_timeout=1.0, handle_signals=False
        )
        await runner.setup()
        site = web.TCPSite(runner, self.config.web.bind, self.config.web.port, reuse_address=True)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        if runner.addresses:  # port 0 asked for any free one
            self.port = runner.addresses[0][1]
        from . import page_url

        url = page_url(self.config, port=self.port)
        _LOGGER.info("web page at %s (%s)", url,
                     "password set" if self.password.is_set else "no password yet")  # fmt: skip
        return url

    async def close(self) -> None:
        """End the event streams, then stop serving (open requests get a second)."""
        self.live.close()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
            _LOGGER.info("web page stopped")

    # ------------------------------------------------------------ access

    def _language(self, request: web.Request) -> str:
        asked = request.headers.get("X-Xiaoting-Language", "")
        return asked if asked in ("zh", "en") else self.language

    @web.middleware
    async def guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Local clients, this box's names, this page's origin, a session and its CSRF token
        (see the module docstring); a refusal is JSON in words."""
        try:
            if not auth.local_client(request.remote):
                _LOGGER.warning("web: request from %s refused (not local)", request.remote)
                raise WebError("not_local", status=403)
            host = request.headers.get("Host", "")
            if not auth.host_allowed(host, self.names):
                _LOGGER.warning("web: request for host %r refused", host[:80])
                raise WebError("bad_host", status=403, host=host[:80])
            unsafe = request.method not in ("GET", "HEAD", "OPTIONS")
            origin = request.headers.get("Origin")
            if unsafe and not auth.origin_allowed(origin, host):
                _LOGGER.warning("web: %s %s from origin %r refused", request.method,
                                request.path, origin)  # fmt: skip
                raise WebError("bad_origin", status=403, origin=str(origin)[:80])
            if request.path.startswith("/api/"):
                if not self.password.is_set:
                    raise WebError("no_password", status=401)
                if request.path not in OPEN_API:
                    cookie = request.cookies.get(COOKIE, "")
                    if not self.sessions.valid(cookie):
                        raise WebError("login", status=401)
                    token = request.headers.get("X-CSRF-Token")
                    if unsafe and not self.sessions.csrf_ok(cookie, token):
                        _LOGGER.warning("web: %s %s without a valid CSRF token refused",
                                        request.method, request.path)  # fmt: skip
                        raise WebError("csrf", status=403)
            response = await handler(request)
        except (web.HTTPException, ConnectionError):
            raise  # a page the router does not know; a phone that went away mid-upload
        except Exception as err:  # a bug answers in words too, and the service goes on
            if not isinstance(err, WebError):
                _LOGGER.exception("web: %s %s failed", request.method, request.path)
                err = WebError("internal", status=500, what=type(err).__name__)
            response = _json(
                {"ok": False, "error": err.key, "message": err.message(self._language(request)),
                 "language": self.language},
                status=err.status,
            )  # fmt: skip
        if request.body_exists and not request.content.at_eof():
            response.force_close()  # a refused body is not read (a 2 GB upload, say)
        if not response.prepared:
            response.headers.update(SECURITY_HEADERS)
            if request.path.startswith("/api/"):
                response.headers["Cache-Control"] = "no-store"
        return response

    async def index(self, request: web.Request) -> web.StreamResponse:
        """``GET /``: the page (it shows the login form itself until logged in)."""
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        """``GET /static/app.js`` and ``/static/style.css``; nothing else."""
        name = request.match_info["name"]
        if name not in PAGES:
            raise web.HTTPNotFound()
        return web.FileResponse(
            STATIC / name,
            headers={"Content-Type": f"{PAGES[name]}; charset=utf-8", "Cache-Control": "no-cache"},
        )

    async def session(self, request: web.Request) -> web.Response:
        """``GET /api/session``: ``{"ok", "csrf", "language"}`` when logged in; 401
        (``login``) otherwise."""
        cookie = request.cookies.get(COOKIE, "")
        if not self.sessions.valid(cookie):
            raise WebError("login", status=401)
        return _json({"ok": True, "csrf": self.sessions.csrf(cookie), "language": self.language})

    async def login(self, request: web.Request) -> web.Response:
        """``POST /api/login {"password"}``: sets the session cookie (HttpOnly,
        SameSite=Strict, 30 days) and answers ``{"ok", "csrf"}``. 401 ``wrong_password``;
        429 ``rate_limited`` after too many failures from this address."""
        ip = request.remote or "?"
        wait = self.limiter.wait(ip)
        if wait > 0:
            raise WebError("rate_limited", status=429, seconds=int(wait) + 1)
        data = await body(request)
        password = data.get("password")
        if not isinstance(password, str) or not password:
            raise WebError("bad_field", field="password", why="a string")
        if not await asyncio.to_thread(self.password.verify, password):
            self.limiter.failed(ip)
            _LOGGER.warning("web: wrong password from %s", ip)
            raise WebError("wrong_password", status=401)
        self.limiter.succeeded(ip)
        cookie = self.sessions.make()
        if cookie is None:
            raise WebError("no_password", status=401)
        _LOGGER.info("web: logged in from %s", ip)
        response = _json({"ok": True, "csrf": self.sessions.csrf(cookie),
                          "language": self.language})  # fmt: skip
        response.set_cookie(COOKIE, cookie, max_age=int(self.sessions.lifetime), path="/",
                            httponly=True, samesite="Strict")  # fmt: skip
        return response

    async def logout(self, request: web.Request) -> web.Response:
        """``POST /api/logout``: ends this session."""
        self.sessions.end(request.cookies.get(COOKIE, ""))
        response = _json({"ok": True})
        response.del_cookie(COOKIE, path="/")
        return response

    # ------------------------------------------------------------ now playing

    def _player(self) -> Any:
        if self.player is None or self.registry is None:
            raise WebError("no_player", status=503)
        return self.player

    async def state(self, request: web.Request) -> web.Response:
        """``GET /api/state``: `live.snapshot`."""
        return _json(snapshot(self.app, self.player))

    async def events(self, request: web.Request) -> web.StreamResponse:
        """``GET /api/events``: the snapshot as server-sent events, on every change."""
        return await self.live.stream(request)

    async def call(self, name: str, arguments: dict[str, Any]) -> web.Response:
        """Call the tool `name` as the agent would; ``{"ok", "message", "data", "state"}``
        (HTTP 422 when the tool says no, with its sentence as ``message``)."""
        self._player()
        if self.registry.get(name) is None:
            raise WebError("no_player", status=503)
        result = await self.registry.call(name, arguments, caller="web")
        if self.on_call is not None:
            try:
                self.on_call("web", result)
            except Exception:
                _LOGGER.exception("web: recording the call failed")
        self.live.poke()
        body = {"ok": result.ok, "message": result.spoken(), "data": result.data,
                "state": snapshot(self.app, self.player)}  # fmt: skip
        if not result.ok:
            body["error"] = "tool"
        return _json(body, status=200 if result.ok else 422)

    def _tool_route(self, tool: str) -> Any:
        async def handle(request: web.Request) -> web.Response:
            data = await body(request)
            return await self.call(tool, TOOL_ARGUMENTS[tool](data))

        handle.__doc__ = f"POST: the {tool} tool."
        return handle

    async def volume(self, request: web.Request) -> web.Response:
        """``POST /api/volume {"percent": 0-100}`` or ``{"step": 1 | -1}`` (within the
        limits, as a voice request is)."""
        data = await body(request)
        step = number(data, "step", -1, 1)
        if step:
            return await self.call("volume_up" if step > 0 else "volume_down", {})
        percent = number(data, "percent", 0, 100)
        if percent is None:
            raise WebError("bad_field", field="percent", why="a number from 0 to 100")
        return await self.call("set_volume", {"percent": round(percent)})

    async def speed(self, request: web.Request) -> web.Response:
        """``POST /api/speed {"rate": 0.5-2.0}`` or ``{"step": 1 | -1}``."""
        data = await body(request)
        step = number(data, "step", -1, 1)
        if step:
            return await self.call("set_speed", {"step": int(step)})
        rate = number(data, "rate", 0.5, 2.0)
        if rate is None:
            raise WebError("bad_field", field="rate", why="a number from 0.5 to 2")
        return await self.call("set_speed", {"rate": rate})

    async def sleep(self, request: web.Request) -> web.Response:
        """``POST /api/sleep {"minutes": 0-600}`` (0 cancels) or ``{"end_of_episode":
        true}``."""
        data = await body(request)
        if data.get("end_of_episode") is True:
            return await self.call("sleep_timer", {"end_of_episode": True})
        minutes = number(data, "minutes", 0, 600)
        if minutes is None:
            raise WebError("bad_field", field="minutes", why="a number from 0 to 600")
        return await self.call("sleep_timer", {"minutes": minutes})

    # ------------------------------------------------------------ settings and history

    def _saved_config(self) -> Config:
        path = settings.config_file(self.running)
        if path is None:
            return self.config
        from device import config as config_mod

        try:
            return config_mod.load(path)
        except config_mod.ConfigError:
            return self.config

    async def settings_read(self, request: web.Request) -> web.Response:
        """``GET /api/settings``: ``{"values": {key: value}, "live": [keys taken at once],
        "restart_pending": [keys saved but not yet running], "file": path or null}``."""
        saved = await asyncio.to_thread(self._saved_config)
        path = settings.config_file(self.running)
        return _json(
            {
                "values": settings.current(saved),
                "live": [k for k, w in settings.EDITABLE.items() if w == settings.LIVE],
                "restart_pending": settings.pending_restart(self.running, saved),
                "file": str(path) if path else None,
            }
        )

    async def settings_save(self, request: web.Request) -> web.Response:
        """``POST /api/settings {"changes": {key: value}}``: written to the config file
        (comments kept) when the whole file still loads; the live ones applied at once.
        ``{"ok", "message", "values", "applied", "restart_pending"}``."""
        data = await body(request)
        changes = data.get("changes")
        if not isinstance(changes, dict) or not changes:
            raise WebError("bad_field", field="changes", why="an object of settings")
        path = settings.config_file(self.running)
        if path is None:
            raise WebError("no_config", status=409, source=self.running.source or "<defaults>")
        saved = await asyncio.to_thread(settings.write, path, changes)
        self.config = saved
        applied = [k for k in changes if settings.EDITABLE[k] == settings.LIVE]
        if applied and self.player is not None and hasattr(self.player, "set_volume_limits"):
            audio = saved.audio
            self.player.set_volume_limits(
                min_volume_percent=audio.min_volume_percent,
                max_volume_percent=audio.max_volume_percent,
                bedtime=audio.bedtime,
                bedtime_max_volume_percent=audio.bedtime_max_volume_percent,
            )
        _LOGGER.info("web: settings saved to %s: %s", path, ", ".join(sorted(changes)))
        self.live.poke()
        return _json(
            {
                "ok": True,
                "message": say("saved", self._language(request)),
                "values": settings.current(saved),
                "applied": applied,
                "restart_pending": settings.pending_restart(self.running, saved),
            }
        )

    async def turns(self, request: web.Request) -> web.Response:
        """``GET /api/turns?n=10``: the last turns as `xiaoting trace --json` gives them,
        newest first (utterance, answer, backend, elapsed_ms, stages, steps)."""
        from agent.trace import read_last

        try:
            n = max(1, min(50, int(request.query.get("n", "10"))))
        except ValueError:
            raise WebError("bad_field", field="n", why="a whole number") from None
        turns = await asyncio.to_thread(read_last, self.config.path("state_dir"), n)
        return _json({"turns": list(reversed(turns))})

    async def health(self, request: web.Request) -> web.Response:
        """``GET /api/health``: the lines of `xiaoting doctor` (checked at most every
        `HEALTH_SECONDS`): ``{"findings": [{"name", "level", "detail"}], "at"}``."""
        at, found = self._health
        if time.monotonic() - at > HEALTH_SECONDS or request.query.get("fresh"):
            from device import doctor

            findings = await asyncio.to_thread(lambda: asyncio.run(doctor.collect(self.running)))
            found = [{"name": f.name, "level": f.level, "detail": f.detail} for f in findings]
            self._health = (time.monotonic(), found)
        return _json({"findings": found, "at": time.time()})


def _play(data: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    album = data.get("album_id")
    if album is not None:
        if not isinstance(album, str) or not album.strip():
            raise WebError("bad_field", field="album_id", why="an album id")
        args["keyword"] = album
    episode = data.get("episode")
    if episode is not None:
        if isinstance(episode, bool) or not isinstance(episode, int) or episode < 1:
            raise WebError("bad_field", field="episode", why="a whole number from 1")
        args["section"] = episode
    return args


def _seek(data: dict[str, Any]) -> dict[str, Any]:
    seconds = number(data, "seconds", -86400, 86400)
    if seconds is None:
        raise WebError("bad_field", field="seconds", why="a number of seconds")
    relative = data.get("relative", False)
    if not isinstance(relative, bool):
        raise WebError("bad_field", field="relative", why="true or false")
    return {"seconds": seconds, "relative": relative}


def _none(data: dict[str, Any]) -> dict[str, Any]:
    return {}


TOOL_ROUTES = {
    "play": "play_book",
    "pause": "pause",
    "resume": "resume",
    "stop": "stop",
    "next": "next_episode",
    "previous": "previous_episode",
    "seek": "seek",
}
"""``POST /api/<name>`` → the player's tool it calls."""
TOOL_ARGUMENTS = {
    "play_book": _play,
    "pause": _none,
    "resume": _none,
    "stop": _none,
    "next_episode": _none,
    "previous_episode": _none,
    "seek": _seek,
}
"""How each tool's arguments are read from the request's JSON."""
