"""The real player over a generated library, for the bench's tests (each test module gives
its own `library` fixture)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from player import Player
from tests.player.player_fixtures import RecordingSink


@pytest.fixture
async def player(library: Path, tmp_path: Path):
    player = Player(
        library_paths=[library],
        cache_dir=tmp_path / "cache",
        state_dir=tmp_path / "state",
        sink=RecordingSink(speed=1.0),
    )
    await asyncio.wait_for(player.start(), 30)
    try:
        yield player
    finally:
        await asyncio.wait_for(player.close(), 10)
