"""A sure vote of like requests, through the real Player: it makes the call whose amount the
words say alone (a skip or a timer of the one duration said, the one speed said when it goes
the way the like requests ask) in place of a model's wrong guess, and with a skip already set
or a speed the other way the guess is asked about and nothing changes; and a reading of the
phrase rules that like requests were asked about is asked about, not made."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from real_device import playing, treasure_island

from agent import Agent
from agent.fastpath import FastPath
from player import PlayerState
from words.analogs import Analogs

BANK = Analogs(
    [
        ("skip:intro+outro", "knock ten seconds off both ends of every chapter"),
        ("skip:intro+outro", "chop # seconds off both ends of each episode"),
        ("skip:intro+outro", "take # seconds off both ends of every one"),
        ("speed:up", "have him read at one point five"),
        ("speed:up", "put him at one point two five please"),
        ("speed:up", "have the reader go at double"),
        ("sleep:minutes", "make it # minutes instead of the end of the chapter"),
        ("sleep:minutes", "make it # minutes instead of waiting"),
    ]
)

NO_SKIP = 'Thought: x\nAction: set_skip\nAction Input: {"intro": 0, "outro": 0}'
NORMAL = 'Thought: x\nAction: set_speed\nAction Input: {"rate": 1}'
PAUSE = "Thought: x\nAction: pause\nAction Input: {}"
DONE = "Thought: x\nFinal Answer: ok"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return treasure_island(tmp_path_factory.mktemp("vote-amounts") / "library")


@asynccontextmanager
async def _device(tmp_path: Path, library: Path, replies: list[str]):
    """The real Player with Treasure Island's episode 2 playing and an agent of `replies`
    with the fast path off and the bank `BANK`, as (player, agent)."""
    async with playing(tmp_path, library, replies=replies, fast_path=False, analogs=BANK) as pair:
        yield pair


async def _turn(agent: Agent, text: str):
    return await asyncio.wait_for(agent.run(text), 10)


async def test_a_sure_vote_skips_both_ends_by_the_one_duration_said(
    tmp_path: Path, library: Path
) -> None:
    async with _device(tmp_path, library, [NO_SKIP, DONE]) as (player, agent):
        album = player.now.detail.album
        turn = await _turn(agent, "shave fifteen seconds off both ends of every chapter")
        assert player.book_settings(album) == (1.0, 15.0, 15.0), turn.answer
        assert "ask for skip:intro+outro" in turn.steps[0].thought
        assert "with the amount said" in turn.steps[0].thought


async def test_with_a_skip_set_a_lone_duration_is_asked_about(
    tmp_path: Path, library: Path
) -> None:
    # "take fifteen off both ends" of a book that skips 30 s may be a change of the skip
    async with _device(tmp_path, library, [PAUSE]) as (player, agent):
        album = player.now.detail.album
        player.book_settings_save(album, intro=30.0)
        turn = await _turn(agent, "shave fifteen seconds off both ends of every chapter")
        assert player.book_settings(album) == (1.0, 30.0, 0.0)
        assert player.state == PlayerState.PLAYING
        assert turn.answer == "Do you want me to pause?", turn.answer


async def test_a_sure_vote_sets_the_one_speed_said_the_way_it_asks(
    tmp_path: Path, library: Path
) -> None:
    async with _device(tmp_path, library, [NORMAL, DONE]) as (player, agent):
        album = player.now.detail.album
        await _turn(agent, "have him talk at one point two five")
        assert player.book_settings(album)[0] == 1.25


async def test_a_speed_said_against_the_votes_direction_is_asked_about(
    tmp_path: Path, library: Path
) -> None:
    async with _device(tmp_path, library, [NORMAL]) as (player, agent):
        album = player.now.detail.album
        player.book_settings_save(album, speed=1.5)
        turn = await _turn(agent, "have him talk at one point two five")  # slower than now
        assert player.book_settings(album)[0] == 1.5
        assert turn.answer.startswith("Do you want me to"), turn.answer


async def test_a_sure_vote_sets_a_timer_of_the_duration_said_instead_of_a_pause(
    tmp_path: Path, library: Path
) -> None:
    async with _device(tmp_path, library, [PAUSE, DONE]) as (player, agent):
        await player.sleep_timer(end_of_episode=True)
        turn = await _turn(agent, "make it twenty minutes instead of waiting for the chapter")
        assert player.state == PlayerState.PLAYING, turn.answer
        assert player.sleep_deadline is not None and not player.sleep_at_end
        assert 'made sleep_timer {"minutes": 20} instead' in turn.steps[0].thought


@pytest.mark.parametrize(
    ("intent", "bank", "utterance", "asked"),
    [
        # the rules read the next episode; like requests were asked about: asked, no move
        ("asks", ["skip the boring bit where he reads out the title", "skip the boring bit",
                  "ugh the boring bit again can we skip it"],
         "skip the boring bit where she reads out the title every time", True),
        # the rules hear a noise of the room (quieter); like requests asked for a pause, a
        # call that needs nothing more: that is made
        ("pause", ["hang on the landlines ringing", "the landline is ringing hold on",
                   "wait the landlines ringing"], "oh the landline is ringing", False),
        # the rules hear "go quiet" (a stop now); like requests asked to stop at the
        # episode's end: the two differ only in when, which like words do not say: asked
        ("sleep:end", ["finish this chapter and then go quiet", "finish this one then go quiet",
                       "let it finish the chapter and then go quiet"],
         "yeah finish up this episode and then go quiet", True),
    ],
)  # fmt: skip
async def test_a_reading_the_like_requests_doubt_is_asked_about_or_gives_way(
    tmp_path: Path, library: Path, intent: str, bank: list[str], utterance: str, asked: bool
) -> None:
    async with _device(tmp_path, library, []) as (player, agent):
        agent.analogs = Analogs([(intent, text) for text in bank])
        agent.fast_path = FastPath()
        volume = player.volume
        turn = await _turn(agent, utterance)
        assert player.now.episode.section == 2 and player.volume == volume, turn.answer
        assert not player.sleep_at_end
        if asked:
            assert turn.answer.startswith("Do you want me to"), turn.answer
            assert player.state == PlayerState.PLAYING
        else:
            assert player.state == PlayerState.PAUSED, turn.answer
            assert "made pause instead" in turn.steps[0].thought
        assert f"the requests most like it ask for {intent}" in turn.steps[0].thought
