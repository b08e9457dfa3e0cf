"""Requests understood whole, through the real Player on a generated library.

The seven requests a new-user trial found misread (a reason after a command, "I can't hear
it", "play this episode again", a short title with a chapter, a question, a clock time
before a command, "how many chapters are left"), and a bookmark of a book gone from the
library, each through the agent the service builds (`device.runtime`, no language model:
the words layer's reading is what acts) and the real `Player` playing files to a sink.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "player"))

from player_fixtures import RecordingSink, make_album

from device.config import dev_config
from device.runtime import _make_registry, default_agent
from player import Player, PlayerState


async def _device(tmp_path: Path, language: str, library: Path):
    config = dev_config(
        tmp_path,
        language=language,
        models_dir=str(tmp_path / "no-models"),
        library={"paths": [str(library)]},
        llm={"policy": "local"},
        audio={"volume_percent": 60},
    )
    player = Player(
        library_paths=[library],
        cache_dir=config.path("cache_dir"),
        state_dir=config.path("state_dir"),
        sink=RecordingSink(speed=1.0),
        language=language,
        volume_percent=60,
    )
    await asyncio.wait_for(player.start(), 10)
    agent, _ = await asyncio.wait_for(default_agent(config, _make_registry(config, player)), 10)
    return player, agent


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five albums of short real MP3 episodes, made once for the module."""
    return _library(tmp_path_factory.mktemp("understanding") / "library")


def _library(root: Path) -> Path:
    names = [f"第{n:02d}集" for n in range(1, 6)]
    make_album(root, "西游记", names, seconds=6.0)
    make_album(root, "三国演义", names, seconds=6.0)
    make_album(root, "哈利波特与魔法石", names, seconds=6.0)
    chapters = [f"Chapter {n:02d}" for n in range(1, 9)]
    make_album(root, "Treasure Island", chapters, seconds=6.0)
    make_album(root, "Dracula", chapters, seconds=6.0)
    return root


def _state(player: Player) -> tuple:
    now = player.now
    return (
        str(player.state),
        now.detail.album.title if now else None,
        now.episode.section if now else None,
        round(player.volume * 100),
    )


async def _turn(agent, text: str):
    return await asyncio.wait_for(agent.run(text), 10)


async def test_the_trials_chinese_requests_do_what_they_ask(tmp_path: Path, library: Path) -> None:
    player, agent = await _device(tmp_path, "zh", library)
    try:
        await player.play_book("西游记", section=3)
        await asyncio.sleep(0.3)

        turn = await _turn(agent, "暂停一下，我五分钟后回来")  # a plan after the command
        assert player.state == PlayerState.PAUSED and player.sleep_deadline is None, turn.answer
        await player.resume()

        before = _state(player)
        await _turn(agent, "我一点都听不见")  # louder, never a stop
        assert _state(player)[:3] == before[:3] and _state(player)[3] > before[3]

        await asyncio.sleep(1.2)
        await _turn(agent, "再放一遍这一集")  # this episode from its start, not the next
        assert _state(player)[1:3] == ("西游记", 3)
        assert player.now.playback.position < 1.0

        await _turn(agent, "放哈利波特第二章")  # a short title with a chapter
        assert _state(player)[:3] == ("playing", "哈利波特与魔法石", 2)

        before = _state(player)
        turn = await _turn(agent, "上次听到哪了")  # a question never changes playback
        assert _state(player) == before
        assert "哈利波特与魔法石" in turn.answer and "2" in turn.answer

        await _turn(agent, "已经十点了，关掉吧")  # a clock time is a remark
        assert player.now is None and player.sleep_deadline is None
    finally:
        await player.close()


async def test_the_trials_english_requests_do_what_they_ask(tmp_path: Path, library: Path) -> None:
    player, agent = await _device(tmp_path, "en", library)
    try:
        await player.play_book("Treasure Island", section=3)
        await asyncio.sleep(0.2)
        await _turn(agent, "pause it, I'll be back in ten minutes")
        assert player.state == PlayerState.PAUSED and player.sleep_deadline is None

        before = _state(player)
        turn = await _turn(agent, "how many chapters are left in this one")
        assert _state(player) == before
        assert re.search(r"\b5\b", turn.answer), turn.answer  # 8 chapters, on the 3rd
    finally:
        await player.close()


async def test_play_something_with_a_bookmark_of_a_book_gone_asks_in_english(
    tmp_path: Path, library: Path
) -> None:
    player, agent = await _device(tmp_path, "en", library)
    try:
        # A bookmark of a book no longer in the library (its folder was removed).
        from player.models import Album, Episode

        album = Album("lib:c5340936b5", "Moby Dick", episode_count=2, source="local")
        player.store.bookmark_save(album, Episode(album.id, 1, "Chapter 01", "/gone.mp3"), 12.0)
        turn = await _turn(agent, "play something")
        assert player.now is None
        # In English, no id, no raw source error ("本地没有这个专辑: lib:…")
        assert "lib:" not in turn.answer and "本地" not in turn.answer
        assert "Moby Dick" not in turn.answer
        assert "?" in turn.answer, turn.answer  # which book: a question, not a guess
    finally:
        await player.close()


@pytest.mark.parametrize("language", ["zh", "en"])
async def test_a_title_the_library_lacks_plays_no_other_book(
    tmp_path: Path, library: Path, language: str
) -> None:
    player, agent = await _device(tmp_path, language, library)
    try:
        await player.play_book("西游记", section=2)
        request = "放鬼灭之刃第二集" if language == "zh" else "play the hunger games chapter 2"
        turn = await _turn(agent, request)
        assert _state(player)[1:3] == ("西游记", 2), turn.answer
    finally:
        await player.close()


@pytest.mark.parametrize(
    ("language", "asking", "answer", "intro"),
    [("zh", "跳过片头", "二十秒", 20.0), ("en", "skip the intro", "thirty seconds please", 30.0)],
)
async def test_an_amount_alone_answers_the_question_of_how_much(
    tmp_path: Path, library: Path, language: str, asking: str, answer: str, intro: float
) -> None:
    player, agent = await _device(tmp_path, language, library)
    try:
        await player.play_book("西游记", section=2)
        album = player.now.detail.album
        asked = await _turn(agent, asking)  # no amount: asked how many seconds
        assert re.search(r"[?？]", asked.answer) and player.book_settings(album)[1] == 0
        await _turn(agent, answer)  # the answer alone: the skip asked about, that long
        assert player.book_settings(album)[1] == intro
        assert _state(player)[1:3] == ("西游记", 2)  # no seek, no other episode
        before = player.book_settings(album)
        await _turn(agent, answer)  # no question pending: nothing is set from it
        assert player.book_settings(album) == before
    finally:
        await player.close()


async def test_a_title_a_letter_off_is_asked_about_and_a_yes_plays_it(
    tmp_path: Path, library: Path
) -> None:
    player, agent = await _device(tmp_path, "en", library)
    try:
        turn = await _turn(agent, "play tresure iland")
        assert "Treasure Island" in turn.answer and turn.answer.endswith("?")
        assert player.now is None  # nothing starts on a near title
        await _turn(agent, "no thanks")
        assert player.now is None  # a no drops the offer
        await _turn(agent, "play tresure iland chapter three")
        await _turn(agent, "yes")
        await asyncio.sleep(0.3)
        assert _state(player)[:3] == ("playing", "Treasure Island", 3)
    finally:
        await player.close()


async def test_the_first_one_after_a_which_book_question_plays_the_first_named(
    tmp_path: Path, library: Path
) -> None:
    player, agent = await _device(tmp_path, "zh", library)
    try:
        await player.play_book("西游记", section=2)
        await asyncio.sleep(0.3)
        asked = await _turn(agent, "放错了，不是这本")
        assert "？" in asked.answer and _state(player)[1] == "西游记"
        named = sorted(
            (asked.answer.find(t), t)
            for t in ("西游记", "三国演义", "哈利波特与魔法石", "Treasure Island", "Dracula")
            if t in asked.answer
        )
        assert len(named) >= 2, asked.answer
        await _turn(agent, "第一本")
        await asyncio.sleep(0.3)
        assert _state(player)[1] == named[0][1]
    finally:
        await player.close()
