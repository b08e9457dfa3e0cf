"""A well-known book is found by the names listeners use for it in the other language or
another edition (`words.catalog`), with no album.json, when a play or search keyword says
one; they are never spoken. Through the real Player on a generated library."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from player_fixtures import make_album

from words import catalog
from words.catalog import known_as, works
from words.text import normalize


def bounded(coro, limit: float = 5.0):
    return asyncio.wait_for(coro, limit)


def test_every_work_has_both_languages_and_no_name_twice() -> None:
    raw = tomllib.loads((Path(catalog.__file__).parent / "catalog" / "works.toml").read_text())
    assert all(work["en"] and work["zh"] for work in raw["work"])
    found = works()
    assert len(found) == len(raw["work"]) >= 300
    owner: dict[str, int] = {}
    for number, names in enumerate(found):
        for name in names:
            key = normalize(name)
            assert key, names
            assert owner.setdefault(key, number) == number, (name, found[owner[key]])


def test_known_as_gives_the_other_names_of_a_title() -> None:
    names = known_as("哈利波特与魔法石")
    assert "Harry Potter and the Sorcerer's Stone" in names
    assert "哈利波特与魔法石" not in names  # the title itself is no other name
    assert "Journey to the West" in known_as("《西遊記》（少儿版）")  # script, an edition note
    assert "西游记" in known_as("journey to the west")
    assert known_as("我家的录音") == ()
    assert "孙子" not in known_as("The Art of War")  # an everyday word (grandson), not a title


def library(root: Path) -> Path:
    """Two books by their folder names alone: a Chinese one and an English one."""
    make_album(root, "哈利波特与魔法石", ["第01集", "第02集"], seconds=1.0)
    make_album(root, "Treasure Island", ["Chapter 01", "Chapter 02"], seconds=1.0)
    return root


async def test_a_book_is_played_by_its_name_in_the_other_language(make_player, tmp_path):
    player = await make_player(library_paths=[library(tmp_path / "books")], language="en")
    played = await bounded(player.play_book("harry potter and the sorcerer's stone", section=2))
    assert played["now"]["title"] == "哈利波特与魔法石" and played["now"]["episode"] == 2
    short = await bounded(player.play_book("the sorcerer's stone"))  # as a reading passes it
    assert short["now"]["title"] == "哈利波特与魔法石"
    found = await bounded(player.search_album("金银岛"))
    assert [a["title"] for a in found["albums"]] == ["Treasure Island"]
    # the catalog's names are for finding the book, not for naming it
    assert "Sorcerer" not in played["message"] and "金银岛" not in found["message"]
    other = await bounded(player.play_book("the chamber of secrets"))  # another volume
    assert other["albums"] == [] and "couldn't find" in other["message"]


async def test_a_book_of_that_very_title_comes_before_a_catalog_name(make_player, tmp_path):
    root = library(tmp_path / "books")
    make_album(root, "金银岛", ["第01集"], seconds=1.0)  # the same work, its Chinese edition
    player = await make_player(library_paths=[root], language="zh")
    for keyword, title in (("金银岛", "金银岛"), ("treasure island", "Treasure Island")):
        played = await bounded(player.play_book(keyword))
        assert played["now"]["title"] == title, keyword
    found = await bounded(player.search_album("金银岛"))  # by its own title only
    assert [a["title"] for a in found["albums"]] == ["金银岛"]


def test_a_series_volume_is_also_named_by_its_series_and_part() -> None:
    names = known_as("Harry Potter and the Chamber of Secrets")
    for said in (
        "Harry Potter two",
        "Harry Potter book 2",
        "the second Harry Potter",
        "哈利波特第二部",
    ):
        assert said in names, said
    assert "Harry Potter one" not in names  # another volume's
    assert "三体第二部" in known_as("黑暗森林") and "三体第一部" in known_as("三体")
    assert not any("two" in n for n in known_as("Treasure Island"))  # no series, no part


async def test_a_series_and_part_plays_that_volume_over_a_near_match_of_another(
    make_player, tmp_path
):
    root = tmp_path / "books"
    make_album(root, "Harry Potter and the Philosopher's Stone", ["Chapter 01"], seconds=1.0)
    make_album(root, "Harry Potter and the Chamber of Secrets", ["Chapter 01"], seconds=1.0)
    player = await make_player(library_paths=[root], language="en")
    # "two" is one letter from "tho" of "the philosopher's": a near match of the first book
    # by its own words, where the catalog names the second exactly.
    for keyword in ("harry potter two", "Harry Potter book two", "哈利波特第二部"):
        played = await bounded(player.play_book(keyword))
        assert played["now"]["title"] == "Harry Potter and the Chamber of Secrets", keyword
    both = await bounded(player.search_album("harry potter"))  # its own words, as before
    assert len(both["albums"]) == 2
    found = await bounded(player.search_album("harry potter two"))
    assert found["albums"][0]["title"] == "Harry Potter and the Chamber of Secrets"


async def test_the_title_index_holds_catalog_names_no_other_book_answers_to(make_player, tmp_path):
    root = tmp_path / "books"
    make_album(root, "Harry Potter and the Philosopher's Stone", ["Chapter 01"], seconds=1.0)
    make_album(root, "Harry Potter and the Chamber of Secrets", ["Chapter 01"], seconds=1.0)
    make_album(root, "Alice in Wonderland", ["Chapter 01"], seconds=1.0)
    make_album(root, "爱丽丝梦游仙境", ["第01集"], seconds=1.0)
    player = await make_player(library_paths=[root], language="en")
    index = player.title_index()

    def found(said: str) -> list[str]:
        return [n.title for n in index.find(said)]

    # a series and part said with no verb is a title to the words layer, not only to play
    assert found("harry potter two") == ["Harry Potter and the Chamber of Secrets"]
    assert found("哈利波特第二部") == ["Harry Potter and the Chamber of Secrets"]
    # the Chinese book's own title is never the English book's alias
    assert found("爱丽丝梦游仙境") == ["爱丽丝梦游仙境"]
    assert found("Alice's Adventures in Wonderland") == ["Alice in Wonderland"]
