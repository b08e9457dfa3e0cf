"""The generated benchmark library, read by the real player: every album, episode and trap."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.library import ALBUMS, BY_TITLE, build_library, cache_key, chinese_numeral
from player import Player
from player.models import PlayerState
from tests.player.player_fixtures import wait_for_state
from words.numbers import chinese_number as chinese_to_int


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_library(tmp_path_factory.mktemp("bench-library"), clip_seconds=1.0)


def test_the_library_has_what_the_benchmark_needs() -> None:
    titles = {a.title for a in ALBUMS}
    assert len(ALBUMS) >= 300
    assert {"家", "活着", "It", "Us", "紅樓夢", "水浒传", "水浒传少儿版", "三体", "三体2"} <= titles
    assert any(" " in t and t.isascii() for t in titles)
    assert any(" " in t and not t.isascii() for t in titles)
    counts = [a.episodes for a in ALBUMS]
    assert min(counts) == 1 and max(counts) == 120
    assert sum(1 for a in ALBUMS if a.author) > 200
    assert any("/" in a.folder for a in ALBUMS)  # albums grouped under an author's folder


@pytest.mark.parametrize("n", [1, 2, 9, 10, 11, 19, 20, 21, 99, 100, 101, 105, 110, 120, 1001])
def test_chinese_numerals_read_back(n: int) -> None:
    assert chinese_to_int(chinese_numeral(n)) == n


def test_the_cache_key_follows_the_clip_length() -> None:
    assert cache_key(900.0) != cache_key(2.0)
    assert cache_key(900.0) == cache_key(900.0)


async def test_the_real_player_reads_every_album_and_episode(player: Player) -> None:
    assert len(player.titles()) == len(ALBUMS)
    for spec in ALBUMS:
        detail = await player.resolve(spec.title)
        assert detail.album.title == spec.title
        assert detail.album.author == spec.author
        assert [e.section for e in detail.episodes] == list(range(1, spec.episodes + 1)), spec


async def test_traps_resolve_as_a_listener_means_them(player: Player) -> None:
    assert (await player.resolve("红楼梦")).album.title == "紅樓夢"
    assert (await player.resolve("水浒传")).album.title == "水浒传"
    assert (await player.resolve("三体")).album.title == "三体"
    assert (await player.resolve("家")).album.title == "家"
    assert (await player.resolve("it")).album.title == "It"


async def test_an_episode_of_the_library_plays(player: Player) -> None:
    detail = await player.resolve("西游记")
    await asyncio.wait_for(player.play(detail, detail.episode(3)), 10)
    await wait_for_state(player, PlayerState.PLAYING)
    assert player.now is not None and player.now.episode.section == 3
    assert BY_TITLE["西游记"].names[2] == "第03集 大闹龙宫"
