"""Albums added from a phone, and renamed or removed: the page's side of the library.

An upload is several audio files, or one ``.zip`` holding them, sent as
multipart/form-data (field ``album``: the album's name; field ``files``: each file). It is
streamed into a hidden folder inside the library root (``.upload-*``: the player skips
hidden folders, and it lies on the same filesystem), so nothing half-sent is ever seen:

1. every name is checked (`clean_name`): a folder part (``/``, ``\\``, ``..``), a hidden
   name, control characters or a name over 200 bytes refuse the whole upload;
2. the bytes received are counted against `Limits.max_bytes` while they arrive (a declared
   Content-Length over it is refused before anything is read), files against
   `Limits.max_files`, and the free space of the disk is checked;
3. a zip is opened and its members checked before anything is unpacked: names as above
   (hidden members and ``__MACOSX`` are skipped, ``..`` or an absolute path refuses it),
   declared sizes within the limit, no member (nor the whole) unpacking to more than
   `Limits.max_ratio` times its compressed size (a zip bomb), no encryption; while
   unpacking, the bytes actually written are counted again against the declared sizes;
4. every audio file must decode with PyAV (`device.library.check_file`);
5. the folder is renamed into place in one step (``<root>/<album>``), and the library
   is rescanned, so the album plays at once.

Any refusal raises `WebError` and removes the hidden folder: nothing is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import re
import shutil
import stat
import tempfile
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from player.sources.local import AUDIO_EXTENSIONS

from .errors import WebError

_LOGGER = logging.getLogger(__name__)

CHUNK = 256 * 1024
"""Bytes read from the network and written to disk at a time."""
NAME_BYTES = 200
"""A file or album name's longest UTF-8 form (filesystems allow 255 bytes)."""
MAX_RATIO = 100.0
"""A zip member may unpack to at most this many times its compressed size (audio hardly
compresses: a real book is near 1:1; a zip bomb is 1000:1 and more)."""
SPACE_MARGIN = 64 << 20
"""Bytes of the disk that an upload must leave free."""
STAGING_PREFIX = ".upload-"
TYPES = ", ".join(sorted(e.lstrip(".") for e in AUDIO_EXTENSIONS))


@dataclass(frozen=True)
class Limits:
    """What one upload may hold: `max_bytes` received (and unpacked from a zip),
    `max_files` audio files, zip members at most `max_ratio`:1 compressed."""

    max_bytes: int
    max_files: int
    max_ratio: float = MAX_RATIO

    @property
    def max_mb(self) -> int:
        """`max_bytes` in whole MB (for messages)."""
        return self.max_bytes >> 20


def clean_name(name: str) -> str:
    """`name` (a file or album name from the phone) NFC-normalised and trimmed.

    Raises WebError ``name_path`` for a folder part (``/``, ``\\``, ``..``, an absolute
    path), ``name_hidden`` for a leading dot, ``name_bad`` for an empty name, control
    characters or more than `NAME_BYTES` bytes.
    """
    raw = str(name)
    if "/" in raw or "\\" in raw:
        raise WebError("name_path", name=raw[:80])
    text = unicodedata.normalize("NFC", raw).strip()
    if text in ("", ".", ".."):
        raise WebError("name_path" if text else "name_bad", name=raw[:80])
    if text.startswith("."):
        raise WebError("name_hidden", name=text[:80])
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in text):
        raise WebError("name_bad", name=text[:80].encode("unicode_escape").decode())
    if len(text.encode("utf-8")) > NAME_BYTES:
        raise WebError("name_bad", name=text[:40] + "…")
    return text


def is_audio_name(name: str) -> bool:
    """True for a name with an audio extension the player reads."""
    return Path(name).suffix.lower() in AUDIO_EXTENSIONS


def library_root(paths: list[str]) -> Path:
    """The first library folder that exists (or can be made) and is writable here.
    Raises WebError ``no_library``."""
    for entry in paths:
        root = Path(entry).expanduser()
        with contextlib.suppress(OSError):
            root.mkdir(parents=True, exist_ok=True)
        if root.is_dir() and os.access(root, os.W_OK | os.X_OK):
            return root
    raise WebError("no_library", status=409)


def check_space(root: Path, need: int, *, free_space: Callable[[Path], int] | None = None) -> None:
    """Raise WebError ``no_space`` (507) when `need` bytes and `SPACE_MARGIN` do not fit
    on the disk of `root`."""
    free = free_space(root) if free_space else shutil.disk_usage(root).free
    if need + SPACE_MARGIN > free:
        raise WebError("no_space", status=507, free=max(0, free >> 20), need=need >> 20)


@dataclass
class Staged:
    """An upload received into `folder` (hidden, inside `root`), not yet an album."""

    root: Path
    folder: Path
    album: str = ""
    files: list[Path] = field(default_factory=list)
    archive: Path | None = None
    skipped: list[str] = field(default_factory=list)
    received: int = 0

    def discard(self) -> None:
        """Remove the hidden folder and everything in it."""
        shutil.rmtree(self.folder, ignore_errors=True)


async def receive(
    reader: Any,
    root: Path,
    limits: Limits,
    *,
    free_space: Callable[[Path], int] | None = None,
) -> Staged:
    """Stream the parts of an aiohttp `MultipartReader` into a new hidden folder of
    `root`: the ``album`` field's text and each ``files`` part as a file there.

    Counts bytes as they arrive and stops at the first one over `limits.max_bytes` (WebError
    ``too_big``, 413); refuses a bad name, a file that is neither audio nor a lone .zip,
    two files of one name and more than `limits.max_files` files. On any refusal (or a
    dropped connection) the folder is removed before the error propagates.
    """
    staged = Staged(root, Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root)))
    try:
        while (part := await reader.next()) is not None:
            if part.name == "album":
                text = (await part.read_chunk(4096)).decode("utf-8", "replace")
                staged.album = clean_name(text) if text.strip() else ""
                continue
            if part.name != "files" or not part.filename:
                await part.release()
                continue
            name = clean_name(part.filename)
            is_zip = name.lower().endswith(".zip")
            if not is_zip and not is_audio_name(name):
                raise WebError("not_audio_type", status=415, name=name, types=TYPES)
            if staged.archive is not None or (is_zip and staged.files):
                raise WebError("zip_alone")
            if not is_zip and len(staged.files) >= limits.max_files:
                raise WebError("too_many", status=413, limit=limits.max_files)
            target = staged.folder / name
            if any(p.name.casefold() == name.casefold() for p in staged.files):
                raise WebError("duplicate", name=name)
            try:
                handle = await asyncio.to_thread(open, target, "xb")
                try:
                    while chunk := await part.read_chunk(CHUNK):
                        staged.received += len(chunk)
                        if staged.received > limits.max_bytes:
                            raise WebError("too_big", status=413, limit=limits.max_mb)
                        await asyncio.to_thread(handle.write, chunk)
                finally:
                    await asyncio.to_thread(handle.close)
            except OSError as err:  # the disk full or failing: said, not a crash
                status = 507 if err.errno == errno.ENOSPC else 500
                raise WebError("upload_failed", status=status, why=err.strerror or err) from None
            if is_zip:
                staged.archive = target
            else:
                staged.files.append(target)
        if staged.archive is None and not staged.files:
            raise WebError("no_files")
        check_space(root, 0, free_space=free_space)  # what it took still leaves the margin
    except BaseException:
        staged.discard()
        raise
    return staged


# ---------------------------------------------------------------- zip files


def _member_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its maker meant it: UTF-8 when flagged, else the bytes read
    back from cp437 and tried as UTF-8, then GBK (Windows in Chinese), else as they are."""
    name = info.filename
    if info.flag_bits & 0x800:
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    for encoding in ("utf-8", "gbk"):
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode(encoding)
    return name


def _unsafe(path: str) -> bool:
    """True for a member path that would leave the folder: absolute, a drive, ``..``."""
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":"):
        return True
    return any(part == ".." for part in path.replace("\\", "/").split("/"))


def unpack(
    staged: Staged, limits: Limits, *, free_space: Callable[[Path], int] | None = None
) -> None:
    """Unpack the audio files of `staged.archive` into `staged.folder`, then delete it.

    Checks every member before writing one (see the module docstring); the album name
    defaults to the zip's one top folder, else to its file name. Raises WebError
    (``bad_zip``, ``zip_encrypted``, ``name_path``, ``too_many``, ``too_big``,
    ``zip_bomb``, ``zip_lies``, ``duplicate``, ``no_files``, ``no_space``).
    """
    archive = staged.archive
    assert archive is not None
    label = archive.name
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise WebError("bad_zip", name=label, why=str(err)[:120]) from None
    with zf:
        if len(zf.infolist()) > limits.max_files * 4 + 100:  # covers and notes allowed, not 10⁵
            raise WebError("too_many", status=413, limit=limits.max_files)
        chosen: list[tuple[zipfile.ZipInfo, str]] = []
        tops: set[str] = set()
        for info in zf.infolist():
            path = _member_name(info)
            if _unsafe(path):
                raise WebError("name_path", name=path[:80])
            if info.is_dir():
                continue
            parts = [p for p in path.replace("\\", "/").split("/") if p]
            if any(p.startswith(".") or p == "__MACOSX" for p in parts):
                staged.skipped.append(path)
                continue
            if not is_audio_name(parts[-1]):
                staged.skipped.append(path)
                continue
            if info.flag_bits & 0x1:
                raise WebError("zip_encrypted", name=label)
            chosen.append((info, clean_name(parts[-1])))
            tops.add(parts[0] if len(parts) > 1 else "")
        if not chosen:
            raise WebError("no_files")
        if len(chosen) > limits.max_files:
            raise WebError("too_many", status=413, limit=limits.max_files)
        declared = sum(info.file_size for info, _ in chosen)
        packed = sum(info.compress_size for info, _ in chosen)
        if declared > limits.max_bytes:
            raise WebError("too_big", status=413, limit=limits.max_mb)
        for info, _ in chosen:
            ratio = info.file_size / max(1, info.compress_size)
            if ratio > limits.max_ratio and info.file_size > 1 << 20:
                raise WebError("zip_bomb", status=413, name=label, ratio=round(ratio))
        if declared > limits.max_ratio * max(1, packed) and declared > 1 << 20:
            raise WebError(
                "zip_bomb", status=413, name=label, ratio=round(declared / max(1, packed))
            )
        seen: set[str] = set()
        for _, name in chosen:
            if name.casefold() in seen:
                raise WebError("duplicate", name=name)
            seen.add(name.casefold())
        check_space(staged.root, declared, free_space=free_space)
        written = 0
        for info, name in chosen:
            target = staged.folder / name
            done = 0
            try:
                with zf.open(info) as source, open(target, "xb") as handle:
                    while chunk := source.read(CHUNK):
                        done += len(chunk)
                        written += len(chunk)
                        if done > info.file_size:
                            raise WebError("zip_lies", status=413, name=label, member=name)
                        if written > limits.max_bytes:
                            raise WebError("too_big", status=413, limit=limits.max_mb)
                        handle.write(chunk)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError,
                    NotImplementedError) as err:  # fmt: skip
                raise WebError("bad_zip", name=label, why=str(err)[:120]) from None
            staged.files.append(target)
    archive.unlink()
    staged.archive = None
    if not staged.album:
        top = next(iter(tops)) if len(tops) == 1 else ""
        with contextlib.suppress(WebError):
            staged.album = clean_name(top or Path(label).stem)


def _check_audio(files: list[Path]) -> list[tuple[str, str]]:
    """(name, reason) of each file PyAV cannot decode; the reason without the hidden
    folder's path or FFmpeg's error number."""
    from device.library import check_file

    bad = []
    for path in files:
        why = check_file(path)
        if why:
            why = re.sub(r"\[Errno -?\d+\]\s*", "", why.replace(f": '{path}'", ""))
            bad.append((path.name, why))
    return bad


def place(
    staged: Staged, limits: Limits, *, free_space: Callable[[Path], int] | None = None
) -> Path:
    """Make `staged` an album (in a worker thread: it unpacks and decodes): unpack a zip,
    check every file decodes, then rename the folder to ``root/<album>`` in one step.

    Returns the album folder. Raises WebError (``album_name``, ``not_audio``,
    ``album_exists`` and those of `unpack`); the hidden folder is removed on any failure.
    """
    try:
        if staged.archive is not None:
            unpack(staged, limits, free_space=free_space)
        if not staged.album:
            raise WebError("album_name")
        bad = _check_audio(staged.files)
        if bad:
            shown = "; ".join(f"{name} ({why})" for name, why in bad[:3])
            raise WebError(
                "not_audio", status=415, count=len(bad), total=len(staged.files), files=shown
            )
        target = staged.root / staged.album
        if target.exists():
            raise WebError("album_exists", status=409, title=staged.album)
        for path in staged.files:
            os.chmod(path, 0o644)
        os.chmod(staged.folder, 0o755)
        os.rename(staged.folder, target)  # one step: the player sees all of it or nothing
    except BaseException:
        staged.discard()
        raise
    _LOGGER.info("web: album %s added (%d files, %.1f MB)", target, len(staged.files),
                 staged.received / 1e6)  # fmt: skip
    return target


def sweep(root: Path) -> int:
    """Remove hidden upload folders an earlier run left (a power cut mid-upload); returns
    how many."""
    removed = 0
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            if entry.name.startswith(STAGING_PREFIX) and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
                removed += 1
    return removed


# ---------------------------------------------------------------- rename and remove


def album_folder(library: Any, album_id: str) -> tuple[Path, Path, Any]:
    """(folder, library root, AlbumDetail) of a local album. Raises WebError ``no_album``
    (404), ``not_local_album`` for an album of another source, ``album_in_root`` when
    its files lie in a library root itself."""
    detail = next((d for d in library.details() if d.album.id == album_id), None)
    if detail is None or not detail.episodes:
        raise WebError("no_album", status=404)
    folder = Path(detail.episodes[0].location).parent
    roots = [Path(p).expanduser() for p in library.paths]
    root = next((r for r in roots if folder.resolve().is_relative_to(r.resolve())), None)
    if root is None:
        raise WebError("not_local_album", status=409, title=detail.album.title)
    if folder.resolve() == root.resolve():
        raise WebError("album_in_root", status=409, title=detail.album.title)
    return folder, root, detail


def remove(folder: Path, root: Path) -> None:
    """Remove an album folder: renamed out of sight first (a hidden name in `root`), so the
    player never reads half of it, then deleted."""
    hidden = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    os.rename(folder, hidden / "album")
    shutil.rmtree(hidden, ignore_errors=True)
    _LOGGER.info("web: album %s removed", folder)


def rename(folder: Path, title: str) -> None:
    """Give an album the title `title` in its ``album.json`` (other keys kept): the folder
    and so the album's id and bookmark stay. Written to a temporary file and renamed."""
    info = folder / "album.json"
    data: dict[str, Any] = {}
    if info.is_file():
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(info.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                data = loaded
    data["title"] = title
    temp = folder / f".album.json.{os.getpid()}"
    temp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.chmod(temp, stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)
    os.replace(temp, info)
    _LOGGER.info("web: album %s titled %r", folder, title)
