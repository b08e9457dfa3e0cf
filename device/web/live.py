"""What the page shows live: one snapshot of the box (`snapshot`), sent to every open
page as server-sent events (`Live`) whenever it changes, within `interval` seconds, and at
once when the player's state changes (`Live.poke`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web


def _downloads(player: Any) -> list[dict[str, Any]]:
    downloader = getattr(player, "downloader", None)
    if downloader is None:
        return []
    return [
        {
            "album": job.title.rsplit(" #", 1)[0],
            "episode": job.episode.section,
            "percent": job.percent if job.total else None,
            "mb": round(job.done / 1e6, 1),
        }
        for job in downloader.active()
    ]


def snapshot(app: Any, player: Any) -> dict[str, Any]:
    """The box now, as `GET /api/state` gives it.

    ``{"app": App state ("idle", "listening", "thinking", "speaking", ...), "language",
    "player": "idle" | "loading" | "playing" | "paused" | null (no player), "now": the
    player's NOW shape (id, title, episodes, state, episode, position s, duration s,
    episode_title) or null, "left_off": {id, title, episode, position} or null,
    "volume": percent heard now, "limits": {min, max, ceiling (now), bedtime (bool)},
    "speed", "sleep": {"seconds_left": book seconds or null, "end_of_episode": bool},
    "downloads": [{album, episode, percent, mb}], "error": the player's last error or "",
    "turns": count, "last_turn": {utterance, answer} or {}}``.
    """
    data: dict[str, Any] = {
        "app": str(getattr(app, "state", "idle")),
        "language": getattr(app, "language", "zh"),
        "turns": getattr(app, "turns", 0),
        "player": None,
        "now": None,
        "left_off": None,
    }
    last = getattr(app, "last_turn", None) or {}
    data["last_turn"] = (
        {"utterance": last.get("utterance", ""), "answer": last.get("answer", "")} if last else {}
    )
    if player is None or not hasattr(player, "now_data"):
        return data
    data["player"] = str(player.state)
    data["now"] = player.now_data()
    mark = player.store.last_bookmark()
    if mark is not None:
        data["left_off"] = {"id": mark.album_id, "title": mark.album_title,
                            "episode": mark.section, "position": round(mark.position, 1)}  # fmt: skip
    data["volume"] = round(player.volume_now() * 100)
    data["limits"] = {
        "min": player.min_volume_percent,
        "max": player.max_volume_percent,
        "ceiling": player.volume_ceiling(),
        "bedtime": player.bedtime_now(),
    }
    data["speed"] = player.speed_now()
    left = player.sleep_left
    data["sleep"] = {
        "seconds_left": None if left is None else round(left),
        "end_of_episode": bool(player.sleep_at_end),
    }
    data["downloads"] = _downloads(player)
    data["error"] = player.last_error
    return data


class Live:
    """Server-sent events of `snapshot()`: an ``event: state`` with the JSON snapshot when
    it differs from the last one sent (checked every `interval` s and at every `poke`), a
    comment line every `heartbeat` s otherwise. `close` ends every stream."""

    def __init__(
        self,
        snapshot: Callable[[], dict[str, Any]],
        *,
        interval: float = 0.5,
        heartbeat: float = 15.0,
    ) -> None:
        self.snapshot = snapshot
        self.interval = interval
        self.heartbeat = heartbeat
        self._wakes: set[asyncio.Event] = set()
        self._closing = False

    @property
    def clients(self) -> int:
        """Pages listening now."""
        return len(self._wakes)

    def poke(self) -> None:
        """Something changed: every stream looks again now (callable from the loop only)."""
        for wake in self._wakes:
            wake.set()

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self._closing = True
        self.poke()

    async def stream(self, request: web.Request) -> web.StreamResponse:
        """The ``GET /api/events`` response: runs until the page goes or `close`."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        wake = asyncio.Event()
        self._wakes.add(wake)
        last = ""
        sent = time.monotonic()
        try:
            await response.write(b"retry: 2000\n\n")
            while not self._closing:
                text = json.dumps(self.snapshot(), ensure_ascii=False, sort_keys=True)
                if text != last:
                    await response.write(f"event: state\ndata: {text}\n\n".encode())
                    last, sent = text, time.monotonic()
                elif time.monotonic() - sent >= self.heartbeat:
                    await response.write(b": ping\n\n")
                    sent = time.monotonic()
                wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), self.interval)
        except (ConnectionResetError, ConnectionError):
            pass
        finally:
            self._wakes.discard(wake)
        return response
