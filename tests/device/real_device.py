"""The real Player behind an Agent, as the device wires them, for tests of a whole turn:
Treasure Island's episode 2 playing on a library of generated audio."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "player"))

from player_fixtures import RecordingSink, make_album

from agent import Agent, Completion, ScriptedModel
from device.config import dev_config
from device.runtime import _make_registry
from player import Player


def treasure_island(root: Path, chapters: int = 4) -> Path:
    """A library folder `root` holding Treasure Island's `chapters` chapters, 6 s each."""
    make_album(
        root, "Treasure Island", [f"Chapter {n:02d}" for n in range(1, chapters + 1)], seconds=6.0
    )
    return root


@asynccontextmanager
async def playing(
    tmp_path: Path,
    library: Path,
    *,
    language: str = "en",
    replies: Sequence[str] = (),
    **agent_options: Any,
) -> AsyncIterator[tuple[Player, Agent]]:
    """(player, agent): the real Player with Treasure Island's episode 2 playing, and an
    agent whose model gives `replies` in turn (a model step past them fails), made with
    `agent_options` (``fast_path``, ``analogs``); the player closed on the way out."""
    config = dev_config(
        tmp_path, language=language, models_dir=str(tmp_path / "no-models"),
        library={"paths": [str(library)]},
    )  # fmt: skip
    player = Player(
        library_paths=[library], cache_dir=config.path("cache_dir"),
        state_dir=config.path("state_dir"), sink=RecordingSink(speed=1.0), language=language,
    )  # fmt: skip
    try:
        await asyncio.wait_for(player.start(), 10)
        model = ScriptedModel([Completion(text=r, backend="local") for r in replies], name="local")
        agent = Agent(_make_registry(config, player), model, language=language, **agent_options)
        await player.play_book("Treasure Island", section=2)
        yield player, agent
    finally:
        await player.close()
