"""Fixtures for the player tests: encoded episodes, a library, a sink, a catalog server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

# This directory is named like the package under test; without the repository root first
# on sys.path, `import player` could find this test folder as a namespace package.
ROOT = Path(__file__).resolve().parents[2]
if sys.path[0] != str(ROOT):
    sys.path.insert(0, str(ROOT))
if "player" in sys.modules and getattr(sys.modules["player"], "__file__", None) is None:
    del sys.modules["player"]

from netserver import NetServer  # noqa: E402
from player_fixtures import CatalogServer, RecordingSink, make_album, make_episode  # noqa: E402

from player import Player  # noqa: E402


@pytest.fixture(scope="session")
def audio_dir(tmp_path_factory) -> Path:
    """Short episodes in every format, encoded once per session."""
    root = tmp_path_factory.mktemp("audio")
    for kind in ("mp3", "m4a", "opus", "ogg", "flac", "wav"):
        make_episode(root / f"tone.{kind}", kind=kind, seconds=1.5)
    make_episode(root / "long.mp3", kind="mp3", seconds=6.0)
    return root


@pytest.fixture
def library(tmp_path) -> Path:
    """A library with two albums: 西游记 (3 episodes, Chinese numerals) and Journey West."""
    root = tmp_path / "library"
    make_album(root, "西游记", ["第一集 猴王出世", "第二集 拜师学艺", "第三集 大闹天宫"])
    make_album(root, "Journey to the West", ["Chapter 01", "Chapter 02"], kind="opus",
               seconds=1.0)  # fmt: skip
    return root


@pytest.fixture
def sink() -> RecordingSink:
    return RecordingSink(speed=20.0)


@pytest.fixture
async def server():
    srv = CatalogServer()
    await asyncio.wait_for(srv.start(), 5)
    yield srv
    await asyncio.wait_for(srv.close(), 5)


@pytest.fixture
async def net():
    """A `NetServer`: bodies in 1460-byte segments a few ms apart, stalls, drops, gzip, ..."""
    srv = NetServer()
    await asyncio.wait_for(srv.start(), 5)
    yield srv
    await asyncio.wait_for(srv.close(), 5)


@pytest.fixture
async def make_player(tmp_path, sink):
    """Factory: `await make_player(library_paths=[...], **options)` -> started Player."""
    players = []

    async def make(**options) -> Player:
        options.setdefault("library_paths", [])
        options.setdefault("cache_dir", tmp_path / "cache")
        options.setdefault("state_dir", tmp_path / "state")
        options.setdefault("sink", sink)
        options.setdefault("download_retry_delay", 0.05)
        player = Player(**options)
        await asyncio.wait_for(player.start(), 5)
        players.append(player)
        return player

    yield make
    for player in players:
        await asyncio.wait_for(player.close(), 5)
