"""A book is named in the configured language: its title, else its alias in that language
(album.json ``aliases``), through the real Player on a generated library."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from player_fixtures import make_album

from player import NotFoundError
from player.models import Album
from player.texts import album_name


def bounded(coro, limit: float = 5.0):
    return asyncio.wait_for(coro, limit)


def named_library(root: Path) -> Path:
    """西游记 with an English alias, Dracula with a Chinese one, 活着 and Emma with none in
    the other language (活着's alias is its traditional spelling)."""
    books = [("西游记", ["Journey to the West"], "吴承恩"), ("Dracula", ["德古拉"], "Bram Stoker"),
             ("活着", ["活著"], "余华"), ("Emma", [], "Jane Austen")]  # fmt: skip
    for title, aliases, author in books:
        folder = make_album(root, title, ["第01集", "第02集"], seconds=1.0)
        info = {"title": title, "aliases": aliases, "author": author}
        (folder / "album.json").write_text(json.dumps(info, ensure_ascii=False), encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("language", "title", "aliases", "name"),
    [
        ("en", "西游记", ("西遊記", "Journey to the West", "Monkey"), "Journey to the West"),
        ("en", "Dracula", ("德古拉",), "Dracula"),
        ("en", "活着", ("活著",), "活着"),
        ("zh", "Dracula", ("Count Dracula", "德古拉"), "德古拉"),
        ("zh", "西游记", ("Journey to the West",), "西游记"),
        ("zh", "Emma", (), "Emma"),
    ],
)
def test_the_name_in_a_language(language: str, title: str, aliases: tuple, name: str) -> None:
    assert album_name(language, Album("lib:1", title, aliases=aliases)) == name


async def test_an_english_service_names_a_chinese_book_by_its_english_alias(make_player, tmp_path):
    player = await make_player(library_paths=[named_library(tmp_path / "books")], language="en")
    played = await bounded(player.play_book("西游记", section=2))
    assert played["message"] == "Playing Journey to the West, episode 2"
    assert played["now"]["title"] == "西游记"  # the album's identity is its title
    status = await bounded(player.get_status())
    assert status["message"].startswith("Playing Journey to the West, episode 2 of 2, ")
    author = await bounded(player.get_status("author"))
    assert author["message"] == "Journey to the West is by 吴承恩"
    assert (await bounded(player.pause()))["message"] == "Paused Journey to the West, episode 2"
    resumed = await bounded(player.resume())
    assert resumed["message"] == "Resumed Journey to the West, episode 2"
    with pytest.raises(NotFoundError, match=r"^Journey to the West has 2 episodes; there is no"):
        await bounded(player.play_book("西游记", section=9))
    found = await bounded(player.search_album("journey to the west"))
    assert found["message"] == "There is Journey to the West by 吴承恩, 2 episodes"
    assert [a["title"] for a in found["albums"]] == ["西游记"]
    detail = await bounded(player.get_album_detail(found["albums"][0]["id"]))
    assert detail["message"].startswith("Journey to the West has 2 episodes: ")
    listed = (await bounded(player.list_albums()))["message"]
    assert "Journey to the West" in listed and "西游记" not in listed
    helped = await bounded(player.help())  # the book listened to last, by its English name
    assert "play Journey to the West" in helped["message"] and helped["title"] == "西游记"
    assert player.spoken_title("西游记") == "Journey to the West"


async def test_a_chinese_service_names_an_english_book_by_its_chinese_alias(make_player, tmp_path):
    player = await make_player(library_paths=[named_library(tmp_path / "books")], language="zh")
    played = await bounded(player.play_book("Dracula", section=1))
    assert played["message"] == "正在播放德古拉第1集"
    assert played["now"]["title"] == "Dracula"
    assert (await bounded(player.get_status("episodes")))["message"] == "德古拉一共2集，现在是第1集"
    skipped = await bounded(player.set_skip(intro=0.2))
    assert skipped["message"] == "好的，德古拉每一集跳过片头0.2秒"
    assert (await bounded(player.pause()))["message"] == "已暂停德古拉第1集"
    found = await bounded(player.search_album("德古拉"))
    assert found["message"] == "有德古拉（Bram Stoker），2集"
    assert "德古拉" in (await bounded(player.list_albums()))["message"]
    assert player.spoken_title("Dracula") == "德古拉"


async def test_a_book_with_no_name_in_the_language_keeps_its_title(make_player, tmp_path):
    player = await make_player(library_paths=[named_library(tmp_path / "books")], language="en")
    played = await bounded(player.play_book("活着", section=1))
    assert played["message"] == "Playing 活着, episode 1"
    player.language = "zh"
    played = await bounded(player.play_book("Emma", section=2))
    assert played["message"] == "正在播放Emma第2集"
    # and a book whose title is in the language is named by it, never by an alias
    played = await bounded(player.play_book("西游记", section=1))
    assert played["message"] == "正在播放西游记第1集"
    player.language = "en"
    assert (await bounded(player.pause()))["message"] == "Paused Journey to the West, episode 1"
    played = await bounded(player.play_book("Dracula", section=1))
    assert played["message"] == "Playing Dracula, episode 1"


async def test_one_album_found_is_said_as_one(make_player, tmp_path):
    player = await make_player(library_paths=[named_library(tmp_path / "books")], language="en")
    found = await bounded(player.search_album("bram"))
    assert found["total"] == 1
    assert "1 albums" not in found["message"] and "Dracula" in found["message"]
