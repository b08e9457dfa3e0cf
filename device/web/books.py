"""The page's library routes: albums with search, an album's episodes, bookmark and
settings, uploads, rename and removal, and the catalog's sources with their last error
(mixed into `server.WebServer` as `BookRoutes`)."""

from __future__ import annotations

import asyncio
import logging
import unicodedata
from pathlib import Path
from typing import Any

from aiohttp import web

from player.contract import MAX_RATE, MIN_RATE
from player.errors import NotFoundError, PlayerError
from player.sources.base import rank
from player.texts import episode_title

from . import uploads
from .errors import WebError
from .texts import say

_LOGGER = logging.getLogger(__name__)

MULTIPART_SLACK = 1 << 20
"""Bytes of multipart framing allowed above `web.upload_max_mb` in a Content-Length."""
MAX_LISTED = 500
"""Albums one `GET /api/albums` lists at most."""
MAX_SKIP = 600.0
"""Seconds of intro or outro a book may skip (as the set_skip tool allows)."""


async def body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object (``{}`` for an empty body); WebError ``bad_json``."""
    if not request.body_exists:
        return {}
    try:
        data = await request.json()
    except ValueError:
        raise WebError("bad_json") from None
    if not isinstance(data, dict):
        raise WebError("bad_json")
    return data


def number(data: dict[str, Any], name: str, lo: float, hi: float) -> float | None:
    """`data[name]` as a number within [lo, hi], None when absent; WebError ``bad_field``."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise WebError("bad_field", field=name, why=f"a number from {lo:g} to {hi:g}")
    return float(value)


def _title(value: Any) -> str:
    """An album title from the page: trimmed, 1-200 characters, no control characters."""
    text = unicodedata.normalize("NFC", str(value or "")).strip()
    if not text or len(text) > 200 or any(unicodedata.category(c) in ("Cc", "Cf") for c in text):
        raise WebError("bad_field", field="title", why="1 to 200 characters")
    return text


class BookRoutes:
    """Handlers of ``/api/albums``, ``/api/upload`` and ``/api/sources``; the server
    gives `player`, `config`, `limits`, `live`, `call`, `_player` and `_language`."""

    player: Any
    config: Any
    limits: uploads.Limits
    live: Any
    _uploading: asyncio.Lock

    def _player(self) -> Any:  # the server's own
        raise NotImplementedError

    def _language(self, request: web.Request) -> str:  # the server's own
        raise NotImplementedError

    async def call(self, name: str, arguments: dict[str, Any]) -> web.Response:  # the server's
        raise NotImplementedError

    async def albums(self, request: web.Request) -> web.Response:
        """``GET /api/albums?q=words``: the albums known without network (the library,
        then remembered online ones), matched and ranked by `q` as a spoken title is:
        ``{"albums": [{"id", "title", "author", "narrator", "episodes", "local",
        "bookmark": {"episode", "position"} | null, "playing"}], "total"}``."""
        player = self._player()
        await player.library.fresh()
        found = await asyncio.to_thread(player.library_albums)
        query = "".join(ch for ch in request.query.get("q", "") if ch.isprintable()).strip()
        if query:
            found = rank(query[:100], found)
        loaded = (player.now_data() or {}).get("id")
        rows = []
        for album in found[:MAX_LISTED]:
            mark = player.store.bookmark(album.id)
            rows.append({
                "id": album.id, "title": album.title, "author": album.author,
                "narrator": album.narrator, "episodes": album.episode_count,
                "local": album.id.startswith(player.library.prefix),
                "bookmark": None if mark is None else {"episode": mark.section,
                                                       "position": round(mark.position, 1)},
                "playing": album.id == loaded,
            })  # fmt: skip
        return web.json_response({"albums": rows, "total": len(found)})

    async def _detail(self, album_id: str) -> Any:
        player = self._player()
        try:
            return await player.album_detail(album_id)
        except NotFoundError:
            raise WebError("no_album", status=404) from None
        except PlayerError as err:
            raise WebError("upload_failed", status=502, why=player.speakable_error(err)) from None

    async def album(self, request: web.Request) -> web.Response:
        """``GET /api/albums/{id}``: ``{"id", "title", "author", "narrator",
        "description", "local", "episodes": [{"episode", "title", "duration"}],
        "bookmark": {"episode", "position"} | null, "settings": {"speed", "intro",
        "outro"}}`` (seconds; speed 1.0 normal). 404 ``no_album``."""
        player = self._player()
        detail = await self._detail(request.match_info["album_id"])
        album = detail.album
        mark = player.store.bookmark(album.id)
        speed, intro, outro = player.book_settings(album)
        return web.json_response({
            "id": album.id, "title": album.title, "author": album.author,
            "narrator": album.narrator, "description": album.description,
            "local": album.id.startswith(player.library.prefix),
            "episodes": [{"episode": e.section,
                          "title": episode_title(e, album.title) or e.title,
                          "duration": round(e.duration, 1)} for e in detail.episodes],
            "bookmark": None if mark is None else {"episode": mark.section,
                                                   "position": round(mark.position, 1)},
            "settings": {"speed": speed, "intro": intro, "outro": outro},
        })  # fmt: skip

    async def album_settings(self, request: web.Request) -> web.Response:
        """``POST /api/albums/{id}/settings {"speed"?: 0.5-2, "intro"?: 0-600,
        "outro"?: 0-600}``: remembered for that book (as "1.5倍速" or "跳过片头30秒" would
        be) and applied at once when it is the book loaded."""
        data = await body(request)
        speed = number(data, "speed", MIN_RATE, MAX_RATE)
        intro = number(data, "intro", 0, MAX_SKIP)
        outro = number(data, "outro", 0, MAX_SKIP)
        if speed is None and intro is None and outro is None:
            raise WebError("bad_field", field="speed", why="speed, intro or outro")
        detail = await self._detail(request.match_info["album_id"])
        player = self._player()
        player.book_settings_save(
            detail.album,
            speed=None if speed is None else round(speed, 2),
            intro=None if intro is None else round(intro, 1),
            outro=None if outro is None else round(outro, 1),
        )
        self.live.poke()
        speed, intro, outro = player.book_settings(detail.album)
        return web.json_response({
            "ok": True, "message": say("book_saved", self._language(request),
                                       title=detail.album.title),
            "settings": {"speed": speed, "intro": intro, "outro": outro},
        })  # fmt: skip

    async def album_rename(self, request: web.Request) -> web.Response:
        """``POST /api/albums/{id}/rename {"title"}``: a local album's title (album.json;
        the folder, the id and the bookmark stay)."""
        data = await body(request)
        title = _title(data.get("title"))
        player = self._player()
        folder, _root, _detail = uploads.album_folder(
            player.library, request.match_info["album_id"]
        )
        await asyncio.to_thread(uploads.rename, folder, title)
        await asyncio.to_thread(player.library.refresh, force=True)
        self.live.poke()
        return web.json_response(
            {"ok": True, "message": say("renamed", self._language(request), title=title)}
        )

    async def album_delete(self, request: web.Request) -> web.Response:
        """``DELETE /api/albums/{id}``: a local album's folder removed (stopped first when
        it plays)."""
        player = self._player()
        album_id = request.match_info["album_id"]
        folder, root, detail = uploads.album_folder(player.library, album_id)
        holder = player.now or player.pending
        if holder is not None and holder.detail.album.id == album_id:
            await self.call("stop", {})
        await asyncio.to_thread(uploads.remove, folder, root)
        await asyncio.to_thread(player.library.refresh, force=True)
        self.live.poke()
        return web.json_response({
            "ok": True,
            "message": say("deleted", self._language(request), title=detail.album.title),
        })  # fmt: skip

    async def upload(self, request: web.Request) -> web.Response:
        """``POST /api/upload`` (multipart/form-data: ``album`` = the name, ``files`` = each
        audio file or one .zip): a new album, checked and moved into the library in one
        step (see `uploads`). ``{"ok", "message", "album": {"id", "title", "episodes"},
        "skipped": [names in the zip that are not audio]}``; refusals are 400, 409, 413,
        415 or 507 with the reason in words."""
        player = self._player()
        length = request.content_length
        if length is not None and length > self.limits.max_bytes + MULTIPART_SLACK:
            raise WebError("too_big", status=413, limit=self.limits.max_mb)
        if not request.content_type.startswith("multipart/"):
            raise WebError("not_multipart", status=415)
        root = uploads.library_root(list(self.config.library.paths))
        if length:
            uploads.check_space(root, length)
        async with self._uploading:  # one at a time: two could claim one album name
            reader = await request.multipart()
            staged = await uploads.receive(reader, root, self.limits)
            folder = await asyncio.to_thread(uploads.place, staged, self.limits)
        await asyncio.to_thread(player.library.refresh, force=True)
        self.live.poke()
        found = next(
            (d for d in player.library.details()
             if d.episodes and Path(d.episodes[0].location).parent == folder),
            None,
        )  # fmt: skip
        album = (
            {"id": found.album.id, "title": found.album.title, "episodes": len(found.episodes)}
            if found is not None
            else {"id": None, "title": folder.name, "episodes": len(staged.files)}
        )
        message = say("uploaded", self._language(request), title=album["title"],
                      count=album["episodes"])  # fmt: skip
        return web.json_response(
            {"ok": True, "message": message, "album": album, "skipped": staged.skipped[:50]}
        )

    async def sources(self, request: web.Request) -> web.Response:
        """``GET /api/sources``: ``{"sources": [{"prefix", "name", "remote", "error",
        "error_at"}]}``, each source's last error in words ("" when it answered)."""
        player = self._player()
        return web.json_response({"sources": player.sources_status()})
