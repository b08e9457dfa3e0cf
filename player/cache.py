"""Cached episode files: names derived from hashes, a size cap, least-recently-played eviction.

A file's name is the sha1 of (album id, section, URL) plus a known audio extension, under a
two-letter fan-out directory, e.g. ``3f/3f2a…c1.mp3``; nothing a person says (a keyword
with "../", "/" or NUL) ever becomes part of a path, and `path_of` refuses any name that
would resolve outside the cache directory. Partial downloads live beside as ``….part``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from pathlib import Path
from urllib.parse import urlsplit

from .errors import DownloadError
from .models import Episode
from .store import CacheEntry, Store

_LOGGER = logging.getLogger(__name__)

KNOWN_EXTENSIONS = frozenset(
    {".mp3", ".m4a", ".m4b", ".aac", ".opus", ".ogg", ".oga", ".flac", ".wav"}
)
PART_SUFFIX = ".part"


def episode_key(episode: Episode) -> str:
    """A 24-hex-digit key for an episode: sha1 of album id, section and location."""
    text = f"{episode.album_id}\x1f{episode.section}\x1f{episode.location}"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def file_name(episode: Episode) -> str:
    """The cache-relative file name of an episode ("ab/ab12….mp3"); never from user text."""
    key = episode_key(episode)
    suffix = Path(urlsplit(episode.location).path).suffix.lower()
    if suffix not in KNOWN_EXTENSIONS:
        suffix = ".audio"
    return f"{key[:2]}/{key}{suffix}"


class Cache:
    """Episode files under `directory`, indexed in the `Store`, capped at `max_bytes`."""

    def __init__(self, directory: Path, store: Store, *, max_bytes: int) -> None:
        """`max_bytes`: total size of complete files kept before eviction."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.root = self.directory.resolve()
        self.store = store
        self.max_bytes = max_bytes

    def path_of(self, name: str) -> Path:
        """Absolute path of a cache-relative name; raises DownloadError if it leaves the cache."""
        if "\x00" in name:
            raise DownloadError("缓存文件名不合法")
        path = (self.root / name).resolve()
        if not path.is_relative_to(self.root) or path == self.root:
            raise DownloadError("缓存文件名不合法")
        return path

    def lookup(self, episode: Episode) -> Path | None:
        """The complete cached file of `episode`, or None (a stale index row is dropped)."""
        key = episode_key(episode)
        entry = self.store.cache_get(key)
        if entry is None:
            return None
        path = self.path_of(entry.name)
        try:
            if path.stat().st_size == entry.size:
                return path
        except OSError:
            pass
        _LOGGER.warning("cache: %s missing or changed; forgetting it", entry.name)
        self.store.cache_delete(key)
        return None

    def part_path(self, episode: Episode) -> Path:
        """Where the partial download of `episode` is written."""
        return self.path_of(file_name(episode) + PART_SUFFIX)

    def commit(self, episode: Episode, part: Path) -> Path:
        """Rename a complete, checked partial file into place and index it; returns the path."""
        name = file_name(episode)
        final = self.path_of(name)
        size = part.stat().st_size
        os.replace(part, final)
        now = time.time()
        self.store.cache_put(
            CacheEntry(episode_key(episode), episode.album_id, episode.section,
                       episode.location, name, size, None, now)
        )  # fmt: skip
        return final

    def remove(self, episode: Episode) -> None:
        """Delete an episode's cached file and index row (e.g. it turned out corrupt)."""
        key = episode_key(episode)
        entry = self.store.cache_get(key)
        name = entry.name if entry else file_name(episode)
        self.store.cache_delete(key)
        try:
            self.path_of(name).unlink()
        except FileNotFoundError:
            pass
        _LOGGER.info("cache: removed %s", name)

    def is_cached_path(self, path: Path) -> bool:
        """True when `path` lies inside the cache directory."""
        return Path(path).resolve().is_relative_to(self.root)

    def total_bytes(self) -> int:
        """Total size of indexed files, in bytes."""
        return sum(e.size for e in self.store.cache_entries())

    def evict(self, protect: set[str]) -> list[str]:
        """Delete least-recently-played files until under the cap, sparing `protect` keys."""
        entries = self.store.cache_entries()
        total = sum(e.size for e in entries)
        removed = []
        for entry in entries:
            if total <= self.max_bytes:
                break
            if entry.key in protect:
                continue
            self.store.cache_delete(entry.key)
            try:
                self.path_of(entry.name).unlink()
            except FileNotFoundError:
                pass
            total -= entry.size
            removed.append(entry.key)
            _LOGGER.info("cache: evicted %s (%d bytes)", entry.name, entry.size)
        return removed

    def evict_for(self, need: int, protect: set[str]) -> int:
        """Delete least-recently-played files, sparing `protect` keys, until `need` bytes
        are freed (or nothing is left to delete); returns the bytes freed."""
        freed = 0
        for entry in self.store.cache_entries():
            if freed >= need:
                break
            if entry.key in protect:
                continue
            try:
                self.path_of(entry.name).unlink()
            except FileNotFoundError:
                pass
            except OSError as err:
                _LOGGER.warning("cache: cannot remove %s: %s", entry.name, err)
                continue
            try:
                self.store.cache_delete(entry.key)
            except sqlite3.Error as err:
                _LOGGER.warning("cache: index not updated for %s: %s", entry.name, err)
            freed += entry.size
            _LOGGER.info("cache: evicted %s (%d bytes) to free space", entry.name, entry.size)
        return freed

    def touch(self, episode: Episode) -> None:
        """Mark an episode as just played; a failing database is logged, never raised."""
        try:
            self.store.cache_touch(episode_key(episode))
        except sqlite3.Error as err:
            _LOGGER.warning("cache: play time of %s not saved: %s", episode_key(episode), err)

    def reconcile(self) -> None:
        """Make the index and the directory agree after a crash.

        Index rows whose file is missing or of another size are dropped; complete-looking
        files with no index row (a crash between rename and insert) are deleted; partial
        files are kept only if a download job still refers to them.
        """
        indexed = {}
        for entry in self.store.cache_entries():
            path = self.path_of(entry.name)
            if not path.is_file() or path.stat().st_size != entry.size:
                self.store.cache_delete(entry.key)
            else:
                indexed[path] = entry
        jobs = {self.path_of(name + PART_SUFFIX) for _k, name, *_ in self.store.downloads()}
        jobs |= {p.with_name(p.name + ".json") for p in jobs}  # their resume data
        for path in self.root.glob("*/*"):
            if path in indexed or path in jobs or not path.is_file():
                continue
            _LOGGER.info("cache: removing stray %s", path.name)
            path.unlink(missing_ok=True)
