"""Chapter marks inside audio files: read once with PyAV, remembered by path, size and mtime.

A bought or ripped audiobook is often one M4B (or M4A/MP3) file with chapter marks: the MP4
chapter list, or ID3v2 CHAP frames in an MP3 (ID3v2 Chapter Frame Addendum,
id3.org/id3v2-chapters-1.0). `read_chapters` returns them as PyAV's
`container.chapters()` gives them, in order, each ending where the next begins. An MP3
is opened with PyAV only when its ID3 tag holds a CHAP frame (`id3_has_chapters` reads a
few bytes), so a folder of plain MP3s costs one short read per file. `ChapterIndex` keeps
what was read keyed by path with the file's size and modification time, in the player's
store when it has one, so a library scan reads each file once: a 20-hour file with 200
chapters is read in well under a second (bench/player.py prints the figure).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import av

_LOGGER = logging.getLogger(__name__)

CHAPTER_EXTENSIONS = frozenset({".m4b", ".m4a", ".mp4", ".mp3"})
"""File types whose chapter marks are read (MP4 chapter lists, ID3v2 CHAP frames)."""
_SUFFIXES = tuple(CHAPTER_EXTENSIONS)
MIN_FILE_BYTES = 1024
"""A smaller file holds no chapter list worth reading."""
MAX_ID3_FRAMES = 4096
"""ID3 frames walked at most while looking for CHAP (a tag is usually a dozen)."""


@dataclass(frozen=True)
class Chapter:
    """One chapter mark: `start` and `end` in seconds from the start of the file."""

    start: float
    end: float
    title: str = ""


def _syncsafe(data: bytes) -> int:
    return (data[0] << 21) | (data[1] << 14) | (data[2] << 7) | data[3]


def id3_has_chapters(path: Path) -> bool:
    """True when the file starts with an ID3v2.3/2.4 tag holding a CHAP frame.

    Reads the 10-byte tag header and then only frame headers (a cover picture is skipped
    over, not read). Raises OSError when the file cannot be read.
    """
    with open(path, "rb") as fh:
        header = fh.read(10)
        if len(header) < 10 or header[:3] != b"ID3" or header[3] not in (3, 4):
            return False
        version, flags = header[3], header[5]
        end = 10 + _syncsafe(header[6:10])
        at = 10
        if flags & 0x40:  # an extended header comes first
            fh.seek(at)
            size = fh.read(4)
            if len(size) < 4:
                return False
            at += _syncsafe(size) if version == 4 else 4 + int.from_bytes(size, "big")
        for _ in range(MAX_ID3_FRAMES):
            if at + 10 > end:
                return False
            fh.seek(at)
            frame = fh.read(10)
            if len(frame) < 10 or frame[0] == 0:  # the end of the file, or padding
                return False
            if frame[:4] == b"CHAP":
                return True
            size = _syncsafe(frame[4:8]) if version == 4 else int.from_bytes(frame[4:8], "big")
            at += 10 + size
    return False


def read_chapters(path: Path) -> tuple[Chapter, ...]:
    """The chapter marks of the audio file at `path`, in order; () when it has fewer than
    two (one chapter is the whole file). Each chapter ends where the next begins; the
    last ends at its own mark, else at the file's end. Raises OSError or av.FFmpegError
    when the file cannot be read."""
    path = Path(path)
    if path.suffix.lower() == ".mp3" and not id3_has_chapters(path):
        return ()
    with av.open(str(path)) as container:
        raw = container.chapters()
        length = container.duration / 1_000_000 if container.duration else 0.0
    marks = []
    for item in raw:
        base = item.get("time_base")
        if not base:
            continue
        start = max(0.0, float(item["start"] * base))
        end = float(item["end"] * base)
        title = str((item.get("metadata") or {}).get("title") or "").strip()
        marks.append((start, end, title))
    marks.sort(key=lambda m: m[0])
    chapters: list[Chapter] = []
    for i, (start, end, title) in enumerate(marks):
        following = marks[i + 1][0] if i + 1 < len(marks) else None
        if following is not None:
            end = following
        elif end <= start:
            end = length
        if end - start < 0.01:  # a mark of no length (or a repeat) is no chapter
            continue
        chapters.append(Chapter(round(start, 3), round(end, 3), title))
    return tuple(chapters) if len(chapters) >= 2 else ()


class ChapterStore(Protocol):
    """Where `ChapterIndex` remembers what it read (the player's `Store`)."""

    def chapter_rows(self) -> dict[str, tuple[int, int, str]]:
        """Every remembered file: {path: (size, mtime in ns, chapters as JSON)}."""
        ...

    def chapters_save(self, rows: list[tuple[str, int, int, str]]) -> None:
        """Remember (path, size, mtime in ns, chapters as JSON) rows, in one write."""
        ...


class ChapterIndex:
    """The chapter marks of audio files, read once per file version and remembered.

    `chapters(path, size, mtime_ns)` answers from memory when the file's size and
    modification time are those remembered, else reads the file (`read_chapters`). What
    was read is kept for `save` (one write to `store`, if any). Thread-safe: a library scan
    calls it from its worker thread.
    """

    def __init__(self, store: ChapterStore | None = None) -> None:
        """`store`: where rows persist across restarts; None keeps them in memory."""
        self.store = store
        self.read = 0
        self._known: dict[str, tuple[int, int, tuple[Chapter, ...]]] | None = None
        self._new: dict[str, tuple[int, int, str]] = {}
        self._lock = threading.Lock()

    def _load(self) -> dict[str, tuple[int, int, tuple[Chapter, ...]]]:
        known: dict[str, tuple[int, int, tuple[Chapter, ...]]] = {}
        rows = self.store.chapter_rows() if self.store is not None else {}
        for path, (size, mtime, text) in rows.items():
            try:
                chapters = tuple(
                    Chapter(float(s), float(e), str(t)) for s, e, t in json.loads(text)
                )
            except (ValueError, TypeError):
                continue
            known[path] = (int(size), int(mtime), chapters)
        return known

    def chapters(self, path: str, size: int, mtime_ns: int) -> tuple[Chapter, ...]:
        """The chapters of the file at `path` whose size (bytes) and mtime (ns) are
        given; () for a file without chapter marks or one that cannot be read (logged)."""
        if size < MIN_FILE_BYTES or not path.lower().endswith(_SUFFIXES):
            return ()
        with self._lock:
            if self._known is None:
                self._known = self._load()
            held = self._known.get(path)
        if held is not None and held[0] == size and held[1] == mtime_ns:
            return held[2]
        try:
            chapters = read_chapters(Path(path))
        except (OSError, av.FFmpegError, ValueError) as err:
            _LOGGER.info("chapters of %s unreadable (%s): played as one episode", path, err)
            chapters = ()
        self.read += 1
        text = json.dumps([[c.start, c.end, c.title] for c in chapters], ensure_ascii=False)
        with self._lock:
            assert self._known is not None
            self._known[path] = (size, mtime_ns, chapters)
            self._new[path] = (size, mtime_ns, text)
        if chapters:
            _LOGGER.info("%s: %d chapters", os.path.basename(path), len(chapters))
        return chapters

    def save(self) -> None:
        """Write what was read since the last save to the store (one write)."""
        with self._lock:
            rows = [(p, s, m, t) for p, (s, m, t) in self._new.items()]
            self._new.clear()
        if rows and self.store is not None:
            self.store.chapters_save(rows)


__all__ = [
    "CHAPTER_EXTENSIONS",
    "Chapter",
    "ChapterIndex",
    "ChapterStore",
    "id3_has_chapters",
    "read_chapters",
]
