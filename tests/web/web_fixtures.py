"""Helpers of the page's tests: a library of short MP3 albums, a real runtime (player,
registry, App) with the page served on a free port of 127.0.0.1, and an HTTP client that
logs in as the page does."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import shutil
import tempfile
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import ClientSession, CookieJar

from device import config as config_mod
from device.demo import encode_episode
from device.runtime import build, trace_tool_call
from device.wav_output import WavFileOutput
from device.web import auth
from device.web.server import WebServer

T = 20
"""Seconds any one await of these tests may take."""
PASSWORD = "correct-horse-7"


def tone_mp3(path: Path, seconds: float = 4.0, hz: float = 440.0) -> Path:
    """A short MP3 of a tone (mono, 16 kHz source) at `path`."""
    rate = 16000
    t = np.arange(int(rate * seconds)) / rate
    pcm = (np.sin(2 * np.pi * hz * t) * 6000).astype("<i2").tobytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    encode_episode(pcm, rate, path)
    return path


def zip_of(files: dict[str, bytes], *, compression: int = zipfile.ZIP_STORED) -> bytes:
    """A zip archive holding `files` ({member name: bytes}) as bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def write_config(
    tmp_path: Path, *, web: str = "", audio: str = "", extra: str = "", library: str = ""
) -> Path:
    """A config file for a service under `tmp_path` (no sound card, no button), with a
    comment the settings tests expect to survive."""
    path = tmp_path / "config.toml"
    path.write_text(
        "# the household box\n"
        'language = "zh"\n'
        f'state_dir = "{tmp_path / "state"}"\ncache_dir = "{tmp_path / "cache"}"\n'
        f'models_dir = "{tmp_path / "models"}"\nruntime_dir = "{tmp_path / "run"}"\n'
        f"{extra}"
        '[audio]\nplayback_device = "null"\ncapture_device = "null"\n'
        "max_volume_percent = 100          # the loudest the box plays\n"
        f"{audio}"
        "[button]\ngpio = false\nkeyboard = false\n"
        f'[library]\npaths = ["{tmp_path / "library"}"]\n{library}'
        f"[web]\n{web}",
        encoding="utf-8",
    )
    return path


_TEMPLATE: list[Path] = []


def _template_library() -> Path:
    """西游记 (3 episodes) and Dracula (2 chapters), 30 s each, encoded once per session."""
    if not _TEMPLATE:
        root = Path(tempfile.mkdtemp(prefix="xiaoting-web-library-"))
        for n in (1, 2, 3):
            tone_mp3(root / "西游记" / f"第{n}集.mp3", seconds=30)
        for n in (1, 2):
            tone_mp3(root / "Dracula" / f"Chapter {n}.mp3", seconds=30, hz=330.0)
        _TEMPLATE.append(root)
    return _TEMPLATE[0]


@dataclasses.dataclass
class World:
    """A running runtime with its page: `url`, the `server`, the `runtime`, paths."""

    url: str
    server: WebServer
    runtime: Any
    config: config_mod.Config
    config_path: Path
    library: Path
    state: Path

    def library_entries(self) -> list[str]:
        """Every name in the library folder, hidden ones too (nothing half-written)."""
        return sorted(p.name for p in self.library.iterdir())


async def start_world(
    tmp_path: Path,
    *,
    password: str | None = PASSWORD,
    web: str = "",
    audio: str = "",
    library: str = "",
) -> tuple[World, asyncio.Task]:
    """A library of two albums, a real runtime (no model: tools only) and its page."""
    folder = tmp_path / "library"
    shutil.copytree(_template_library(), folder)
    path = write_config(tmp_path, web=web, audio=audio, library=library)
    cfg = config_mod.load(path)
    if password:
        auth.set_password(auth.password_path(cfg.path("state_dir")), password)
    rt = await asyncio.wait_for(
        build(
            cfg,
            load_model=False,
            output=WavFileOutput(tmp_path / "speaker.wav", realtime=True),
            recogniser=None,
            synthesiser=None,
            buttons=[],
            control=False,
        ),
        T,
    )
    serving = asyncio.create_task(rt.serve())
    served = dataclasses.replace(cfg, web=dataclasses.replace(cfg.web, port=0))
    server = WebServer(
        served,
        app=rt.app,
        player=rt.player,
        registry=rt.registry,
        on_call=trace_tool_call(rt.trace),
    )
    await asyncio.wait_for(server.start(), T)
    world = World(
        f"http://127.0.0.1:{server.port}", server, rt, cfg, path, folder, cfg.path("state_dir")
    )
    return world, serving


async def stop_world(world: World, serving: asyncio.Task) -> None:
    """Close the page, then stop the runtime (bookmarks saved)."""
    await asyncio.wait_for(world.server.close(), T)
    world.runtime.app.request_stop("test done")
    await asyncio.wait_for(serving, T)


class Page:
    """An HTTP client that behaves as the page: its cookie jar, the CSRF token, the
    language header. `request` returns (status, JSON body)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.csrf = ""
        self.session = ClientSession(cookie_jar=CookieJar(unsafe=True))  # an IP-address host

    async def request(
        self,
        method: str,
        path: str,
        json: Any = None,
        *,
        csrf: bool = True,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[int, dict[str, Any]]:
        sent = {"X-Xiaoting-Language": "en", "Origin": self.url}
        if csrf and self.csrf:
            sent["X-CSRF-Token"] = self.csrf
        sent.update(headers or {})
        async with self.session.request(
            method, self.url + path, json=json, headers=sent, **kwargs
        ) as response:
            try:
                body = await response.json(content_type=None)
            except ValueError:
                body = {"text": await response.text()}
            return response.status, body

    async def login(self, password: str = PASSWORD) -> None:
        status, body = await self.request("POST", "/api/login", {"password": password})
        assert status == 200, body
        self.csrf = body["csrf"]

    async def close(self) -> None:
        await self.session.close()


@contextlib.asynccontextmanager
async def served(tmp_path: Path, **options: Any) -> AsyncIterator[tuple[World, Page]]:
    """`start_world(tmp_path, **options)` with a logged-in `Page`; both closed after."""
    world, serving = await start_world(tmp_path, **options)
    page = Page(world.url)
    try:
        await asyncio.wait_for(page.login(), T)
        yield world, page
    finally:
        await page.close()
        await stop_world(world, serving)


async def album_id(page: Page, title: str) -> str:
    """The id of the album titled `title`, as the page's list gives it."""
    status, body = await page.request("GET", "/api/albums")
    assert status == 200, body
    found = [a["id"] for a in body["albums"] if a["title"] == title]
    assert found, body
    return found[0]


def form(album: str | None, files: list[tuple[str, bytes]]) -> Any:
    """A multipart body as the page sends it: ``album`` then each ``files`` part."""
    from aiohttp import FormData

    data = FormData(quote_fields=False)  # names sent as a browser sends them
    if album is not None:
        data.add_field("album", album)
    for name, content in files:
        data.add_field("files", content, filename=name, content_type="application/octet-stream")
    return data


async def raw_upload(
    world: World, page: Page, headers: dict[str, str], chunks: Any
) -> tuple[int, dict[str, Any]]:
    """POST /api/upload over a bare socket with `headers` (a Content-Length that lies, or
    chunked transfer) and the byte `chunks` sent while the answer is read: (status, JSON).
    The server may answer before the body is sent; writes after that are ignored."""
    from yarl import URL

    cookie = page.session.cookie_jar.filter_cookies(URL(world.url))["xiaoting_session"].value
    reader, writer = await asyncio.open_connection("127.0.0.1", world.server.port)
    lines = [
        "POST /api/upload HTTP/1.1",
        f"Host: 127.0.0.1:{world.server.port}",
        f"Origin: {world.url}",
        f"Cookie: xiaoting_session={cookie}",
        f"X-CSRF-Token: {page.csrf}",
        "X-Xiaoting-Language: en",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())

    async def send() -> None:
        try:
            for chunk in chunks:
                writer.write(chunk)
                await writer.drain()
                await asyncio.sleep(0)
        except (ConnectionError, OSError):
            pass

    sending = asyncio.create_task(send())
    try:
        status_line = await asyncio.wait_for(reader.readline(), T)
        status = int(status_line.split()[1])
        length = 0
        while (line := await asyncio.wait_for(reader.readline(), T)) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = await asyncio.wait_for(reader.readexactly(length), T)
    finally:
        sending.cancel()
        writer.close()
    import json

    return status, json.loads(body)


def chunked(parts: list[bytes]) -> list[bytes]:
    """`parts` framed as HTTP/1.1 chunked transfer, with the last chunk."""
    return [f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in parts] + [b"0\r\n\r\n"]
