"""Test helpers for the player: audio made with PyAV, a recording sink, a catalog server.

Everything is generated at test time; nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from aiohttp import web

# (container format, codec, extension, sample rate)
FORMATS = {
    "mp3": ("mp3", "libmp3lame", ".mp3", 44100),
    "m4a": ("ipod", "aac", ".m4a", 44100),
    "opus": ("ogg", "libopus", ".opus", 48000),
    "ogg": ("ogg", "vorbis", ".ogg", 44100),
    "flac": ("flac", "flac", ".flac", 44100),
    "wav": ("wav", "pcm_s16le", ".wav", 22050),
}


def make_episode(
    path: Path,
    *,
    kind: str = "mp3",
    seconds: float = 2.0,
    freq: float = 440.0,
    channels: int = 1,
    bitrate: int = 64000,
    noise: bool = False,
) -> Path:
    """Encode a sine tone (or noise) of `seconds` to `path` in format `kind`; returns path."""
    fmt, codec, _ext, rate = FORMATS[kind]
    if codec == "vorbis":
        channels = 2  # FFmpeg's own Vorbis encoder only does stereo
    layout = "mono" if channels == 1 else "stereo"
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"strict": "-2"} if codec == "vorbis" else {}
    with av.open(str(path), "w", format=fmt) as out:
        stream = out.add_stream(codec, rate=rate, layout=layout, options=options)
        if codec not in ("flac", "pcm_s16le"):
            stream.bit_rate = bitrate
        total = int(rate * seconds)
        t = np.arange(total) / rate
        if noise:
            wave = np.random.default_rng(1).uniform(-0.3, 0.3, total)
        else:
            wave = 0.3 * np.sin(2 * np.pi * freq * t)
        samples = np.repeat(wave[None, :], channels, axis=0).astype(np.float32)
        sample_format = "s16" if codec in ("flac", "pcm_s16le") else "fltp"
        pts = 0
        for start in range(0, total, 1024):
            block = samples[:, start : start + 1024]
            if sample_format == "s16":
                data = (block.T.reshape(1, -1) * 32767).astype(np.int16)
            else:
                data = np.ascontiguousarray(block)
            frame = av.AudioFrame.from_ndarray(data, format=sample_format, layout=layout)
            frame.sample_rate = rate
            frame.pts = pts
            pts += frame.samples
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


BOOK_FORMATS = {"m4b": ("ipod", "aac"), "m4a": ("ipod", "aac"), "mp3": ("mp3", "libmp3lame")}


def chapter_freq(index: int) -> float:
    """The tone of chapter `index` (0-based) in `make_book`'s files: 300, 500, 700 … Hz."""
    return 300.0 + 200.0 * index


def make_book(
    path: Path, chapters: list[tuple[str, float]], *, rate: int = 44100, freq: float | None = None
) -> Path:
    """One audio file with chapter marks written by PyAV (`OutputContainer.set_chapters`):
    `chapters` are (title, seconds); chapter i is a tone of `chapter_freq(i)` Hz (or all
    of `freq`). The format follows the suffix: .m4b/.m4a (MP4 chapter list) or .mp3 (ID3
    CHAP frames). Returns `path`."""
    fmt, codec = BOOK_FORMATS[path.suffix.lstrip(".")]
    path.parent.mkdir(parents=True, exist_ok=True)
    marks, start = [], 0.0
    for i, (title, seconds) in enumerate(chapters):
        marks.append({"id": i + 1, "start": round(start * 1000), "end": round((start + seconds) * 1000),
                      "time_base": Fraction(1, 1000), "metadata": {"title": title}})  # fmt: skip
        start += seconds
    with av.open(str(path), "w", format=fmt) as out:
        stream = out.add_stream(codec, rate=rate, layout="mono")
        stream.bit_rate = 64000
        out.set_chapters(marks)
        waves = []
        for i, (_title, seconds) in enumerate(chapters):
            t = np.arange(round(rate * seconds)) / rate
            waves.append(0.3 * np.sin(2 * np.pi * (freq or chapter_freq(i)) * t))
        wave = np.concatenate(waves).astype(np.float32)
        pts = 0
        for begin in range(0, wave.size, 1024):
            frame = av.AudioFrame.from_ndarray(
                np.ascontiguousarray(wave[None, begin : begin + 1024]), format="fltp", layout="mono"
            )
            frame.sample_rate, frame.pts = rate, pts
            pts += frame.samples
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


def dominant(samples: np.ndarray, rate: int, channels: int = 2) -> float:
    """The strongest frequency (Hz) of interleaved int16 `samples` (first channel)."""
    mono = samples[::channels].astype(np.float64)
    if mono.size < 256:
        return 0.0
    spectrum = np.abs(np.fft.rfft(mono * np.hanning(mono.size)))
    return float(np.argmax(spectrum) * rate / mono.size)


def make_album(root: Path, title: str, names: list[str], *, kind: str = "mp3",
               seconds: float = 2.0) -> Path:  # fmt: skip
    """A library folder `root/title` with one encoded episode per file stem in `names`."""
    folder = root / title
    for i, name in enumerate(names):
        make_episode(folder / (name + FORMATS[kind][2]), kind=kind, seconds=seconds,
                     freq=300 + 50 * i)  # fmt: skip
    return folder


class RecordingSink:
    """An `AudioSink` that keeps every byte written; paced at `speed` x real time.

    `speed=0` writes instantly. `drops` counts drop() calls; `first_write` is the
    time.perf_counter() of the first write; `written` is set on every write.
    """

    def __init__(self, *, sample_rate: int = 48000, channels: int = 2, speed: float = 0.0):
        self.sample_rate = sample_rate
        self.channels = channels
        self.speed = speed
        self.pcm = bytearray()
        self.drops = 0
        self.closed = False
        self.first_write: float | None = None
        self.written = threading.Event()
        self._lock = threading.Lock()

    def write(self, pcm: bytes) -> None:
        if self.first_write is None:
            self.first_write = time.perf_counter()
        with self._lock:
            self.pcm += pcm
        self.written.set()
        if self.speed:
            frames = len(pcm) // (2 * self.channels)
            time.sleep(frames / self.sample_rate / self.speed)

    def drop(self) -> None:
        self.drops += 1

    def close(self) -> None:
        self.closed = True

    @property
    def frames(self) -> int:
        with self._lock:
            return len(self.pcm) // (2 * self.channels)

    def samples(self) -> np.ndarray:
        with self._lock:
            return np.frombuffer(bytes(self.pcm), dtype=np.int16).copy()


@dataclass
class AudioFile:
    """What the server does for one /audio/<name>: body and misbehaviour."""

    body: bytes
    content_type: str = "audio/mpeg"
    drop_after: int | None = None  # first request: send this many bytes, then hang up
    drops_left: int = 1
    lie_length: int = 0  # add this to Content-Length on every response
    delay: float = 0.0  # seconds between 16 KiB chunks
    status: int = 200
    ranges: bool = True  # honour Range requests


@dataclass
class CatalogServer:
    """An in-process aiohttp server: audio files, RSS feeds, a LibriVox API, a JSON API."""

    audio: dict[str, AudioFile] = field(default_factory=dict)
    feeds: dict[str, bytes] = field(default_factory=dict)
    books: list[dict] = field(default_factory=list)
    json_albums: list[dict] = field(default_factory=list)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    base: str = ""
    runner: web.AppRunner | None = None

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/audio/{name}", self._audio)
        app.router.add_get("/feeds/{name}", self._feed)
        app.router.add_get("/librivox/audiobooks/", self._librivox)
        app.router.add_get("/json/search", self._json_search)
        app.router.add_get("/json/detail", self._json_detail)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def _audio(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        self.requests.append((name, request.headers.get("Range")))
        item = self.audio.get(name)
        if item is None:
            raise web.HTTPNotFound()
        if item.status != 200:
            return web.Response(status=item.status, text="error")
        body = item.body
        start = 0
        status = 200
        headers = {"Content-Type": item.content_type, "Accept-Ranges": "bytes"}
        rng = request.headers.get("Range")
        if rng and rng.startswith("bytes=") and item.ranges:
            start = int(rng[6:].split("-")[0])
            if start >= len(body):
                return web.Response(status=416, headers={"Content-Range": f"bytes */{len(body)}"})
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
        payload = body[start:]
        response = web.StreamResponse(status=status, headers=headers)
        response.content_length = len(payload) + item.lie_length
        await response.prepare(request)
        limit = len(payload)
        if item.drop_after is not None and item.drops_left > 0:
            item.drops_left -= 1
            limit = min(limit, item.drop_after)
        for offset in range(0, limit, 16384):
            await response.write(payload[offset : min(limit, offset + 16384)])
            if item.delay:
                await asyncio.sleep(item.delay)
        if limit < len(payload) or item.lie_length:
            request.transport.close()  # hang up mid-body
            return response
        await response.write_eof()
        return response

    async def _feed(self, request: web.Request) -> web.Response:
        body = self.feeds.get(request.match_info["name"])
        if body is None:
            raise web.HTTPNotFound()
        return web.Response(body=body, content_type="application/rss+xml")

    async def _librivox(self, request: web.Request) -> web.Response:
        q = request.query
        books = self.books
        if "id" in q:
            books = [b for b in books if str(b["id"]) == q["id"]]
        elif "title" in q:  # as LibriVox: exact, or a prefix after "^"
            title = q["title"].lower()
            if title.startswith("^"):
                books = [b for b in books if b["title"].lower().startswith(title[1:])]
            else:
                books = [b for b in books if b["title"].lower() == title]
        elif "author" in q:
            books = [
                b for b in books
                if any(q["author"].lower() in a["last_name"].lower() for a in b["authors"])
            ]  # fmt: skip
        offset, limit = int(q.get("offset", 0)), int(q.get("limit", 50))
        books = books[offset : offset + limit]
        if not books:
            return web.json_response({"error": "Audiobooks could not be found"}, status=404)
        return web.json_response({"books": books})

    async def _json_search(self, request: web.Request) -> web.Response:
        if request.query.get("key") != "secret":
            return web.json_response({"code": 403, "msg": "bad key"})
        keyword = request.query.get("keyword", "")
        page = int(request.query.get("page", 1))
        found = [a for a in self.json_albums if keyword in a["albumName"]]
        chunk = found[(page - 1) * 2 : page * 2]  # two per page
        items = [
            {"albumId": a["albumId"], "albumName": a["albumName"], "anchor": a["anchor"],
             "count": len(a["tracks"])}
            for a in chunk
        ]  # fmt: skip
        return web.json_response({"code": 200, "data": {"list": items, "total": len(found)}})

    async def _json_detail(self, request: web.Request) -> web.Response:
        album_id = request.query.get("album_id")
        for album in self.json_albums:
            if str(album["albumId"]) == album_id:
                return web.json_response({"code": 200, "data": {"tracks": album["tracks"]}})
        return web.json_response({"code": 404, "data": {"tracks": []}})


def rss_feed(title: str, items: list[tuple[str, str, int | None]], *, author: str = "") -> bytes:
    """An RSS 2.0 podcast feed; items are (title, enclosure URL, itunes:episode or None)."""
    entries = []
    for name, url, number in items:
        episode = f"<itunes:episode>{number}</itunes:episode>" if number else ""
        entries.append(
            f"<item><title>{name}</title>{episode}"
            f'<enclosure url="{url}" length="1000" type="audio/mpeg"/></item>'
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
        f"<channel><title>{title}</title><itunes:author>{author}</itunes:author>"
        f"{''.join(entries)}</channel></rss>"
    ).encode()


async def wait_until(predicate, limit: float = 5.0) -> None:
    """Wait, at most `limit` seconds, until `predicate()` is true (state set by threads)."""
    async with asyncio.timeout(limit):
        while not predicate():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def wait_for_state(player, state, limit: float = 5.0) -> None:
    """Wait, at most `limit` seconds, until `player.state == state`."""
    await wait_until(lambda: player.state == state, limit)
