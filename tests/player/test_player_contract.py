"""The tools' contract: roles and bounds, hints, return-direct, structured results,
the listener's context and the volume (initial, remembered, capped) on the real player."""

from __future__ import annotations

import asyncio
import json
import re

import jsonschema
import pytest
from player_fixtures import make_album, wait_until

from agent import ToolRegistry, tool_from_function
from player import BadInputError

ROLES = {
    "title",
    "album-id",
    "episode",
    "page",
    "seconds",
    "percent",
    "minutes",
    "rate",
    "episode-title",
}
ID = re.compile(r"\b(?:lib|rss|lv|json):[0-9a-z]+")


def bounded(coro, limit: float = 5.0):
    return asyncio.wait_for(coro, limit)


async def test_every_tool_carries_its_contract(make_player, library):
    player = await make_player(library_paths=[library])
    tools = [tool_from_function(f) for f in player.tools()]
    direct = {t.name for t in tools if t.return_direct}
    assert direct >= {"play_book", "pause", "resume", "stop", "next_episode"}
    assert not direct & {"search_album", "get_album_detail", "get_status"}
    for tool in tools:
        assert tool.hints.get("zh") and tool.hints.get("en"), tool.name
        assert tool.output_schema and "message" in tool.output_schema["properties"]
        for name, schema in tool.parameters["properties"].items():
            if schema.get("type") in ("integer", "number") or "x-role" in schema:
                assert schema.get("x-role") in ROLES | {None}, (tool.name, name)
    props = {t.name: t.parameters["properties"] for t in tools}
    assert props["get_album_detail"]["album_id"]["x-role"] == "album-id"
    # a section may count from the end (-1: the last); a relative skip may take away
    section = props["play_book"]["section"]
    assert (section["minimum"], section["maximum"]) == (-9999, 9999)
    assert "from the end" in section["description"]
    words = props["play_book"]["episode_title"]  # not a book's title: a role of its own
    assert (words["type"], words["maxLength"], words["x-role"]) == ("string", 100, "episode-title")
    for name in ("intro", "outro"):
        skip = props["set_skip"][name]
        assert (skip["x-role"], skip["minimum"], skip["maximum"]) == ("seconds", -600, 600)
    assert props["set_skip"]["relative"]["type"] == "boolean"
    assert "skip" in props["get_status"]["about"]["enum"]
    assert props["search_album"]["page"]["maximum"] == 50
    assert props["set_volume"]["percent"] == {
        "type": "integer", "x-role": "percent", "minimum": 0, "maximum": 100,
        "description": "0 (silent) to 100 (full).",
    }  # fmt: skip
    assert "required" not in tools[2].parameters  # keyword and section may be left out
    assert "required" not in next(t for t in tools if t.name == "set_skip").parameters


async def test_results_are_data_and_one_speakable_message(make_player, library):
    player = await make_player(library_paths=[library])
    registry = ToolRegistry(player.tools())
    found = await bounded(registry.call("search_album", {"keyword": "西游记"}))
    assert found.ok and found.data["albums"][0]["episodes"] == 3
    jsonschema.validate(found.data, registry.get("search_album").output_schema)
    assert json.loads(found.text)["albums"][0]["id"].startswith("lib:")
    played = await bounded(registry.call("play_book", {"keyword": "西游记", "section": 2}))
    assert played.return_direct and played.message == "正在播放西游记第2集 拜师学艺"
    assert played.data["now"]["episode"] == 2 and played.data["now"]["episodes"] == 3
    for name, args in [
        ("search_album", {"keyword": "西游记"}),
        ("get_album_detail", {"album_id": found.data["albums"][0]["id"]}),
        ("get_status", {}),
        ("pause", {}),
        ("list_albums", {}),
    ]:
        result = await bounded(registry.call(name, args))
        jsonschema.validate(result.data, registry.get(name).output_schema)
        assert result.message and not ID.search(result.message), (name, result.message)
        assert "(本地)" not in result.message and "第2集 第二集" not in result.message


async def test_the_listener_context(make_player, library):
    player = await make_player(library_paths=[library])
    assert player.listener_context("播第二集")["message"] == "没有在播放"
    await bounded(player.play_book("西游记", section=3))
    await wait_until(lambda: player.now.playback.position > 0.2)
    context = player.listener_context("现在是哪一集")
    assert context["message"].startswith("正在播放 西游记 第3集（共3集）")
    assert context["now"]["episode"] == 3 and context["now"]["id"].startswith("lib:")
    await bounded(player.play_book("journey", section=2))
    await bounded(player.stop())
    named = player.listener_context("接着听西遊記")  # traditional script names it too
    assert named["bookmarks"][0]["title"] == "西游记" and named["bookmarks"][0]["episode"] == 3
    assert "西游记上次听到第3集" in named["message"]
    # Without a number, play continues from the bookmark; with none, the current book.
    resumed = await bounded(player.play_book("西游记"))
    assert resumed["now"]["episode"] == 3
    fifth = await bounded(player.play_book(section=1))
    assert fifth["now"]["title"] == "西游记" and fifth["now"]["episode"] == 1


async def test_same_prefix_titles_name_the_longer(make_player, tmp_path):
    root = tmp_path / "lib"
    make_album(root, "水浒传", ["第1回"], seconds=0.5)
    make_album(root, "水浒传少儿版", ["第1回"], seconds=0.5)
    player = await make_player(library_paths=[root])
    for title in ("水浒传", "水浒传少儿版"):
        await bounded(player.play_book(title))
    await bounded(player.stop())
    marks = player.listener_context("接着听水浒传少儿版")["bookmarks"]
    assert [m["title"] for m in marks] == ["水浒传少儿版"]


async def test_stop_words_are_never_searched_but_such_titles_are(make_player, tmp_path):
    root = tmp_path / "lib"
    make_album(root, "It", ["Part 1"], seconds=0.5)
    make_album(root, "家", ["第1章"], seconds=0.5)
    player = await make_player(library_paths=[root])
    for keyword in ("I", "the", "书"):
        with pytest.raises(BadInputError):
            await bounded(player.play_book(keyword))
    assert (await bounded(player.search_album("it")))["albums"][0]["title"] == "It"
    assert (await bounded(player.search_album("家")))["albums"][0]["title"] == "家"


async def test_volume_is_the_configured_one_then_remembered_and_capped(make_player, tmp_path):
    player = await make_player(volume_percent=80, max_volume_percent=90)
    status = await bounded(player.get_status())
    assert status["volume"] == 80 and "音量80%" in status["message"]
    assert (await bounded(player.volume_up()))["volume"] == 90
    assert (await bounded(player.volume_up()))["message"] == "音量已经是最大的90%了"
    capped = await bounded(player.set_volume(100))
    assert capped["volume"] == 90 and player.volume == 0.9 and "最高90%" in capped["message"]
    assert (await bounded(player.volume_down()))["volume"] == 80
    await bounded(player.set_volume(40))
    await bounded(player.close())
    again = await make_player(volume_percent=80, max_volume_percent=90)
    assert round(again.volume * 100) == 40  # kept across a restart
    await bounded(again.close())
    lower = await make_player(volume_percent=80, max_volume_percent=30)
    assert round(lower.volume * 100) == 30  # a lower ceiling caps the remembered volume


async def test_english_messages(make_player, library):
    player = await make_player(library_paths=[library], language="en")
    assert (await bounded(player.volume_up()))["message"] == (
        "The volume is already at its maximum, 100%"
    )
    listed = await bounded(player.list_albums())
    assert listed["message"].startswith("The library has 2 books: ")  # both named: no "such as"
    assert player.listener_context("x")["message"] == "nothing playing"
