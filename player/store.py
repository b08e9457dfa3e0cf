"""SQLite state under the state directory: cache index, download jobs, bookmarks, albums.

stdlib `sqlite3` in WAL mode with ``synchronous=FULL``: every statement commits on its own
and is on the disk when it returns, so neither a kill -9 nor a power cut loses a bookmark
already written. All calls are short and made from the event-loop thread.

Tables: ``cache`` (one row per complete, checked file: key, album id, section, URL, file
name, size in bytes, last played as Unix seconds), ``downloads`` (bytes so far, total,
state), ``bookmarks`` (album id, section, position in seconds), ``albums`` (album
details seen from remote sources, as JSON, so cached episodes play with no network),
``books`` (per book: playback speed, seconds of intro and outro skipped), ``chapters``
(the chapter marks of local files by path, size and mtime, as JSON) and ``settings``.
Calls are serialised by a lock, so a library scan may use the chapter table from its
worker thread.

The store never stops the player. A write that fails (disk full, read-only, I/O error) is
logged once, kept in memory (bookmarks are read back from there) and retried with backoff
until the disk takes it again. A state directory that cannot be written at start-up gives
one clear line and a database in memory; a corrupt database file is moved aside as
``player.sqlite3.corrupt-<time>`` and what can still be read of it is recovered.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
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
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS books (
    album_id TEXT PRIMARY KEY, speed REAL, intro REAL, outro REAL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS chapters (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, chapters TEXT NOT NULL);
"""
TABLES = ("cache", "downloads", "bookmarks", "albums", "settings", "books", "chapters")
# Below this many free bytes the state directory counts as full at start-up.
MIN_FREE_BYTES = 256 * 1024
# Backoff between retries of failed writes, in seconds (doubling up to the store's cap).
RETRY_FIRST = 0.5

_LOGGER = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class BookSettings:
    """What a listener set for one book: playback speed (1.0 normal) and the seconds
    skipped at the start (`intro`) and end (`outro`) of every episode; None: not set."""

    speed: float | None = None
    intro: float | None = None
    outro: float | None = None


class Store:
    """The player's SQLite database (created on first use); its writes never raise.

    `persistent` is False when the state lives in memory only (a read-only or unusable
    state directory); `problem` is the one-line reason, "" when all is well; `recovered`
    is the path a corrupt database was moved to, or None. `retry_max` caps the backoff
    between retries of failed writes (seconds); `clock` is `time.monotonic` (tests).
    """

    def __init__(
        self,
        path: Path,
        *,
        retry_max: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Open (or create) the database at `path`; its directory is created if needed."""
        self.path = Path(path)
        self.retry_max = max(RETRY_FIRST, retry_max)
        self._clock = clock
        self.persistent = True
        self.problem = ""
        self.recovered: Path | None = None
        self.salvaged: dict[str, int] = {}
        self.failed_writes = 0
        self.last_write_error = ""
        self._pending: dict[tuple, tuple[str, tuple]] = {}
        self._marks: dict[str, Bookmark] = {}
        self._retry_at = 0.0
        self._backoff = RETRY_FIRST
        self._failing_since: float | None = None
        self._read_failing = False
        self._lock = threading.RLock()
        self._books: dict[str, BookSettings] = {}
        self.db = self._open()
        if self.problem:
            _LOGGER.warning("%s", self.problem)

    # opening ---------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        where = self.path.parent
        try:
            where.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            return self._in_memory(f"state directory {where} cannot be created ({_why(err)})")
        state = _writable(where)
        if state == "read-only":
            return self._in_memory(f"state directory {where} is read-only")
        try:
            db = self._connect(self.path)
        except sqlite3.DatabaseError as err:
            if _is_corrupt(err):
                return self._recover(err)
            if state == "full":
                return self._in_memory(f"state directory {where} is full")
            return self._in_memory(f"state database {self.path} cannot be opened ({err})")
        if state == "full":
            self.problem = (
                f"state directory {where} is full: bookmarks are kept in memory and will not"
                " survive a restart until space is freed"
            )
        return db

    @staticmethod
    def _connect(path: Path | str, *, check: bool = True) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout=2000")
            if str(path) != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
            if check:
                verdict = db.execute("PRAGMA quick_check").fetchone()
                if verdict is None or verdict[0] != "ok":
                    raise sqlite3.DatabaseError(
                        f"database disk image is malformed: {verdict and verdict[0]}"
                    )
            db.executescript(SCHEMA)
        except BaseException:
            db.close()
            raise
        return db

    def _in_memory(self, reason: str) -> sqlite3.Connection:
        """State in memory, seeded with what can be read of the file on disk."""
        self.persistent = False
        self.problem = f"{reason}: state is kept in memory; bookmarks will not survive a restart"
        db = self._connect(":memory:")
        if self.path.exists():
            copied = _salvage(self.path, db)
            self.salvaged = copied
        return db

    def _recover(self, err: sqlite3.DatabaseError) -> sqlite3.Connection:
        """Move a corrupt database aside, start a new one with what can be read of it."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        try:
            os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    os.replace(side, aside.with_name(aside.name + suffix))
        except OSError as move_err:
            return self._in_memory(
                f"state database {self.path} is corrupt ({err}) and cannot be moved aside "
                f"({_why(move_err)})"
            )
        self.recovered = aside
        try:
            db = self._connect(self.path, check=False)
        except sqlite3.DatabaseError as open_err:
            return self._in_memory(f"state database {self.path} cannot be created ({open_err})")
        self.salvaged = _salvage(aside, db)
        _LOGGER.warning(
            "state database %s was corrupt (%s): moved to %s; recovered %s",
            self.path, err, aside.name,
            ", ".join(f"{n} {t}" for t, n in self.salvaged.items()) or "nothing",
        )  # fmt: skip
        return db

    def close(self) -> None:
        """Try the pending writes once more, then close the connection."""
        if self._pending:
            self._retry_at = 0.0
            self.flush()
        if self._pending:
            _LOGGER.warning(
                "state not saved at exit (%d pending write(s)): %s",
                len(self._pending), self.last_write_error,
            )  # fmt: skip
        self.db.close()

    # writing, with retries --------------------------------------------------------------
    @property
    def pending(self) -> int:
        """Writes kept in memory, waiting for the disk to take them."""
        return len(self._pending)

    @property
    def retry_at(self) -> float | None:
        """When (`clock` seconds) `flush` will next retry pending writes; None if none."""
        return self._retry_at if self._pending else None

    def _write(self, key: tuple, sql: str, params: tuple) -> bool:
        """Run one write; on failure keep it (latest per `key`) for `flush`. Never raises."""
        with self._lock:
            return self._write_locked(key, sql, params)

    def _write_locked(self, key: tuple, sql: str, params: tuple) -> bool:
        self._pending.pop(key, None)
        if self._failing_since is not None and self._clock() < self._retry_at:
            self._pending[key] = (sql, params)  # the disk is failing; wait for the retry
            return False
        if self._pending and not self._flush_locked():
            self._pending[key] = (sql, params)
            return False
        try:
            self.db.execute(sql, params)
        except sqlite3.Error as err:
            self._pending[key] = (sql, params)
            self._failed(err)
            return False
        self._succeeded()
        return True

    def flush(self) -> bool:
        """Retry pending writes now if their backoff has passed; True when none are left."""
        with self._lock:
            return self._flush_locked()

    def _flush_locked(self) -> bool:
        if not self._pending:
            return True
        if self._clock() < self._retry_at:
            return False
        for key, (sql, params) in list(self._pending.items()):
            try:
                self.db.execute(sql, params)
            except sqlite3.Error as err:
                self._failed(err)
                return False
            del self._pending[key]
            if key[0] == "bookmark":
                self._marks.pop(key[1], None)
        self._succeeded()
        return True

    def _failed(self, err: sqlite3.Error) -> None:
        self.failed_writes += 1
        self.last_write_error = str(err)
        now = self._clock()
        if self._failing_since is None:
            self._failing_since = now
            self._backoff = RETRY_FIRST
            _LOGGER.warning("state not saved (%s): kept in memory, retrying; playback goes on", err)
        else:
            _LOGGER.debug("state write failed again (%s); retry in %.1f s", err, self._backoff)
            self._backoff = min(self._backoff * 2, self.retry_max)
        self._retry_at = now + self._backoff

    def _succeeded(self) -> None:
        if self._failing_since is not None and not self._pending:
            _LOGGER.info(
                "state saved again after %.0f s (%d failed write(s))",
                self._clock() - self._failing_since, self.failed_writes,
            )  # fmt: skip
            self._failing_since = None
            self.last_write_error = ""
            self._marks.clear()

    def _read(self, sql: str, params: tuple = (), *, one: bool = False):
        """Run a query; a failing database reads as empty (logged once). Never raises."""
        try:
            with self._lock:
                cursor = self.db.execute(sql, params)
                result = cursor.fetchone() if one else cursor.fetchall()
        except sqlite3.Error as err:
            if not self._read_failing:
                _LOGGER.warning("state database unreadable (%s): answering from memory", err)
            self._read_failing = True
            return None if one else []
        self._read_failing = False
        return result

    @property
    def healthy(self) -> bool:
        """True when the state is on disk and every write so far has reached it."""
        return self.persistent and not self._pending

    # cache -----------------------------------------------------------------------------
    def cache_get(self, key: str) -> CacheEntry | None:
        """The cache entry for `key`, or None."""
        row = self._read("SELECT * FROM cache WHERE key=?", (key,), one=True)
        return CacheEntry(*row) if row else None

    def cache_put(self, entry: CacheEntry) -> None:
        """Insert or replace a cache entry (called after the file is renamed into place)."""
        self._write(
            ("cache", entry.key),
            "INSERT OR REPLACE INTO cache VALUES (?,?,?,?,?,?,?,?)",
            dataclasses.astuple(entry),
        )

    def cache_delete(self, key: str) -> None:
        """Forget a cache entry."""
        self._write(("cache", key), "DELETE FROM cache WHERE key=?", (key,))

    def cache_touch(self, key: str) -> None:
        """Mark an entry as just played (for least-recently-played eviction)."""
        self._write(
            ("touch", key), "UPDATE cache SET last_played=? WHERE key=?", (time.time(), key)
        )

    def cache_entries(self) -> list[CacheEntry]:
        """All entries, least recently played first (never-played oldest first)."""
        rows = self._read(
            "SELECT * FROM cache ORDER BY COALESCE(last_played, added) ASC, added ASC"
        )
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
        self._write(
            ("download", key),
            "INSERT OR REPLACE INTO downloads VALUES (?,?,?,?,?,?,?,?,?,?)",
            (key, episode.album_id, episode.section, episode.location, name, done, total,
             state, error, time.time()),
        )  # fmt: skip

    def download_delete(self, key: str) -> None:
        """Forget a download job (it completed, or its partial file was removed)."""
        self._write(("download", key), "DELETE FROM downloads WHERE key=?", (key,))

    def downloads(self) -> list[tuple[str, str, int, int | None, str]]:
        """(key, name, bytes, total, state) of every recorded download job."""
        return self._read("SELECT key, name, bytes, total, state FROM downloads")

    # bookmarks -------------------------------------------------------------------------
    def bookmark_save(self, album: Album, episode: Episode, position: float) -> None:
        """Remember where `album` was left: `episode` at `position` seconds."""
        mark = Bookmark(album.id, album.title, episode.section, episode.title,
                        max(0.0, float(position)), time.time())  # fmt: skip
        saved = self._write(
            ("bookmark", album.id),
            "INSERT OR REPLACE INTO bookmarks VALUES (?,?,?,?,?,?)",
            dataclasses.astuple(mark),
        )
        if saved:
            self._marks.pop(album.id, None)
        else:
            self._marks[album.id] = mark

    def bookmark(self, album_id: str) -> Bookmark | None:
        """The bookmark of one album, or None."""
        if album_id in self._marks:
            return self._marks[album_id]
        row = self._read("SELECT * FROM bookmarks WHERE album_id=?", (album_id,), one=True)
        return Bookmark(*row) if row else None

    def last_bookmark(self) -> Bookmark | None:
        """The most recently updated bookmark, or None."""
        marks = self.recent_bookmarks(1)
        return marks[0] if marks else None

    def recent_bookmarks(self, limit: int = 5) -> list[Bookmark]:
        """Up to `limit` bookmarks, the most recently updated first."""
        rows = self._read("SELECT * FROM bookmarks ORDER BY updated DESC LIMIT ?", (limit,)) or []
        marks = {m.album_id: m for m in (Bookmark(*row) for row in rows)}
        for mark in self._marks.values():
            if mark.album_id not in marks or marks[mark.album_id].updated < mark.updated:
                marks[mark.album_id] = mark
        return sorted(marks.values(), key=lambda m: m.updated, reverse=True)[:limit]

    # albums ----------------------------------------------------------------------------
    def album_save(self, detail: AlbumDetail) -> None:
        """Remember an album's details (remote sources), for offline replay of the cache."""
        data = {
            "album": dataclasses.asdict(detail.album),
            "episodes": [dataclasses.asdict(e) for e in detail.episodes],
        }
        self._write(
            ("album", detail.album.id),
            "INSERT OR REPLACE INTO albums VALUES (?,?,?,?)",
            (detail.album.id, detail.album.title, json.dumps(data, ensure_ascii=False),
             time.time()),
        )  # fmt: skip

    def album_load(self, album_id: str) -> AlbumDetail | None:
        """A remembered album's details, or None."""
        row = self._read("SELECT detail FROM albums WHERE album_id=?", (album_id,), one=True)
        if not row:
            return None
        data = json.loads(row[0])
        return AlbumDetail(Album(**data["album"]), tuple(Episode(**e) for e in data["episodes"]))

    def albums(self) -> list[Album]:
        """Every remembered album (most recently seen first)."""
        rows = self._read("SELECT detail FROM albums ORDER BY seen DESC")
        return [Album(**json.loads(r[0])["album"]) for r in rows]

    def setting(self, key: str) -> str | None:
        """A remembered setting (e.g. ``volume``), or None."""
        row = self._read("SELECT value FROM settings WHERE key=?", (key,), one=True)
        return None if row is None else str(row[0])

    def setting_save(self, key: str, value: str) -> None:
        """Remember a setting across restarts (kept for a retry when the disk fails)."""
        self._write(("setting", key), "INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    # books -----------------------------------------------------------------------------
    def book(self, album_id: str) -> BookSettings:
        """What the listener set for one book (speed, intro and outro skip); each field is
        None where nothing was set."""
        if album_id in self._books:
            return self._books[album_id]
        row = self._read(
            "SELECT speed, intro, outro FROM books WHERE album_id=?", (album_id,), one=True
        )
        settings = BookSettings(*row) if row else BookSettings()
        self._books[album_id] = settings
        return settings

    def book_save(self, album_id: str, settings: BookSettings) -> None:
        """Remember what the listener set for one book (kept for a retry on failure)."""
        self._books[album_id] = settings
        self._write(
            ("book", album_id),
            "INSERT OR REPLACE INTO books VALUES (?,?,?,?,?)",
            (album_id, settings.speed, settings.intro, settings.outro, time.time()),
        )

    # chapters --------------------------------------------------------------------------
    def chapter_rows(self) -> dict[str, tuple[int, int, str]]:
        """Every file whose chapters were read: {path: (size, mtime ns, chapters JSON)}."""
        rows = self._read("SELECT path, size, mtime, chapters FROM chapters")
        return {path: (size, mtime, text) for path, size, mtime, text in rows}

    def chapters_save(self, rows: list[tuple[str, int, int, str]]) -> None:
        """Remember the chapters of files (path, size, mtime ns, JSON) in one transaction;
        a failure is logged and forgotten (the files are read again on the next scan)."""
        with self._lock:
            try:
                self.db.execute("BEGIN")
                try:
                    self.db.executemany("INSERT OR REPLACE INTO chapters VALUES (?,?,?,?)", rows)
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")
            except sqlite3.Error as err:
                _LOGGER.warning("chapter index not saved (%s): files are read again", err)


def diagnose(path: Path) -> tuple[bool, str]:
    """(ok, one line) about the state database at `path` and its directory, for
    ``xiaoting doctor``: read-only or full directory, a database that fails its check."""
    path = Path(path)
    where = path.parent
    probe = where
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    state = _writable(probe) if probe.is_dir() else "read-only"
    if state != "ok":
        return False, (
            f"state directory {where} is {state}: the player would keep its state in memory "
            "and bookmarks would not survive a restart"
        )
    if not path.exists():
        return True, f"{path} will be created on first start"
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            verdict = source.execute("PRAGMA quick_check").fetchone()
            marks = source.execute("SELECT count(*) FROM bookmarks").fetchone()[0]
        finally:
            source.close()
    except sqlite3.Error as err:
        return False, f"{path} is unreadable ({err}): it would be moved aside and recovered"
    if verdict is None or verdict[0] != "ok":
        return False, f"{path} is corrupt ({verdict and verdict[0]}): it would be moved aside"
    return True, f"{path}: {marks} bookmark(s), writable"


def _why(err: OSError) -> str:
    return err.strerror or str(err)


def _writable(directory: Path) -> str:
    """ "ok", "read-only" or "full": a small file is written, synced and removed."""
    probe = directory / f".write-test-{os.getpid()}"
    try:
        with open(probe, "wb") as out:
            out.write(bytes(4096))
            out.flush()
            os.fsync(out.fileno())
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            return "full"
        return "read-only"
    finally:
        try:
            probe.unlink()
        except OSError:
            pass
    try:
        stats = os.statvfs(directory)
    except OSError:
        return "ok"
    return "full" if stats.f_bavail * stats.f_frsize < MIN_FREE_BYTES else "ok"


def _is_corrupt(err: sqlite3.DatabaseError) -> bool:
    text = str(err).lower()
    return "malformed" in text or "not a database" in text or "corrupt" in text


def _salvage(path: Path, into: sqlite3.Connection) -> dict[str, int]:
    """Copy every row that can still be read from the database file at `path` into `into`.

    Each table is read in rowid order; where a page is missing or damaged the scan jumps
    ahead (doubling the jump) and reads on, so rows on both sides of the damage survive.
    Returns {table: rows recovered}; a file that is not a database gives {}.
    """
    copied: dict[str, int] = {}
    source = None
    for mode in ("mode=ro", "immutable=1"):  # read-only keeps the WAL; immutable needs no -shm
        try:
            source = sqlite3.connect(f"{Path(path).resolve().as_uri()}?{mode}", uri=True)
            # A file shorter than its header says is refused outright unless the schema is
            # "writable"; the connection is read-only, so nothing is written through it.
            source.execute("PRAGMA writable_schema=ON")
            source.execute("SELECT count(*) FROM sqlite_master").fetchone()
            break
        except sqlite3.Error:
            if source is not None:
                source.close()
            source = None
    if source is None:
        return copied
    try:
        for table in TABLES:
            rows = _scan(source, table)
            count = 0
            for row in rows.values():
                marks = ",".join("?" * len(row))
                try:
                    into.execute(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", row)
                    count += 1
                except sqlite3.Error:
                    pass
            if count:
                copied[table] = count
    finally:
        source.close()
    return copied


def _scan(source: sqlite3.Connection, table: str) -> dict[int, tuple]:
    """Every readable row of `table` by rowid, jumping over damaged pages."""
    rows: dict[int, tuple] = {}
    last, step, failures = 0, 1, 0
    sql = f"SELECT rowid, * FROM {table} WHERE rowid > ? ORDER BY rowid"
    while failures < 64 and last < 2**62:
        try:
            for row in source.execute(sql, (last,)):
                rows[row[0]] = row[1:]
                last, step = row[0], 1
            return rows
        except sqlite3.DatabaseError:
            failures += 1
            last += step
            step *= 2
    return rows
