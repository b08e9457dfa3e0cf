"""Audiobooks on the device: the volume limits of a child's box in the config (checked on
load, documented in the example, wired to the player, shown by doctor), and a chapter of a
file as `xiaoting status` shows it."""

from __future__ import annotations

import asyncio
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "player"))

from player_fixtures import RecordingSink, make_album, make_book, wait_until

from device.config import AudioConfig, ConfigError, bedtime_minutes, dev_config, from_dict
from device.doctor import OK, check_volume

ROOT = Path(__file__).resolve().parents[2]


def test_the_defaults_limit_nothing() -> None:
    audio = AudioConfig()
    assert (audio.min_volume_percent, audio.bedtime, audio.bedtime_max_volume_percent) == (
        0,
        "",
        100,
    )


@pytest.mark.parametrize(
    ("table", "phrase"),
    [
        ({"bedtime": "8pm-7am"}, "audio.bedtime"),
        ({"bedtime": "25:00-07:00"}, "audio.bedtime"),
        ({"bedtime": "20:00-20:00"}, "audio.bedtime"),
        ({"min_volume_percent": 101}, "audio.min_volume_percent"),
        ({"min_volume_percent": 60, "max_volume_percent": 50}, "audio.min_volume_percent"),
        ({"min_volume_percent": 30, "bedtime_max_volume_percent": 20},
         "audio.bedtime_max_volume_percent"),
    ],
)  # fmt: skip
def test_bad_limits_name_the_key(table: dict, phrase: str) -> None:
    with pytest.raises(ConfigError) as info:
        from_dict({"audio": table}, source="x.toml")
    assert phrase in str(info.value) and "x.toml" in str(info.value)


def test_a_bedtime_window_may_pass_midnight() -> None:
    assert bedtime_minutes("20:00-07:00") == (1200, 420)
    assert bedtime_minutes(" 13:30 - 15:00 ") == (810, 900)
    assert bedtime_minutes("7:00") is None


def test_the_example_documents_the_limits_with_their_defaults() -> None:
    example = tomllib.loads((ROOT / "config.example.toml").read_text())["audio"]
    assert example["min_volume_percent"] == AudioConfig.min_volume_percent
    assert example["bedtime"] == AudioConfig.bedtime
    assert example["bedtime_max_volume_percent"] == AudioConfig.bedtime_max_volume_percent


def test_doctor_shows_the_limits(tmp_path: Path) -> None:
    plain = check_volume(dev_config(tmp_path))
    assert plain.level == OK and "no bedtime limit" in plain.detail
    limits = {"min_volume_percent": 20, "bedtime": "20:00-07:00", "bedtime_max_volume_percent": 40}
    child = check_volume(dev_config(tmp_path, audio=limits))
    assert "between 20% and 100%" in child.detail and "at most 40% from 20:00-07:00" in child.detail


async def test_the_runtime_hands_the_limits_to_the_player(tmp_path: Path) -> None:
    from device.runtime import _make_player

    class Mixer:
        book = RecordingSink()

    config = dev_config(
        tmp_path,
        audio={"min_volume_percent": 25, "bedtime": "21:00-06:30",
               "bedtime_max_volume_percent": 50},
    )  # fmt: skip
    player = await asyncio.wait_for(_make_player(config, Mixer()), 10)
    try:
        assert player.min_volume_percent == 25
        assert player.bedtime == (1260, 390) and player.bedtime_max_volume_percent == 50
    finally:
        await asyncio.wait_for(player.close(), 5)


async def test_status_shows_the_chapter_and_the_position_within_it(tmp_path: Path) -> None:
    from device.app import book_facts
    from device.commands import format_status
    from player import Player

    library = tmp_path / "library"
    make_book(library / "白鲸记" / "moby.m4b", [("Loomings", 3.0), ("The Carpet-Bag", 3.0)])
    player = Player(library_paths=[library], cache_dir=tmp_path / "c", state_dir=tmp_path / "s",
                    sink=RecordingSink(speed=1.0))  # fmt: skip
    await asyncio.wait_for(player.start(), 5)
    try:
        await asyncio.wait_for(player.play_book("白鲸记", section=2), 5)
        await wait_until(lambda: player.now.position > 0.2)
        facts = book_facts(player)
        assert facts["episode"] == 2 and facts["episode_title"] == "The Carpet-Bag"
        assert facts["chapter"] is True and "album_name" not in facts  # no other name known
        assert "章：2 The Carpet-Bag" in format_status({"state": "idle", **facts}, "zh")
        assert 0.2 <= facts["position_s"] < 1.5  # within the chapter, not the file
        assert (facts["speed"], facts["intro_s"], facts["outro_s"]) == (1.0, 0.0, 0.0)
        assert "sleep" not in facts and "sleep_minutes" not in facts
        # the book's speed and skips and the timer, as `xiaoting status` prints them
        await asyncio.wait_for(player.set_speed(1.5), 5)
        await asyncio.wait_for(player.set_skip(intro=0.5), 5)
        await asyncio.wait_for(player.sleep_timer(end_of_episode=True), 5)
        facts = book_facts(player)
        assert (facts["speed"], facts["intro_s"], facts["sleep"]) == (1.5, 0.5, "end_of_episode")
        lines = format_status({"state": "idle", "language": "en", **facts}, "en")
        assert "speed: 1.5x" in lines and "sleep timer: at the end of this episode" in lines
        assert "skipped: first 0.5 s, last 0 s of each episode" in lines
        await asyncio.wait_for(player.sleep_timer(minutes=20), 5)
        facts = book_facts(player)
        assert facts["sleep_minutes"] == 20 and "sleep" not in facts
        assert "定时：20分钟后停" in format_status({"state": "idle", **facts}, "zh")
    finally:
        await asyncio.wait_for(player.close(), 5)


async def test_status_shows_an_episode_title_only_when_it_is_words(tmp_path: Path) -> None:
    """A file name that is only the album and a number ("西游记 第02集", "xiyouji_02_64kb") is
    shown as the episode's number, not as a title."""
    from device.app import book_facts
    from device.commands import format_status
    from player import Player

    library = tmp_path / "library"
    make_album(library, "西游记", ["西游记 第01集", "xiyouji_02_64kb", "03 猴王出世"], seconds=1.0)
    player = Player(library_paths=[library], cache_dir=tmp_path / "c", state_dir=tmp_path / "s",
                    sink=RecordingSink(speed=20.0))  # fmt: skip
    await asyncio.wait_for(player.start(), 5)
    try:
        for section, title, line in [(1, "", "episode: 1"), (2, "", "episode: 2"),
                                     (3, "猴王出世", "episode: 3 猴王出世")]:  # fmt: skip
            await asyncio.wait_for(player.play_book("西游记", section=section), 5)
            facts = book_facts(player)
            assert (facts["episode"], facts["episode_title"]) == (section, title)
            assert line in format_status({"state": "idle", "language": "en", **facts}, "en")
    finally:
        await asyncio.wait_for(player.close(), 5)
