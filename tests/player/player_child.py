"""A player in a child process, for the kill -9 tests: plays or downloads, then waits.

Usage: python player_child.py MODE STATE_DIR CACHE_DIR ARG
  MODE "play": ARG is a library folder; plays 长篇 episode 1 into a real-time sink.
  MODE "chapter": ARG is a library folder; plays 长篇 episode 2 (a chapter) in real time.
  MODE "download": ARG is a feed URL; asks for 长篇 episode 1, which must be downloaded.
Prints "READY" once the tool has returned, then sleeps until killed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from player_fixtures import RecordingSink

from player import Player


async def main(mode: str, state_dir: str, cache_dir: str, arg: str) -> None:
    local = mode in ("play", "chapter")
    options = {"library_paths": [Path(arg)]} if local else {"library_paths": [], "feeds": [arg]}
    player = Player(
        cache_dir=Path(cache_dir), state_dir=Path(state_dir), sink=RecordingSink(speed=1.0),
        bookmark_interval=0.2, **options,
    )  # fmt: skip
    await player.start()
    print(await player.play_book("长篇", section=2 if mode == "chapter" else 1), flush=True)
    print("READY", flush=True)
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
