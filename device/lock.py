"""One service per state directory: an exclusive `flock` on ``<state_dir>/xiaoting.lock``.

The lock file holds the pid of the service that has it. The kernel drops the lock when that
process ends, however it ends (kill -9 too), so a stale file never blocks a new start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_NAME = "xiaoting.lock"


class AlreadyRunning(Exception):
    """Another service holds the lock of this state directory; `pid` is its pid (0 unknown)."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path = pid, path
        who = f"pid {pid}" if pid else "another process"
        super().__init__(f"already running ({who}, lock {path}); stop it first")


def lock_path(state_dir: str | Path) -> Path:
    """Where the lock of the service with this state directory lives."""
    return Path(state_dir).expanduser() / LOCK_NAME


def _read_pid(fd: int) -> int:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode().strip() or 0)
    return 0


class ServiceLock:
    """The exclusive lock of one state directory; `acquire` raises AlreadyRunning."""

    def __init__(self, state_dir: str | Path) -> None:
        self.path = lock_path(state_dir)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock without waiting and write this process's pid into the file.

        Raises AlreadyRunning naming the holder's pid, OSError when the file cannot be made.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise AlreadyRunning(pid, self.path) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Drop the lock (the file stays: removing it would race with the next start)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)

    def __enter__(self) -> ServiceLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def holder(state_dir: str | Path) -> int | None:
    """The pid of the service holding the lock of `state_dir` (0 when unknown), or None
    when no service holds it (or the lock file cannot be read by this user)."""
    path = lock_path(state_dir)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_pid(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
