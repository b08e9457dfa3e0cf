"""The local library: a folder tree, one folder per album, one audio file per episode.

This is the offline default. A folder holding audio files is an album titled by the
folder's name (or by an optional ``album.json`` with "title", "author", "description").
Section numbers come from the file names ("第十二集.mp3", "03 Chapter.ogg"); when names
give no distinct numbers, files are numbered in natural name order. The tree is rescanned
only when a directory's modification time changes, checked at most every
`rescan_interval` seconds, in a worker thread: a search waits for a rescan at most half a
second, then answers from the last scan (new albums appear once it is done). Symlinked
files that lead out of the library roots are ignored.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import NotFoundError
from ..models import Album, AlbumDetail, Episode, SearchPage
from ..numbers import section_number
from .base import rank, stable_id

_LOGGER = logging.getLogger(__name__)

AUDIO_EXTENSIONS = frozenset(
    {".mp3", ".m4a", ".m4b", ".aac", ".opus", ".ogg", ".oga", ".flac", ".wav", ".wma", ".webm"}
)


def natural_key(name: str) -> list[object]:
    """Sort key that orders "2" before "10" ("ep2" < "ep10")."""
    return [int(t) if t.isdigit() else t.casefold() for t in re.split(r"(\d+)", name)]


def number_episodes(album_id: str, files: list[Path]) -> tuple[Episode, ...]:
    """Episodes for audio files: sections from the names when distinct, else name order."""
    files = sorted(files, key=lambda p: natural_key(p.name))
    numbers = [section_number(p.stem) for p in files]
    usable = all(n is not None and n > 0 for n in numbers) and len(set(numbers)) == len(numbers)
    if usable:
        pairs = sorted(zip(numbers, files, strict=True), key=lambda t: t[0])
    else:
        pairs = [(i, p) for i, p in enumerate(files, start=1)]
    return tuple(
        Episode(album_id=album_id, section=int(n), title=p.stem, location=str(p)) for n, p in pairs
    )


@dataclass
class _Entry:
    detail: AlbumDetail


class LocalLibrary:
    """Albums found under one or more library folders; no network, ids "lib:<hash>"."""

    prefix = "lib:"
    remote = False

    def __init__(self, paths: list[Path], *, rescan_interval: float = 2.0) -> None:
        """`paths`: library roots (missing ones are skipped); `rescan_interval`: seconds."""
        self.paths = [Path(p) for p in paths]
        self.rescan_interval = rescan_interval
        self._albums: dict[str, _Entry] = {}
        self._dir_mtimes: dict[str, int] = {}
        self._checked = float("-inf")
        self._scan: asyncio.Future[None] | None = None

    def allows(self, path: Path) -> bool:
        """True when `path`, with every symlink resolved, lies inside a library root."""
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            return False
        for root in self.paths:
            try:
                if real.is_relative_to(os.path.realpath(root)):
                    return True
            except (OSError, ValueError):
                continue
        return False

    def _changed(self) -> bool:
        if not self._dir_mtimes:
            return True
        for path, mtime in self._dir_mtimes.items():
            try:
                if os.stat(path).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        return any(str(p) not in self._dir_mtimes and p.is_dir() for p in self.paths)

    def refresh(self, *, force: bool = False) -> None:
        """Rescan the tree if a directory changed (checked at most every rescan_interval)."""
        now = time.monotonic()
        if not force and now - self._checked < self.rescan_interval:
            return
        self._checked = now
        if not force and not self._changed():
            return
        albums: dict[str, _Entry] = {}
        mtimes: dict[str, int] = {}
        for root in self.paths:
            if not root.is_dir():
                continue
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                try:
                    mtimes[dirpath] = os.stat(dirpath).st_mtime_ns
                except OSError:
                    continue
                files = [
                    Path(dirpath, f)
                    for f in filenames
                    if Path(f).suffix.lower() in AUDIO_EXTENSIONS and not f.startswith(".")
                ]
                # A symlink may point anywhere; only what stays inside a root is offered.
                files = [f for f in files if not os.path.islink(f) or self.allows(f)]
                if files:
                    entry = self._album(root, Path(dirpath), files)
                    albums[entry.detail.album.id] = entry
        self._albums = albums
        self._dir_mtimes = mtimes
        _LOGGER.info("local library: %d albums under %d folders", len(albums), len(self.paths))

    def _album(self, root: Path, folder: Path, files: list[Path]) -> _Entry:
        album_id = self.prefix + stable_id(str(folder.resolve()))
        title, author, description = folder.name if folder != root else root.name, "", ""
        info = folder / "album.json"
        if info.is_file():
            try:
                data = json.loads(info.read_text(encoding="utf-8"))
                title = str(data.get("title") or title)
                author = str(data.get("author") or "")
                description = str(data.get("description") or "")
            except (OSError, ValueError, AttributeError) as err:
                _LOGGER.warning("local library: ignoring %s: %s", info, err)
        episodes = number_episodes(album_id, files)
        album = Album(album_id, title, author, len(episodes), "local", description)
        return _Entry(AlbumDetail(album, episodes))

    async def fresh(self, wait: float = 0.5) -> None:
        """Rescan in a worker thread when due; waits at most `wait` seconds for it, so a
        long rescan never holds up a turn (its new albums appear once it is done)."""
        if time.monotonic() - self._checked < self.rescan_interval:
            return
        if self._scan is None or self._scan.done():
            self._scan = asyncio.ensure_future(asyncio.to_thread(self.refresh))
        await asyncio.wait({self._scan}, timeout=wait)
        if self._scan.done() and not self._scan.cancelled() and self._scan.exception():
            _LOGGER.warning("local library: rescan failed: %s", self._scan.exception())

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        """Albums whose title (or author) matches `keyword` forgivingly, best first."""
        await self.fresh()
        ranked = rank(keyword, [e.detail.album for e in self._albums.values()])
        start = (max(page, 1) - 1) * page_size
        return SearchPage(tuple(ranked[start : start + page_size]), len(ranked), page)

    async def album(self, album_id: str) -> AlbumDetail:
        """The album and its episodes; raises NotFoundError for an unknown id."""
        await self.fresh()
        entry = self._albums.get(album_id)
        if entry is None:
            raise NotFoundError(f"本地没有这个专辑: {album_id}")
        return entry.detail

    def known_titles(self) -> list[str]:
        """Titles of every local album (as of the last scan; never scans on the loop)."""
        return [e.detail.album.title for e in self._albums.values()]
