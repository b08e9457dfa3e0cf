"""kill -9 during playback and during a download leaves consistent bookmarks and cache."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from player_fixtures import AudioFile, make_album, make_episode, rss_feed, wait_for_state

from player import PlayerState

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


async def spawn(*args: str) -> asyncio.subprocess.Process:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    return await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "player_child.py"), *args,
        stdout=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip


async def wait_ready(child: asyncio.subprocess.Process) -> str:
    lines = []
    while True:
        line = (await asyncio.wait_for(child.stdout.readline(), 30)).decode().strip()
        assert line, f"child exited early: {lines}"
        if line == "READY":
            return "\n".join(lines)
        lines.append(line)


async def kill(child: asyncio.subprocess.Process) -> None:
    child.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(child.wait(), 10) == -signal.SIGKILL


@pytest.mark.slow
async def test_kill_during_playback_keeps_the_bookmark(tmp_path, make_player):
    library = tmp_path / "library"
    make_album(library, "长篇", ["第1集", "第2集"], seconds=8.0)
    child = await spawn("play", str(tmp_path / "state"), str(tmp_path / "cache"), str(library))
    try:
        assert "正在播放" in await wait_ready(child)
        started = time.monotonic()
        await asyncio.sleep(2.0)
        heard = time.monotonic() - started
    finally:
        await kill(child)
    player = await make_player(library_paths=[library])
    mark = player.store.last_bookmark()
    assert mark is not None and mark.section == 1
    assert heard - 1.0 <= mark.position <= heard + 0.5  # saved every 0.2 s
    result = await asyncio.wait_for(player.play_book("长篇"), 5)
    assert result["message"].startswith("从第1集"), result
    assert player.now.playback.position == pytest.approx(mark.position, abs=0.3)  # it plays on


@pytest.mark.slow
async def test_kill_during_download_resumes_with_range(tmp_path, server, make_player):
    body = make_episode(tmp_path / "big.mp3", seconds=40.0, noise=True).read_bytes()
    server.audio["big.mp3"] = AudioFile(body, delay=0.05)
    server.feeds["long.xml"] = rss_feed("长篇", [("第1集", server.url("/audio/big.mp3"), 1)])
    feed = server.url("/feeds/long.xml")
    cache_dir = tmp_path / "cache"
    child = await spawn("download", str(tmp_path / "state"), str(cache_dir), feed)
    try:
        assert "正在下载" in await wait_ready(child)
        await asyncio.sleep(0.6)
    finally:
        await kill(child)
    parts = list(cache_dir.rglob("*.part"))
    assert len(parts) == 1 and 0 < parts[0].stat().st_size < len(body)
    server.audio["big.mp3"].delay = 0.0
    player = await make_player(feeds=[feed])
    assert parts[0].exists()  # kept for the resume
    assert "正在下载" in (await asyncio.wait_for(player.play_book("长篇", section=1), 5))["message"]
    await wait_for_state(player, PlayerState.PLAYING, 10)
    assert player.now.path.read_bytes() == body
    ranges = [r for n, r in server.requests if n == "big.mp3"]
    assert ranges[0] is None and ranges[-1] is not None and ranges[-1] != "bytes=0-"
    assert not list(cache_dir.rglob("*.part"))
