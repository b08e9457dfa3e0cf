"""A yes-or-no question about the timer, through the real Player: the answer begins with yes
or no for what was asked (whether playback will stop, or go on), then says what the timer
is set to; nothing changes. No model step is taken."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from real_device import playing, treasure_island

from agent import Agent
from agent.fastpath import FastPath
from player import Player, PlayerState


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return treasure_island(tmp_path_factory.mktemp("timer-questions") / "library", chapters=3)


@asynccontextmanager
async def _device(
    tmp_path: Path, library: Path, language: str, at_end: bool
) -> AsyncIterator[tuple[Player, Agent]]:
    """The real Player with Treasure Island's episode 2 playing, stopping at its end when
    `at_end`, and an agent with the fast path and no model replies at all (a model step
    fails)."""
    async with playing(tmp_path, library, language=language, fast_path=FastPath()) as pair:
        if at_end:
            await pair[0].sleep_timer(end_of_episode=True)
        yield pair


@pytest.mark.parametrize(
    ("language", "utterance", "at_end", "begins"),
    [
        ("zh", "这一章放完了它会自己停吧", True, "会的，"),
        ("zh", "这一章放完了它会自己停吧", False, "不会，"),
        ("zh", "它会一直往下放吗", True, "不会，"),
        ("en", "is it going to stop when this chapter is over?", True, "Yes. "),
        ("en", "is it going to stop when this chapter is over?", False, "No. "),
        ("en", "will it keep going into the next chapter?", False, "Yes. "),
    ],
)  # fmt: skip
async def test_a_yes_or_no_question_about_the_timer_is_answered_yes_or_no(
    tmp_path: Path, library: Path, language: str, utterance: str, at_end: bool, begins: str
) -> None:
    async with _device(tmp_path, library, language, at_end) as (player, agent):
        turn = await asyncio.wait_for(agent.run(utterance), 10)
        assert turn.answer.startswith(begins), turn.answer
        assert turn.backend == "fastpath" and player.state == PlayerState.PLAYING
        assert player.sleep_at_end is at_end and player.now.episode.section == 2


async def test_a_question_of_which_is_answered_by_what_is_set(
    tmp_path: Path, library: Path
) -> None:
    async with _device(tmp_path, library, "en", False) as (player, agent):
        turn = await asyncio.wait_for(
            agent.run("will it keep going after this chapter, or stop by itself?"), 10
        )
        assert turn.answer == "No timer is set: it will keep playing", turn.answer
        assert not player.sleep_at_end and player.state == PlayerState.PLAYING
