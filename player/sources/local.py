"""The local library: a folder tree, one folder per album, one audio file per episode.

This is the offline default. A folder holding audio files is an album titled by the
folder's name (or by an optional ``album.json`` with "title", "author", "description",
"narrator", "aliases", the book's names in the other language, and "skip_intro" /
"skip_outro", seconds of a series' opening and closing music to skip in every episode).
Section numbers come from the file names ("第十二集.mp3", "03 Chapter.ogg"); when names
give no distinct numbers, files are numbered in natural name order. A file with chapter
marks (an M4B, an MP3 with ID3 CHAP frames: `player.chapters`) gives one episode per
chapter, titled by its mark; in an album holding one, episodes are numbered 1, 2, 3 …
through the files in order, each plain file one episode. The tree is rescanned
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

from words.numbers import section_number

from ..chapters import CHAPTER_EXTENSIONS, Chapter, ChapterIndex
from ..errors import NotFoundError
from ..models import Album, AlbumDetail, Episode, SearchPage
from .base import rank, stable_id

_LOGGER = logging.getLogger(__name__)

AUDIO_EXTENSIONS = frozenset(
    {".mp3", ".m4a", ".m4b", ".aac", ".opus", ".ogg", ".oga", ".flac", ".wav", ".wma", ".webm"}
)


def natural_key(name: str) -> list[object]:
    """Sort key that orders "2" before "10" ("ep2" < "ep10")."""
    return [int(t) if t.isdigit() else t.casefold() for t in re.split(r"(\d+)", name)]


def number_episodes(
    album_id: str,
    files: list[Path] | list[str],
    chapters: dict[str, tuple[Chapter, ...]] | None = None,
) -> tuple[Episode, ...]:
    """Episodes for audio files: sections from the names when distinct, else name order.

    `chapters` maps a file's path to its chapter marks: such a file gives one episode per
    chapter (with its start and end in the file), and the album's episodes are then
    numbered 1, 2, 3 … through the files in the order above.
    """
    paths = sorted((str(f) for f in files), key=lambda p: natural_key(os.path.basename(p)))
    stems = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    numbers = [section_number(stem) for stem in stems]
    usable = all(n is not None and n > 0 for n in numbers) and len(set(numbers)) == len(numbers)
    if usable:
        rows = sorted(zip(numbers, stems, paths, strict=True), key=lambda t: t[0])
    else:
        rows = [(i, stem, p) for i, (stem, p) in enumerate(zip(stems, paths, strict=True), 1)]
    marks = chapters or {}
    if not any(marks.get(p) for _, _, p in rows):
        return tuple(
            Episode(album_id=album_id, section=int(n), title=stem, location=p)
            for n, stem, p in rows
        )
    episodes: list[Episode] = []
    for _, stem, path in rows:
        found = marks.get(path) or ()
        if not found:
            episodes.append(Episode(album_id, len(episodes) + 1, stem, path))
            continue
        for chapter in found:
            episodes.append(
                Episode(album_id, len(episodes) + 1, chapter.title, path,
                        duration=round(chapter.end - chapter.start, 3), start=chapter.start,
                        end=chapter.end)
            )  # fmt: skip
    return tuple(episodes)


_CHAPTERED = tuple(CHAPTER_EXTENSIONS)
MAX_SKIP_SECONDS = 600.0
"""The longest intro or outro skip album.json may set, in seconds."""


def _skip(value: object) -> float:
    """A skip_intro/skip_outro value of album.json as seconds (0 when absent or bad)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return max(0.0, min(float(value), MAX_SKIP_SECONDS))


@dataclass
class _Entry:
    """One album of a scan; its episodes are built when first asked for (few objects per
    album keep a rescan of a large library from filling the garbage collector's lists)."""

    album: Album
    files: list[str]
    chapters: dict[str, tuple[Chapter, ...]] | None = None
    detail: AlbumDetail | None = None

    def get_detail(self) -> AlbumDetail:
        if self.detail is None:
            self.detail = AlbumDetail(
                self.album, number_episodes(self.album.id, self.files, self.chapters)
            )
        return self.detail


class LocalLibrary:
    """Albums found under one or more library folders; no network, ids "lib:<hash>"."""

    prefix = "lib:"
    remote = False

    def __init__(
        self,
        paths: list[Path],
        *,
        rescan_interval: float = 2.0,
        chapters: ChapterIndex | None = None,
    ) -> None:
        """`paths`: library roots (missing ones are skipped); `rescan_interval`: seconds;
        `chapters`: where chapter marks read are remembered (default: in memory)."""
        self.paths = [Path(p) for p in paths]
        self.rescan_interval = rescan_interval
        self.chapter_index = chapters if chapters is not None else ChapterIndex()
        self._albums: dict[str, _Entry] = {}
        self._dir_mtimes: dict[str, int] = {}
        self._said: tuple[int, int] | None = None  # (albums, folders) the journal was told
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
        worked = time.monotonic()
        for root in self.paths:
            if not root.is_dir():
                continue
            for dirpath, files in self._walk(str(root), mtimes):
                if files:
                    entry = self._album(root, Path(dirpath), files)
                    albums[entry.album.id] = entry
                if time.monotonic() - worked > 0.005:
                    time.sleep(0.0005)  # let the event loop's thread have the GIL
                    worked = time.monotonic()
        self._albums = albums
        self._dir_mtimes = mtimes
        self.chapter_index.save()
        said = (len(albums), len(self.paths))
        level = logging.INFO if said != self._said else logging.DEBUG
        self._said = said  # a rescan that finds the same count says it once, not again
        _LOGGER.log(
            level,
            "local library: %d album%s under %d folder%s",
            len(albums),
            "" if len(albums) == 1 else "s",
            len(self.paths),
            "" if len(self.paths) == 1 else "s",
        )

    def _walk(self, top: str, mtimes: dict[str, int]):
        """(folder, audio file paths) for every folder under `top`, sorted; symlinked
        folders are not followed and symlinked files leading out of the roots are skipped."""
        pending = [top]
        while pending:
            folder = pending.pop()
            try:
                mtimes[folder] = os.stat(folder).st_mtime_ns
                with os.scandir(folder) as entries:
                    listed = sorted(entries, key=lambda e: e.name)
            except OSError as err:
                _LOGGER.warning("local library: cannot read %s: %s", folder, err)
                continue
            files = []
            subfolders = []
            for entry in listed:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        subfolders.append(entry.path)
                        continue
                    symlink = entry.is_symlink()
                except OSError:
                    continue
                if os.path.splitext(name)[1].lower() not in AUDIO_EXTENSIONS:
                    continue
                if symlink and not self.allows(Path(entry.path)):
                    _LOGGER.warning("local library: %s leads out of the library; skipped",
                                    entry.path)  # fmt: skip
                    continue
                files.append(entry.path)
            yield folder, files
            pending.extend(reversed(subfolders))

    def _album(self, root: Path, folder: Path, files: list[str]) -> _Entry:
        album_id = self.prefix + stable_id(str(folder.resolve()))
        title, author, description = folder.name if folder != root else root.name, "", ""
        narrator, aliases = "", ()
        intro = outro = 0.0
        info = folder / "album.json"
        if info.is_file():
            try:
                data = json.loads(info.read_text(encoding="utf-8"))
                title = str(data.get("title") or title)
                author = str(data.get("author") or "")
                description = str(data.get("description") or "")
                narrator = str(data.get("narrator") or "")
                names = data.get("aliases") or ()
                names = [names] if isinstance(names, str) else names
                aliases = tuple(str(n).strip() for n in names if str(n).strip())
                intro, outro = _skip(data.get("skip_intro")), _skip(data.get("skip_outro"))
            except (OSError, ValueError, AttributeError, TypeError) as err:
                _LOGGER.warning("local library: ignoring %s: %s", info, err)
        marks = self._chapters(files)
        count = len(files) + sum(len(c) - 1 for c in marks.values())
        album = Album(album_id, title, author, count, "local", description, narrator, aliases,
                      intro, outro)  # fmt: skip
        return _Entry(album, files, marks or None)

    def _chapters(self, files: list[str]) -> dict[str, tuple[Chapter, ...]]:
        """{path: chapter marks} of the files that have some (`ChapterIndex`)."""
        marks = {}
        for path in files:
            if not path.lower().endswith(_CHAPTERED):
                continue
            try:
                stat = os.stat(path)
            except OSError:
                continue
            found = self.chapter_index.chapters(path, stat.st_size, stat.st_mtime_ns)
            if found:
                marks[path] = found
        return marks

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
        """Albums whose title (or author, narrator) matches `keyword` forgivingly, best first."""
        await self.fresh()
        ranked = rank(keyword, [e.album for e in self._albums.values()])
        start = (max(page, 1) - 1) * page_size
        return SearchPage(tuple(ranked[start : start + page_size]), len(ranked), page)

    async def album(self, album_id: str) -> AlbumDetail:
        """The album and its episodes; raises NotFoundError for an unknown id."""
        await self.fresh()
        entry = self._albums.get(album_id)
        if entry is None:
            raise NotFoundError(f"no local album {album_id}")
        return entry.get_detail()

    def details(self) -> list[AlbumDetail]:
        """Every album of the last scan with its episodes (builds them; for tools, not turns)."""
        return [e.get_detail() for e in self._albums.values()]

    def albums(self) -> list[Album]:
        """Every local album as of the last scan (never scans: safe on the loop)."""
        return [e.album for e in self._albums.values()]

    def known_titles(self) -> list[str]:
        """Titles of every local album (as of the last scan; never scans on the loop)."""
        return [e.album.title for e in self._albums.values()]
