"""SQLite state under the state directory: cache index, download jobs, bookmarks, albums.

stdlib `sqlite3` in WAL mode with ``synchronous=NORMAL``: every statement commits on its
own, so a kill -9 loses nothing already written and a power cut at most the last moments.
All calls are short and made from the event-loop thread.

Tables: ``cache`` (one row per complete, checked file: key, album id, section, URL, file
name, size in bytes, last played as Unix seconds), ``downloads`` (bytes so far, total,
state), ``bookmarks`` (album id, section, position in seconds) and ``albums`` (album
details seen from remote sources, as JSON, so cached episodes play with no network).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .models import Album, AlbumDetail, Episode

SCHEMA = """
CREATE TABLE IF NOT EXISTS cache (
    key TEXT PRIMARY KEY, album_id TEXT NOT NULL, section INTEGER NOT NULL, url TEXT NOT NULL,
    name TEXT NOT NULL, size INTEGER NOT NULL, last_played REAL, added REAL NOT NULL);
CREATE TABLE IF NOT EXISTS downloads (
    key TEXT PRIMARY KEY, album_id TEXT NOT NULL, section INTEGER NOT NULL, url TEXT NOT NULL,
    name TEXT NOT NULL, bytes INTEGER NOT NULL DEFAULT 0, total INTEGER,
    state TEXT NOT NULL, error TEXT, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS bookmarks (
    album_id TEXT PRIMARY KEY, album_title TEXT NOT NULL, section INTEGER NOT NULL,
    episode_title TEXT NOT NULL, position REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS albums (
    album_id TEXT PRIMARY KEY, title TEXT NOT NULL, detail TEXT NOT NULL, seen REAL NOT NULL);
"""


@dataclass(frozen=True)
class CacheEntry:
    """A complete, checked file in the cache: `name` is relative to the cache directory."""

    key: str
    album_id: str
    section: int
    url: str
    name: str
    size: int
    last_played: float | None
    added: float


@dataclass(frozen=True)
class Bookmark:
    """Where a book was left: 1-based section and position in seconds."""

    album_id: str
    album_title: str
    section: int
    episode_title: str
    position: float
    updated: float


class Store:
    """The player's SQLite database (created on first use)."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the database at `path`; its directory is created if needed."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=2000")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    # cache -----------------------------------------------------------------------------
    def cache_get(self, key: str) -> CacheEntry | None:
        """The cache entry for `key`, or None."""
        row = self.db.execute("SELECT * FROM cache WHERE key=?", (key,)).fetchone()
        return CacheEntry(*row) if row else None

    def cache_put(self, entry: CacheEntry) -> None:
        """Insert or replace a cache entry (called after the file is renamed into place)."""
        self.db.execute(
            "INSERT OR REPLACE INTO cache VALUES (?,?,?,?,?,?,?,?)", dataclasses.astuple(entry)
        )

    def cache_delete(self, key: str) -> None:
        """Forget a cache entry."""
        self.db.execute("DELETE FROM cache WHERE key=?", (key,))

    def cache_touch(self, key: str) -> None:
        """Mark an entry as just played (for least-recently-played eviction)."""
        self.db.execute("UPDATE cache SET last_played=? WHERE key=?", (time.time(), key))

    def cache_entries(self) -> list[CacheEntry]:
        """All entries, least recently played first (never-played oldest first)."""
        rows = self.db.execute(
            "SELECT * FROM cache ORDER BY COALESCE(last_played, added) ASC, added ASC"
        ).fetchall()
        return [CacheEntry(*r) for r in rows]

    # downloads -------------------------------------------------------------------------
    def download_update(
        self,
        key: str,
        episode: Episode,
        name: str,
        *,
        done: int,
        total: int | None,
        state: str,
        error: str | None = None,
    ) -> None:
        """Record a download's progress: bytes `done` of `total`, state and last error."""
        self.db.execute(
            "INSERT OR REPLACE INTO downloads VALUES (?,?,?,?,?,?,?,?,?,?)",
            (key, episode.album_id, episode.section, episode.location, name, done, total,
             state, error, time.time()),
        )  # fmt: skip

    def download_delete(self, key: str) -> None:
        """Forget a download job (it completed, or its partial file was removed)."""
        self.db.execute("DELETE FROM downloads WHERE key=?", (key,))

    def downloads(self) -> list[tuple[str, str, int, int | None, str]]:
        """(key, name, bytes, total, state) of every recorded download job."""
        return self.db.execute("SELECT key, name, bytes, total, state FROM downloads").fetchall()

    # bookmarks -------------------------------------------------------------------------
    def bookmark_save(self, album: Album, episode: Episode, position: float) -> None:
        """Remember where `album` was left: `episode` at `position` seconds."""
        self.db.execute(
            "INSERT OR REPLACE INTO bookmarks VALUES (?,?,?,?,?,?)",
            (album.id, album.title, episode.section, episode.title, max(0.0, position),
             time.time()),
        )  # fmt: skip

    def bookmark(self, album_id: str) -> Bookmark | None:
        """The bookmark of one album, or None."""
        row = self.db.execute("SELECT * FROM bookmarks WHERE album_id=?", (album_id,)).fetchone()
        return Bookmark(*row) if row else None

    def last_bookmark(self) -> Bookmark | None:
        """The most recently updated bookmark, or None."""
        row = self.db.execute("SELECT * FROM bookmarks ORDER BY updated DESC LIMIT 1").fetchone()
        return Bookmark(*row) if row else None

    # albums ----------------------------------------------------------------------------
    def album_save(self, detail: AlbumDetail) -> None:
        """Remember an album's details (remote sources), for offline replay of the cache."""
        data = {
            "album": dataclasses.asdict(detail.album),
            "episodes": [dataclasses.asdict(e) for e in detail.episodes],
        }
        self.db.execute(
            "INSERT OR REPLACE INTO albums VALUES (?,?,?,?)",
            (detail.album.id, detail.album.title, json.dumps(data, ensure_ascii=False),
             time.time()),
        )  # fmt: skip

    def album_load(self, album_id: str) -> AlbumDetail | None:
        """A remembered album's details, or None."""
        row = self.db.execute("SELECT detail FROM albums WHERE album_id=?", (album_id,)).fetchone()
        if not row:
            return None
        data = json.loads(row[0])
        return AlbumDetail(Album(**data["album"]), tuple(Episode(**e) for e in data["episodes"]))

    def albums(self) -> list[Album]:
        """Every remembered album (most recently seen first)."""
        rows = self.db.execute("SELECT detail FROM albums ORDER BY seen DESC").fetchall()
        return [Album(**json.loads(r[0])["album"]) for r in rows]
