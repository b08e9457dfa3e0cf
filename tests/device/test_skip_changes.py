"""A change of the intro or outro skip that names no end, through the real Player: the
words say more, fewer or half as many seconds ("跳多了，少跳十秒", "make it half that"), and
the end changed is the one the book skips now; a book that skips both ends is asked which,
and nothing changes. No model step is taken: the words layer reads it and the player's
context says the rest."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from real_device import playing, treasure_island

from agent import Agent
from agent.fastpath import FastPath
from player import Player
from words.analogs import Analogs


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return treasure_island(tmp_path_factory.mktemp("skip-changes") / "library", chapters=3)


@pytest.fixture(scope="module")
def bank() -> Analogs:
    return Analogs.load()


@asynccontextmanager
async def _device(
    tmp_path: Path, library: Path, bank: Analogs, language: str, intro: float, outro: float
) -> AsyncIterator[tuple[Player, Agent]]:
    """The real Player with Treasure Island's episode 2 playing, skipping `intro` and
    `outro` seconds, and an agent with the fast path, the shipped bank and no model replies
    at all (a model step fails)."""
    async with playing(
        tmp_path, library, language=language, fast_path=FastPath(), analogs=bank
    ) as (player, agent):
        player.book_settings_save(player.now.detail.album, intro=intro, outro=outro)
        yield player, agent


@pytest.mark.parametrize(
    ("language", "utterance", "before", "after"),
    [
        ("zh", "跳多了，正文都没了，少跳十秒", (30.0, 0.0), (20.0, 0.0)),
        ("zh", "还是能听见音乐，再多跳五秒吧", (0.0, 20.0), (0.0, 25.0)),
        ("en", "you're skipping too much, take five seconds off that", (30.0, 0.0), (25.0, 0.0)),
        ("en", "all that skipping eats the story, make it half that", (0.0, 40.0), (0.0, 20.0)),
        # the end said elsewhere in the request, though both are skipped
        ("zh", "开头那段跳得不够，再多跳十秒", (20.0, 30.0), (30.0, 30.0)),
    ],
)  # fmt: skip
async def test_a_change_of_the_skip_is_of_the_end_skipped_now(
    tmp_path: Path, library: Path, bank: Analogs, language: str, utterance: str,
    before: tuple[float, float], after: tuple[float, float],
) -> None:  # fmt: skip
    async with _device(tmp_path, library, bank, language, *before) as (player, agent):
        turn = await asyncio.wait_for(agent.run(utterance), 10)
        assert player.book_settings(player.now.detail.album)[1:] == after, turn.answer
        assert turn.backend == "fastpath" and player.now.episode.section == 2


@pytest.mark.parametrize(
    ("language", "utterance", "question"),
    [
        ("zh", "跳多了，正文都没了，少跳十秒", "片头还是片尾"),
        ("en", "you're skipping too much, take five seconds off that", "start or the end"),
    ],
)
async def test_with_both_ends_skipped_the_listener_is_asked_which(
    tmp_path: Path, library: Path, bank: Analogs, language: str, utterance: str, question: str
) -> None:
    async with _device(tmp_path, library, bank, language, 30.0, 20.0) as (player, agent):
        turn = await asyncio.wait_for(agent.run(utterance), 10)
        assert question in turn.answer, turn.answer
        assert player.book_settings(player.now.detail.album)[1:] == (30.0, 20.0)
