"""The local library explained: what the player reads from `library.paths`, and what not.

`survey` walks the library folders by the player's own rules (a folder holding audio files
is an album; hidden files are skipped; see `player.sources.local`) and names what a
person would otherwise wonder about: a configured path that does not exist, a folder with
no audio at all (only ``.txt`` or ``.jpg``), a folder inside an album that is read as an
album of its own (``西游记/CD1``). `doctor`, the start-up log and ``xiaoting library``
print it. `add` copies an album folder in, checking that every file decodes (PyAV), with
the library owner's ownership, so ``sudo xiaoting library add ~/西游记`` works from a home
folder the service user cannot read.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from player.sources.local import AUDIO_EXTENSIONS, LocalLibrary

_LOGGER = logging.getLogger(__name__)

CHECK_SECONDS = 5.0
"""Seconds of audio decoded from the start of each file by `check_file` (the rest is only
demuxed, which finds truncation and garbage without the cost of decoding)."""


class LibraryError(Exception):
    """A library command cannot do what it was asked (the message says why)."""


@dataclass(frozen=True)
class AlbumEntry:
    """One album as the player sees it: title, episode count, folder and library root."""

    title: str
    episodes: int
    folder: Path
    root: Path
    files: tuple[Path, ...] = ()


@dataclass
class Survey:
    """What is under the library paths: albums and the things worth a word."""

    albums: list[AlbumEntry] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    """Configured paths that do not exist (or are not folders)."""
    unreadable: list[tuple[Path, str]] = field(default_factory=list)
    """Folders that cannot be listed by this user, with the reason."""
    no_audio: list[tuple[Path, str]] = field(default_factory=list)
    """Folders holding files but no audio at all below them, with what they hold."""
    nested: list[tuple[Path, Path]] = field(default_factory=list)
    """(album folder, its parent album folder): read as separate albums."""

    @property
    def episodes(self) -> int:
        """Episodes in all albums."""
        return sum(a.episodes for a in self.albums)

    def problems(self) -> list[str]:
        """One line per thing a person should know (empty when all is well)."""
        lines = [f"{p}: does not exist (library.paths)" for p in self.missing]
        lines += [f"{p}: cannot be read ({why})" for p, why in self.unreadable]
        lines += [f"{p}: no audio files ({what}); not an album" for p, what in self.no_audio]
        lines += [
            f"{child}: read as its own album {child.name!r}, apart from {parent.name!r} "
            "(move its files up one level to make them one album)"
            for child, parent in self.nested
        ]
        return lines

    def summary(self) -> str:
        """``3 albums, 41 episodes under /var/lib/xiaoting/library``."""
        roots = sorted({str(a.root) for a in self.albums}) or ["no readable folder"]
        albums, episodes = counted(len(self.albums), "album"), counted(self.episodes, "episode")
        return f"{albums}, {episodes} under {', '.join(roots)}"


def counted(number: int, noun: str) -> str:
    """``"1 episode"``, ``"2 episodes"``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _is_audio(name: str) -> bool:
    return not name.startswith(".") and Path(name).suffix.lower() in AUDIO_EXTENSIONS


def _holdings(counts: Counter[str]) -> str:
    shown = ", ".join(f"{n} {ext or 'no extension'}" for ext, n in counts.most_common(4))
    return f"only {shown}" if shown else "empty"


def survey(paths: list[str | Path]) -> Survey:
    """Walk `paths` by the player's rules; never raises for a bad folder (it is reported)."""
    result = Survey()
    roots = [Path(p).expanduser() for p in paths]
    library = LocalLibrary(roots)
    library.refresh(force=True)
    by_folder = {}
    for detail in library.details():  # the player's own reading of the tree
        files = tuple(Path(e.location) for e in detail.episodes)
        folder = files[0].parent if files else Path()
        root = next((r for r in roots if folder.is_relative_to(r)), folder)
        by_folder[folder] = AlbumEntry(
            detail.album.title, len(detail.episodes), folder, root, files
        )
    result.albums = sorted(by_folder.values(), key=lambda a: (str(a.root), str(a.folder)))
    for root in roots:
        if not root.is_dir():
            result.missing.append(root)
            continue
        if not os.access(root, os.R_OK | os.X_OK):
            result.unreadable.append((root, "permission denied"))
            continue
        for dirpath, dirnames, filenames in os.walk(
            root, onerror=lambda err: result.unreadable.append((Path(err.filename), err.strerror))
        ):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            folder = Path(dirpath)
            if folder in by_folder and folder != root:
                parent = next((p for p in folder.parents if p in by_folder), None)
                if parent is not None and parent != root and parent.is_relative_to(root):
                    result.nested.append((folder, parent))
            if folder == root or any(_is_audio(f) for f in filenames):
                continue
            has_audio_below = any(a.folder.is_relative_to(folder) for a in result.albums)
            if filenames and not has_audio_below:
                counts = Counter(Path(f).suffix.lower() for f in filenames if not f.startswith("."))
                result.no_audio.append((folder, _holdings(counts)))
            elif not filenames and not dirnames:
                result.no_audio.append((folder, "empty"))
    return result


def log_survey(paths: list[str | Path]) -> Survey:
    """`survey`, with one log line for the summary and a warning per problem (start-up)."""
    found = survey(paths)
    _LOGGER.info("library: %s", found.summary())
    for line in found.problems():
        _LOGGER.warning("library: %s", line)
    return found


# ---------------------------------------------------------------- checking and adding


def check_file(path: Path, *, seconds: float = CHECK_SECONDS) -> str:
    """'' when `path` is audio PyAV can read to its end, else the reason.

    Decodes the first `seconds` of its audio stream and demuxes the rest.
    """
    import av

    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                return "no audio stream"
            stream = container.streams.audio[0]
            decoded = 0.0
            packets = 0
            for packet in container.demux(stream):
                if packet.size == 0:
                    continue
                packets += 1
                if decoded < seconds:
                    for frame in packet.decode():
                        decoded += frame.samples / (frame.sample_rate or 1)
            if packets == 0 or decoded == 0.0:
                return "no audio could be decoded"
    except (av.error.FFmpegError, OSError, ValueError) as err:
        return f"does not decode: {err}"
    return ""


def check(paths: list[str | Path]) -> tuple[Survey, list[tuple[Path, str]]]:
    """`survey` plus `check_file` on every episode: (survey, [(file, reason), ...])."""
    found = survey(paths)
    bad = []
    for album in found.albums:
        for path in album.files:
            reason = check_file(path)
            if reason:
                bad.append((path, reason))
    return found, bad


def _owner_of(folder: Path) -> tuple[int, int]:
    probe = folder
    while not probe.exists():
        probe = probe.parent
    st = probe.stat()
    return st.st_uid, st.st_gid


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    if os.geteuid() != 0:
        return  # only root can give files away; a user's own library stays theirs
    for dirpath, _dirnames, filenames in os.walk(top):
        os.chown(dirpath, uid, gid)
        for name in filenames:
            os.chown(os.path.join(dirpath, name), uid, gid)


def add(source: Path, library_root: Path, *, name: str | None = None) -> AlbumEntry:
    """Copy the album folder `source` into `library_root` as `name` (default: its name).

    Every audio file must decode (`check_file`); the copy is made in a hidden temporary
    folder beside the library and renamed into place when complete, owned like the library
    folder (its owner is the service user on a device), folders 0755 and files 0644 so the
    login user can list them. Raises LibraryError (nothing is left behind) when `source` is
    not a readable folder with audio, a file does not decode, or the album already exists.
    """
    source = source.expanduser()
    if not source.is_dir():
        raise LibraryError(f"{source}: not a folder (give the album's folder)")
    files = sorted(p for p in source.rglob("*") if p.is_file() and _is_audio(p.name))
    if not files:
        counts = Counter(p.suffix.lower() for p in source.rglob("*") if p.is_file())
        raise LibraryError(f"{source}: no audio files ({_holdings(counts)})")
    nested = sorted({p.parent for p in files if p.parent != source})
    if nested:
        raise LibraryError(
            f"{source}: audio in sub-folders ({', '.join(str(p.relative_to(source)) for p in nested)});"
            " add each as its own album, or move the files into one folder"
        )
    bad = [(p, why) for p in files if (why := check_file(p))]
    if bad:
        raise LibraryError(
            f"{len(bad)} of {len(files)} files do not play: "
            + "; ".join(f"{p.name}: {why}" for p, why in bad[:3])
        )
    library_root = library_root.expanduser()
    target = library_root / (name or source.name)
    if target.exists():
        raise LibraryError(f"{target}: already in the library (remove it first, or --name)")
    uid, gid = _owner_of(library_root)
    created_root = not library_root.exists()
    library_root.mkdir(parents=True, exist_ok=True)
    if created_root:
        os.chmod(library_root, 0o755)
        _chown_tree(library_root, uid, gid)
    try:  # beside the library, so the player never sees a half-copied album
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=library_root.parent))
    except OSError:
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=library_root))
    try:
        for path in [p for p in source.iterdir() if p.is_file() and not p.name.startswith(".")]:
            shutil.copyfile(path, tmp / path.name)
            os.chmod(tmp / path.name, 0o644)
        os.chmod(tmp, 0o755)
        _chown_tree(tmp, uid, gid)
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    entry = next((a for a in survey([library_root]).albums if a.folder == target), None)
    if entry is None:
        raise LibraryError(f"{target}: copied, but the player does not read it as an album")
    return entry
