"""The tools, called directly as the agent would: local library, states, bookmarks, errors."""

from __future__ import annotations

import asyncio
import json
import re
import time
import typing
from pathlib import Path

import pytest
from player_fixtures import (
    RecordingSink,
    make_album,
    make_episode,
    wait_for_state,
    wait_until,
)

from player import BadInputError, DecodeError, NotFoundError, PlayerError, PlayerState


def bounded(coro, limit: float = 5.0):
    return asyncio.wait_for(coro, limit)


async def test_tools_are_typed_and_documented(make_player, library):
    player = await make_player(library_paths=[library])
    names = [t.__name__ for t in player.tools()]
    assert names[:7] == ["search_album", "get_album_detail", "play_book", "pause",
                         "resume", "stop", "get_status"]  # fmt: skip
    for tool in player.tools():
        assert tool.__doc__ and asyncio.iscoroutinefunction(tool)
    for tool in player.tools():  # hints resolve, so JSON Schemas get their types
        typing.get_type_hints(tool)
    hints = typing.get_type_hints(player.play_book)
    assert hints["section"] == int | None and hints["keyword"] is str
    assert (
        hints["episode_title"] is str and typing.get_type_hints(player.set_skip)["relative"] is bool
    )
    assert "Args:" in player.play_book.__doc__


async def test_search_album_lists_ids_usable_by_other_tools(make_player, library):
    player = await make_player(library_paths=[library])
    found = await bounded(player.search_album("西遊記"))
    assert found["message"] == "有西游记，3集"  # the title searched, its count
    assert "lib:" not in found["message"]
    [album] = found["albums"]
    assert album["title"] == "西游记" and album["episodes"] == 3
    album_id = album["id"]
    assert re.fullmatch(r"lib:[0-9a-f]{10}", album_id)
    result = await bounded(player.get_album_detail(album_id))
    detail = result["message"]
    assert "共3集" in detail and "第2集 拜师学艺" in detail and album_id not in detail
    assert result["album"] == album
    assert result["listed"][1] == {"episode": 2, "title": "拜师学艺"}
    picked = (await bounded(player.get_album_detail(album_id, keyword="天宫")))["message"]
    assert "大闹天宫" in picked and "猴王" not in picked
    with pytest.raises(NotFoundError, match="没有找到"):
        await bounded(player.search_album("红楼梦"))
    for keyword in ("I", "the", "书", "  "):
        with pytest.raises(BadInputError):
            await bounded(player.search_album(keyword))
    assert "Journey to the West" in (await bounded(player.search_album("jorney west")))["message"]
    with pytest.raises(NotFoundError):
        (await bounded(player.get_album_detail("lib:nope")))["message"]
    by_keyword = (await bounded(player.get_album_detail("123", keyword="西游记")))["message"]
    assert "共3集" in by_keyword


async def test_play_book_cached_fast_path(make_player, library, sink):
    player = await make_player(library_paths=[library])
    states = []
    player.subscribe(states.append)
    started = time.perf_counter()
    text = (await bounded(player.play_book("西游记", section=2)))["message"]
    assert text == "正在播放西游记第2集 拜师学艺"
    assert player.state == PlayerState.PLAYING
    await bounded(asyncio.to_thread(sink.written.wait, 5))
    assert sink.first_write > started
    assert states == [PlayerState.LOADING, PlayerState.PLAYING]
    status = (await bounded(player.get_status()))["message"]
    assert status.startswith("正在播放西游记第2集") and "音量100%" in status


async def test_pause_resume_stop_and_status(make_player, library, sink):
    player = await make_player(library_paths=[library])
    assert (await bounded(player.pause()))["message"] == "现在没有在播放"
    (await bounded(player.play_book("西游记", section=1)))["message"]
    await wait_until(lambda: sink.frames > 4800)
    assert (await bounded(player.pause()))["message"].startswith("已暂停西游记第1集")
    assert player.state == PlayerState.PAUSED
    await asyncio.sleep(0.1)
    frames = sink.frames
    await asyncio.sleep(0.1)
    assert sink.frames == frames
    assert "已暂停" in (await bounded(player.get_status()))["message"]
    assert (await bounded(player.resume()))["message"].startswith("继续播放")
    await wait_until(lambda: sink.frames > frames)
    assert (await bounded(player.stop()))["message"] == "已停止播放"
    assert player.state == PlayerState.IDLE
    assert "没有在播放，上次听到" in (await bounded(player.get_status()))["message"]


async def test_bookmark_resume_without_section(make_player, library, sink):
    player = await make_player(library_paths=[library])
    (await bounded(player.play_book("西游记", section=2)))["message"]
    await wait_until(lambda: player.now.playback.position > 1.2)
    (await bounded(player.stop()))["message"]
    mark = player.store.bookmark(player.store.last_bookmark().album_id)
    assert mark.section == 2 and mark.position > 1.2
    text = (await bounded(player.play_book("西游记")))["message"]
    assert text.startswith("从第2集1秒处继续播放西游记")
    assert player.now.episode.section == 2 and player.now.playback.position >= 1.2
    # An explicit section 1 is not "omitted".
    assert "第1集" in (await bounded(player.play_book("西游记", section=1)))["message"]
    assert player.now.playback.position < 0.5
    (await bounded(player.stop()))["message"]
    # No keyword: the last book.
    assert "西游记" in (await bounded(player.play_book("")))["message"]


async def test_bad_sections_and_keywords(make_player, library):
    player = await make_player(library_paths=[library])
    with pytest.raises(BadInputError, match="集数从1开始"):
        (await bounded(player.play_book("西游记", section=0)))["message"]
    with pytest.raises(NotFoundError, match="西游记只有3集，没有第9999集"):
        (await bounded(player.play_book("西游记", section=9999)))["message"]
    for keyword in ("../../etc/passwd", "/", "a\x00b", "..\\..\\x", "红楼梦"):
        # Nothing of that title: nothing starts, and the answer names books to play instead.
        try:
            result = await bounded(player.play_book(keyword, section=1))
        except BadInputError:
            continue
        assert result["message"].startswith("没有找到“"), result
        assert "我只能播放书库里的书，比如" in result["message"]
        assert result["albums"] == [] and result["total"] == 0
        assert player.state == PlayerState.IDLE
    # No title, nothing loaded, no bookmark: nothing starts; the answer offers books.
    offer = await bounded(player.play_book("   "))
    assert offer["message"].startswith("想听哪一本？书库里有2本书，比如")
    assert {a["title"] for a in offer["albums"]} == {"西游记", "Journey to the West"}
    assert player.state == PlayerState.IDLE
    assert not list(player.cache.root.rglob("*passwd*"))


async def test_next_previous_and_auto_advance(make_player, library, sink):
    player = await make_player(library_paths=[library])
    (await bounded(player.play_book("西游记", section=1)))["message"]
    assert "第2集" in (await bounded(player.next_episode()))["message"]
    assert "第1集" in (await bounded(player.previous_episode()))["message"]
    with pytest.raises(NotFoundError, match="第一集"):
        (await bounded(player.previous_episode()))["message"]
    (await bounded(player.play_book("西游记", section=2)))["message"]
    # 2 s episodes at 20x: the end comes fast and the player moves on to episode 3.
    await wait_until(lambda: player.now is not None and player.now.episode.section == 3)
    await wait_for_state(player, PlayerState.IDLE)
    mark = player.store.last_bookmark()
    assert mark.section == 3
    with pytest.raises(NotFoundError, match="最后一集"):
        (await bounded(player.next_episode()))["message"]


async def test_seek_volume_and_sleep_timer(make_player, library, sink):
    player = await make_player(library_paths=[library], fade_seconds=0.1)  # a short fade
    assert (await bounded(player.seek(1)))["message"] == "现在没有在播放"
    (await bounded(player.play_book("西游记", section=1)))["message"]
    sink.speed = 2.0
    assert (await bounded(player.seek(1.5)))["message"] == "已跳到1秒"
    await wait_until(lambda: player.now.playback.position >= 1.5)
    with pytest.raises(BadInputError):
        (await bounded(player.seek(60)))["message"]
    assert (await bounded(player.set_volume(30)))["message"] == "音量已调到30%"
    assert player.volume == 0.3
    for bad in (-1, 101):
        with pytest.raises(BadInputError):
            (await bounded(player.set_volume(bad)))["message"]
    await bounded(player.play_book("西游记", section=1))
    sink.speed = 0.5  # the book still plays when the 0.3 s timer ends (2 s episodes)
    assert "分钟后停止" in (await bounded(player.sleep_timer(0.005)))["message"]
    await wait_for_state(player, PlayerState.PAUSED)
    # The timer has run out: nothing left to cancel ("别停"), said so, not "cancelled".
    assert (await bounded(player.sleep_timer(0)))["message"] == "没有设置定时，会接着往下放"
    await bounded(player.sleep_timer(30))
    assert (await bounded(player.sleep_timer(0)))["message"] == "已取消定时"
    with pytest.raises(BadInputError):
        (await bounded(player.sleep_timer(-3)))["message"]


async def test_stop_cancels_the_sleep_timer(make_player, library, sink):
    """A timer left from before a stop would pause the next book played."""
    player = await make_player(library_paths=[library])
    await bounded(player.play_book("西游记", section=1))
    await bounded(player.sleep_timer(0.01))
    await bounded(player.stop())
    assert player.sleep_deadline is None and "sleep_minutes" not in await player.get_status()
    sink.speed = 0.5
    await bounded(player.play_book("西游记", section=1))
    await asyncio.sleep(0.9)  # past the 0.6 s the timer had
    assert player.state == PlayerState.PLAYING


async def test_corrupt_local_file_is_a_clear_error_and_playback_goes_on(
    make_player, tmp_path, sink
):
    root = tmp_path / "lib"
    make_album(root, "好书", ["第1集", "第2集"], seconds=2.0)
    (root / "好书" / "第2集.mp3").write_bytes(b"")
    player = await make_player(library_paths=[root])
    (await bounded(player.play_book("好书", section=1)))["message"]
    with pytest.raises(DecodeError, match="好书第2集的文件坏了"):
        (await bounded(player.play_book("好书", section=2)))["message"]
    assert player.state == PlayerState.PLAYING and player.now.episode.section == 1
    assert isinstance(DecodeError("x"), PlayerError)


async def test_english_texts(make_player, library):
    player = await make_player(library_paths=[library], language="en")
    text = (await bounded(player.search_album("journey")))["message"]
    assert text.startswith("Found 1 album: Journey to the West, 2 episodes")
    assert (await bounded(player.play_book("journey", section=2)))["message"].startswith(
        "Playing Journey to the West, episode 2"
    )
    with pytest.raises(NotFoundError, match="has 2 episodes"):
        (await bounded(player.play_book("journey", section=7)))["message"]


async def test_titles_for_the_phrase_list(make_player, library, tmp_path):
    player = await make_player(library_paths=[library])
    assert set(player.titles()) >= {"西游记", "Journey to the West"}
    make_episode(tmp_path / "x.mp3", seconds=0.2)


class BrokenSink(RecordingSink):
    """An output that fails after the first write, like an unplugged USB sound card."""

    def write(self, pcm: bytes) -> None:
        if self.frames:
            raise OSError("device gone")
        super().write(pcm)


async def test_sink_failure_stops_playback_and_keeps_the_file(make_player, library):
    player = await make_player(library_paths=[library], sink=BrokenSink(speed=20.0))
    (await bounded(player.play_book("西游记", section=1)))["message"]
    await wait_for_state(player, PlayerState.IDLE)
    assert "声音输出出错" in (await bounded(player.get_status()))["message"]
    assert all(Path(e.location).exists() for e in (await player.resolve("西游记")).episodes)
    # The player is still usable.
    (await bounded(player.search_album("西游记")))["message"]


async def test_a_dead_remote_source_does_not_hide_the_library(make_player, library):
    player = await make_player(library_paths=[library], librivox_url="http://127.0.0.1:9")
    text = (await bounded(player.play_book("西游纪", section=1)))["message"]  # typo: fuzzy, local
    assert text.startswith("正在播放西游记第1集")


async def test_help_says_what_the_player_can_do_and_declines_the_rest(make_player, library):
    player = await make_player(library_paths=[library])
    assert "help" in [t.__name__ for t in player.tools()]
    result = await bounded(player.help())
    assert "只能" in result["message"] and "有声书" in result["message"]
    # Its example request names a book of this library: the first, then the last listened.
    first = player.library_albums()[0].title
    assert result["title"] == first and f"“播放{first}”" in result["message"]
    other = next(a.title for a in player.library_albums() if a.title != first)
    await bounded(player.play_book(other, section=2))
    await bounded(player.stop())
    assert f"“播放{other}”" in (await bounded(player.help()))["message"]
    player.language = "en"
    assert (await bounded(player.help()))["message"].startswith("I can only play audiobooks")


async def test_help_in_an_empty_library_names_no_book(make_player, tmp_path):
    player = await make_player(library_paths=[tmp_path / "nothing"])
    result = await bounded(player.help())
    assert set(result) == {"message"} and "“播放”加书名" in result["message"]


async def test_a_library_of_one_book_is_said_as_one(make_player, tmp_path):
    root = tmp_path / "books"
    make_album(root, "家", ["第一集"])
    player = await make_player(library_paths=[root])
    listed = await bounded(player.list_albums())
    assert listed["message"] == "书库里有一本书：家" and listed["total"] == 1
    which = await bounded(player.play_book())
    assert which["message"] == "想听哪一本？书库里有一本书：家"


async def test_a_search_names_the_album_of_that_very_title_first(make_player, tmp_path):
    root = tmp_path / "books"
    make_album(root, "家春秋", ["第一集"])
    make_album(root, "家", ["第一集", "第二集", "第三集", "第四集"])
    make_album(root, "老舍的家", ["第一集", "第二集"])
    player = await make_player(library_paths=[root])
    found = await bounded(player.search_album("家春秋"))
    assert found["message"] == "有家春秋，1集"
    found = await bounded(player.search_album("家"))  # one character: that title only
    assert [a["title"] for a in found["albums"]] == ["家"] and found["total"] == 1
    assert found["message"] == "有家，4集"  # its count, not "1 album"
    with pytest.raises(NotFoundError):
        await bounded(player.search_album("春"))  # a letter of 家春秋, not a title
    only = await bounded(player.search_album("老舍的家"))
    assert only["message"] == "有老舍的家，2集"
    partial = await bounded(player.search_album("家春"))
    assert partial["message"] == "找到1个专辑：家春秋，1集"  # not that very title


async def test_nothing_found_offers_the_book_listened_to_last(make_player, library):
    player = await make_player(library_paths=[library])
    await bounded(player.play_book("Journey to the West", section=2))
    await bounded(player.stop())
    result = await bounded(player.play_book("给我讲个笑话"))
    assert result["message"] == (
        "没有找到“给我讲个笑话”相关的有声书。我只能播放书库里的书，比如Journey to the West和西游记"
    )
    assert player.state == PlayerState.IDLE
    with pytest.raises(
        NotFoundError, match="我只能播放书库里的书，比如Journey to the West和西游记"
    ):
        await bounded(player.search_album("一加一等于几"))
    # An album id that is gone stays an error: the model may search again.
    with pytest.raises(NotFoundError):
        await bounded(player.play_book("lib:0000000000"))


async def test_words_naming_two_books_equally_ask_which(make_player, tmp_path):
    """ "harry potter" with two of its books here and neither listened to: nothing starts
    and the listener is asked which; once one was listened to, the words mean it."""
    root = tmp_path / "hp"
    make_album(root, "Harry Potter and the Philosopher's Stone", ["Chapter 01"], seconds=1.0)
    make_album(root, "Harry Potter and the Chamber of Secrets", ["Chapter 01"], seconds=1.0)
    make_album(root, "Matilda", ["Chapter 01"], seconds=1.0)
    player = await make_player(library_paths=[root], language="en")
    await bounded(player.play_book("Matilda"))
    result = await bounded(player.play_book("harry potter"))
    assert result["message"] == (
        "Which one do you mean: Harry Potter and the Philosopher's Stone or "
        "Harry Potter and the Chamber of Secrets?"
    ) or result["message"] == (
        "Which one do you mean: Harry Potter and the Chamber of Secrets or "
        "Harry Potter and the Philosopher's Stone?"
    )
    assert result["total"] == 2 and player.now.detail.album.title == "Matilda"
    await bounded(player.play_book("harry potter and the chamber"))  # one named: it plays
    assert player.now.detail.album.title == "Harry Potter and the Chamber of Secrets"
    await bounded(player.play_book("Matilda"))
    await bounded(player.play_book("harry potter"))  # the one listened to before
    assert player.now.detail.album.title == "Harry Potter and the Chamber of Secrets"


async def test_an_author_of_two_books_asks_which(make_player, tmp_path):
    """ "the Andy Weir book" with two of his books here: nothing starts and the listener is
    asked which, as for two titles named equally well."""
    root = tmp_path / "weir"
    for title in ("The Martian", "Project Hail Mary"):
        folder = make_album(root, title, ["Chapter 01"], seconds=1.0)
        (folder / "album.json").write_text('{"author": "Andy Weir"}', encoding="utf-8")
    make_album(root, "Matilda", ["Chapter 01"], seconds=1.0)
    player = await make_player(library_paths=[root], language="en")
    await bounded(player.play_book("Matilda"))
    result = await bounded(player.play_book("andy weir"))
    assert result["total"] == 2 and result["message"].startswith("Which one do you mean"), result
    assert player.now.detail.album.title == "Matilda"


async def test_a_title_held_in_two_editions_plays_the_one_written_as_said(make_player, tmp_path):
    """ "Harry Potter and the Sorcerer's Stone" names the English edition and the Chinese
    one (by the catalog's names of the work) equally: the one whose title is written in
    the words' script plays; "哈利波特" plays the Chinese one."""
    root = tmp_path / "hp"
    make_album(root, "Harry Potter and the Philosopher's Stone", ["Chapter 01"], seconds=1.0)
    make_album(root, "哈利波特与魔法石", ["第1章"], seconds=1.0)
    player = await make_player(library_paths=[root], language="en")
    await bounded(player.play_book("harry potter and the sorcerer's stone"))
    assert player.now.detail.album.title == "Harry Potter and the Philosopher's Stone"
    await bounded(player.play_book("哈利波特"))
    assert player.now.detail.album.title == "哈利波特与魔法石"


async def test_a_title_said_loosely_with_its_author_plays_that_authors_book(make_player, tmp_path):
    """ "the habit by tolkien": of Tolkien's books the one whose title sounds like the
    words; a title near none of that author's books, or a name of nobody here, starts
    nothing."""
    root = tmp_path / "by"
    for title, author in (("The Hobbit", "J. R. R. Tolkien"), ("The Silmarillion", "J. R. R. Tolkien"),
                          ("The Habit of Art", "Alan Bennett")):  # fmt: skip
        folder = make_album(root, title, ["Chapter 01"], seconds=1.0)
        (folder / "album.json").write_text(f'{{"author": "{author}"}}', encoding="utf-8")
    player = await make_player(library_paths=[root], language="en")
    await bounded(player.play_book("habit by tolkien"))
    assert player.now.detail.album.title == "The Hobbit"
    await bounded(player.stop())
    result = await bounded(player.play_book("dune by tolkien"))
    assert player.now is None and "offer" not in result and result["total"] == 0, result


async def test_an_episode_title_alone_plays_the_one_book_that_has_it(make_player, tmp_path):
    """ "大闹天宫" with nothing loaded: the one episode of the library with that title; a
    title held by two books, or words too short to name one, start nothing."""
    root = tmp_path / "told"
    make_album(root, "西游记", ["第一回 猴王出世", "第二回 大闹天宫", "第三回 三打白骨精"],
               seconds=0.5)  # fmt: skip
    make_album(root, "三国演义", ["第一回 宴桃园豪杰三结义", "第二回 三打白骨精"], seconds=0.5)
    fresh = await make_player(library_paths=[root], state_dir=tmp_path / "fresh")
    for words in ("三打白骨精", "天宫"):  # in two books; two characters
        await bounded(fresh.play_book(words))
        assert fresh.now is None, words
    await bounded(fresh.play_book(episode_title="孙悟空大闹天宫"))  # a title's own words in them
    assert (fresh.now.detail.album.title, fresh.now.episode.section) == ("西游记", 2)
    player = await make_player(library_paths=[root])
    await bounded(player.play_book("大闹天宫"))
    assert (player.now.detail.album.title, player.now.episode.section) == ("西游记", 2)
    await bounded(player.play_book("桃园三结义"))  # a title's words in order: only in the book
    assert (player.now.detail.album.title, player.now.episode.section) == ("西游记", 2)  # heard
    await bounded(player.play_book("宴桃园豪杰三结义"))  # a title's own words, in another book
    assert (player.now.detail.album.title, player.now.episode.section) == ("三国演义", 1)


async def test_a_sleep_timer_that_ends_while_the_next_episode_loads_pauses_it(
    make_player, library, sink
):
    """The timer's end can fall between two episodes (the next one loading): it then
    pauses that episode once it plays, rather than being lost."""
    player = await make_player(library_paths=[library], fade_seconds=0.1)  # a short fade
    sink.speed = 0.5  # a 2 s episode lasts 4 s: it is still playing when the test ends
    await bounded(player.play_book("西游记", section=1))
    player._set_state(PlayerState.LOADING)  # as between two episodes
    task = asyncio.ensure_future(player._sleep_after(0.0))
    await asyncio.sleep(0.2)
    assert not task.done() and player.state == PlayerState.LOADING
    player._set_state(PlayerState.PLAYING)  # the next episode starts
    await bounded(task)
    assert player.state == PlayerState.PAUSED


async def test_a_tools_error_is_spoken_in_the_players_language_and_names_no_id(
    make_player, library
) -> None:
    """A source's or the decoder's message in the other language, or one holding an album
    id, reaches the listener as the sentence of its kind in the configured language."""
    player = await make_player(library_paths=[library], language="en")
    assert player.speakable_error(NotFoundError("no local album lib:c5340936b5")) == (
        "No such album; search for the title first"
    )
    damaged = player.speakable_error(DecodeError("音频文件坏了，无法播放"))
    assert damaged.startswith("This audio file is damaged")
    own = NotFoundError('Sorry, I couldn\'t find "Dune"')
    assert player.speakable_error(own) == str(own)
    tool = next(t for t in player.tools() if t.__name__ == "get_album_detail")
    with pytest.raises(NotFoundError, match="No such album"):
        await bounded(tool("lib:c5340936b5"))


# -- episodes by their place from the end, and by their title ------------------------------


@pytest.fixture
def hours(tmp_path) -> Path:
    """长安十二时辰 (24 episodes), The Martian (sols 1, 9, 19, 29) and 午初, a book whose
    title is also the words of one of 长安十二时辰's episode titles."""
    root = tmp_path / "hours"
    names = ["第一章 巳正", "第二章 午初", "第三章 未正", "第四章 未初", "第五章 申初",
             "第六章 酉正（上）", "第七章 酉正（下）"]  # fmt: skip
    names += [f"第{i}章" for i in range(8, 25)]
    make_album(root, "长安十二时辰", names, seconds=0.5)
    make_album(root, "The Martian", ["Sol 1", "Sol 9", "Sol 19", "Sol 29"], seconds=0.5)
    make_album(root, "午初", ["第1集"], seconds=0.5)
    return root


async def test_a_negative_section_counts_from_the_end(make_player, hours, sink):
    sink.speed = 1.0  # each episode still plays when the next call comes
    player = await make_player(library_paths=[hours])
    played = await bounded(player.play_book("长安十二时辰", section=-1))
    assert played["now"]["episode"] == 24 and played["message"] == "正在播放长安十二时辰第24集"
    assert (await bounded(player.play_book("长安十二时辰", section=-2)))["now"]["episode"] == 23
    assert (await bounded(player.play_book(section=-24)))["now"]["episode"] == 1  # this book
    with pytest.raises(NotFoundError, match="长安十二时辰只有24集，没有倒数第25集"):
        await bounded(player.play_book("长安十二时辰", section=-25))
    with pytest.raises(BadInputError, match="集数从1开始"):
        await bounded(player.play_book("长安十二时辰", section=0))
    assert player.now.episode.section == 1  # nothing else started
    # The count is of episodes, not section numbers: the last sol is 29, the one before 19.
    assert (await bounded(player.play_book("The Martian", section=-1)))["now"]["episode"] == 29
    assert (await bounded(player.play_book("The Martian", section=-2)))["now"]["episode"] == 19
    player.language = "en"
    with pytest.raises(NotFoundError, match="has 4 episodes; there is no episode 5 from the end"):
        await bounded(player.play_book("The Martian", section=-5))
    with pytest.raises(NotFoundError, match=r"has 4 episodes; there is no episode 30$"):
        await bounded(player.play_book("The Martian", section=30))


def test_episode_titles_match_folded_and_as_whole_tokens():
    from player.models import Episode
    from player.tools import episodes_titled, title_tokens

    assert title_tokens("第四章 未初") == ["第", "四", "章", "未", "初"]
    assert title_tokens("Sol 19") == ["sol", "19"] and title_tokens("SOL9") == ["sol", "9"]
    titles = ["第四章 未初", "第五章 申初", "Sol 9", "Sol 19", "Chapter 2: The Carpet-Bag",
              "第六章 酉正（上）", "第七章 酉正（下）", "12"]  # fmt: skip
    episodes = [Episode("lib:x", i, t, f"/x/{i}.mp3") for i, t in enumerate(titles, 1)]

    def named(words: str) -> list[str]:
        return [e.title for e in episodes_titled(episodes, words)]

    assert named("未初") == ["第四章 未初"]
    assert named("未 初") == ["第四章 未初"]  # spaces ignored
    assert named("第四章未初") == ["第四章 未初"]
    assert named("sol 9") == ["Sol 9"] and named("Sol9") == ["Sol 9"]
    assert named("sol 19") == ["Sol 19"]
    assert named("sol十九") == ["Sol 19"] and named("sol 九") == ["Sol 9"]  # "放sol十九那一章"
    assert named("第四章未初") == ["第四章 未初"]  # no Latin word: the numeral stays a character
    assert named("sol") == ["Sol 9", "Sol 19"]  # in both: the caller decides
    assert named("ol 9") == []  # whole words only
    assert named("the carpet bag") == ["Chapter 2: The Carpet-Bag"]
    assert named("THE CARPET-BAG") == ["Chapter 2: The Carpet-Bag"]
    assert named("carpet ba") == []
    assert named("初") == []  # one character: equal titles only
    assert named("12") == ["12"] and named("2") == []  # digits: equal titles only
    assert named("酉正") == ["第六章 酉正（上）", "第七章 酉正（下）"]
    assert named("酉正上") == ["第六章 酉正（上）"]
    assert named("") == [] and named("  ") == []
    # words with some of the title left out: in order, in one title alone
    told = [Episode("lib:y", i, t, f"/y/{i}.mp3") for i, t in enumerate(
        ["第一回 宴桃园豪杰三结义", "第二回 张翼德怒鞭督邮", "第三回 议温明董卓叱丁原"], 1)]  # fmt: skip
    assert [e.section for e in episodes_titled(told, "桃园三结义")] == [1]
    assert [e.section for e in episodes_titled(told, "张飞怒鞭督邮")] == []  # 飞 is in none
    assert [e.section for e in episodes_titled(told, "鞭邮")] == []  # two characters: whole only
    assert [e.section for e in episodes_titled(told, "第一三")] == []  # the number is no word
    assert [e.section for e in episodes_titled(told, "董卓")] == [3]  # held whole, as before
    two = [*told, Episode("lib:y", 4, "第四回 桃园豪杰再结义", "/y/4.mp3")]
    assert episodes_titled(two, "再结义") == [two[3]]  # held whole by one
    assert episodes_titled(two, "桃园杰结义") == []  # in order in two titles: neither
    assert episodes_titled(told, "桃园义") == []  # fewer than half the title's own
    # English words heard as others that sound alike, the numbers the same: one title only
    assert named("soul 19") == ["Sol 19"] and named("soul nine") == ["Sol 9"]
    assert named("soul 20") == [] and named("seoul") == []  # no such number; in two titles
    assert named("the carpet rug") == []  # "rug" is no sound of "bag"
    # Chinese words a recogniser wrote by their sound: the one title holding a run so heard
    heard = [*told, Episode("lib:y", 5, "第五回 大闹天宫", "/y/5.mp3")]
    assert [e.section for e in episodes_titled(heard, "大闹天公")] == [5]
    assert [e.section for e in episodes_titled(heard, "怒编督邮")] == [2]
    assert [e.section for e in episodes_titled(heard, "大闹地宫")] == []  # 地 is no sound of 天
    twice = [*heard, Episode("lib:y", 6, "第六回 再闹天宫", "/y/6.mp3")]
    assert episodes_titled(twice, "闹天公") == []  # heard in two titles: neither


async def test_a_keyword_naming_an_episode_of_the_book_heard_plays_it(make_player, hours, sink):
    sink.speed = 1.0
    player = await make_player(library_paths=[hours])
    # Nothing loaded, nothing left off: a title of no book is not found, as before.
    missed = await bounded(player.play_book("未初"))
    assert missed["message"].startswith("没有找到“未初”") and player.state == PlayerState.IDLE
    await bounded(player.play_book("长安十二时辰", section=1))
    played = await bounded(player.play_book("未初"))
    assert played["message"] == "正在播放长安十二时辰第4集 未初"
    assert played["now"]["title"] == "长安十二时辰" and played["now"]["episode"] == 4
    assert (await bounded(player.play_book("第三章 未正")))["now"]["episode"] == 3
    # Two episodes hold 酉正, 初 is one character: not found, and nothing else starts.
    for keyword in ("酉正", "初"):
        result = await bounded(player.play_book(keyword))
        assert "now" not in result or result["now"]["episode"] == 3, result
        assert not result.get("albums") and player.now.episode.section == 3
    # A book of that title wins over an episode's title.
    assert (await bounded(player.play_book("午初")))["now"]["title"] == "午初"
    # With nothing loaded, the book left off last is the one whose episodes are named.
    await bounded(player.play_book("长安十二时辰", section=1))
    await bounded(player.stop())
    assert (await bounded(player.play_book("申初")))["now"]["episode"] == 5
    # Latin titles: whole words, spaces and case ignored.
    await bounded(player.play_book("The Martian", section=1))
    assert (await bounded(player.play_book("sol 9")))["now"]["episode"] == 9
    assert (await bounded(player.play_book("SOL19")))["now"]["episode"] == 19
    assert (await bounded(player.play_book("sol")))["total"] == 0  # four sols: which?
    assert player.now.episode.section == 19


async def test_episode_title_plays_that_episode_of_the_book(make_player, hours, sink):
    sink.speed = 1.0
    player = await make_player(library_paths=[hours])
    played = await bounded(player.play_book("长安十二时辰", episode_title="未初"))
    assert played["message"] == "正在播放长安十二时辰第4集 未初"
    # No keyword: the book loaded now; several titles hold the words: the first.
    assert (await bounded(player.play_book(episode_title="酉正")))["now"]["episode"] == 6
    assert (await bounded(player.play_book(episode_title="酉正 下")))["now"]["episode"] == 7
    with pytest.raises(NotFoundError, match="长安十二时辰里没有叫“子时”的一集"):
        await bounded(player.play_book("长安十二时辰", episode_title="子时"))
    assert player.now.episode.section == 7 and player.state == PlayerState.PLAYING
    # "part 2" with its section: no title holds the words, so the section is the episode.
    played = await bounded(player.play_book("长安十二时辰", section=2, episode_title="part 2"))
    assert played["now"]["episode"] == 2
    await bounded(player.stop())
    # Nothing loaded: the book left off.
    assert (await bounded(player.play_book(episode_title="申初")))["now"]["episode"] == 5
    player.language = "en"
    tool = next(t for t in player.tools() if t.__name__ == "play_book")  # as the agent calls
    played = await bounded(tool("The Martian", episode_title="sol 19"))
    assert played["message"] == "Playing The Martian, episode 19: Sol 19"
    with pytest.raises(NotFoundError, match=r'^The Martian has no episode called "Sol 99"$'):
        await bounded(tool("The Martian", episode_title="Sol 99"))
    assert player.now.episode.section == 19
    # A title that names an episode wins over the section said beside it.
    played = await bounded(tool("The Martian", section=1, episode_title="sol 29"))
    assert played["now"]["episode"] == 29


def people_library(root: Path) -> Path:
    """Books with their author and narrator in album.json: two by 金庸, one of them read
    by 王刚; two by Jane Austen."""
    books = [("天龙八部", "金庸", "王刚"), ("射雕英雄传", "金庸", "李野墨"), ("西游记", "吴承恩", ""),
             ("Emma", "Jane Austen", "Juliet Stevenson"), ("Pride and Prejudice", "Jane Austen", "")]  # fmt: skip
    for title, author, narrator in books:
        folder = make_album(root, title, ["第一集"], seconds=0.5)
        info = {"title": title, "author": author, "narrator": narrator}
        (folder / "album.json").write_text(json.dumps(info, ensure_ascii=False), encoding="utf-8")
    return root


async def test_a_search_by_words_around_a_persons_name_searches_by_the_name(make_player, tmp_path):
    player = await make_player(library_paths=[people_library(tmp_path / "books")])
    index = player.title_index()
    [named] = index.find("我想听王刚讲的那个")  # one book: that book
    assert (named.title, named.how) == ("天龙八部", "person")
    assert index.find("有没有金庸的武侠小说") == [] and index.people_in("金庸的武侠") == ["金庸"]
    # Nothing is called "金庸的武侠": the search is by 金庸, said once, and asks which.
    found = await bounded(player.search_album("金庸的武侠"))
    assert {a["title"] for a in found["albums"]} == {"天龙八部", "射雕英雄传"}
    assert found["total"] == 2 and found["message"].startswith("金庸的专辑有2个：")
    assert "金庸" not in found["message"][3:] and "王刚演播" in found["message"]
    assert found["message"].endswith("1集。想听哪一本？")
    # A narrator of one book: that one, no question.
    found = await bounded(player.search_album("王刚演播的"))
    assert found["message"] == "王刚的专辑有一个：天龙八部（金庸），1集"
    # The name itself is a search as before; several albums end with the question too.
    found = await bounded(player.search_album("金庸"))
    assert found["message"].startswith("找到2个专辑：")
    assert found["message"].endswith("想听哪一本？")
    assert (await bounded(player.search_album("西游记")))["message"] == "有西游记（吴承恩），1集"
    with pytest.raises(NotFoundError):
        await bounded(player.search_album("古龙的武侠"))
    player.language = "en"
    found = await bounded(player.search_album("stuff by jane austen"))
    assert {a["title"] for a in found["albums"]} == {"Emma", "Pride and Prejudice"}
    assert found["message"].startswith("Jane Austen has 2 albums here: ")
    assert "by Jane" not in found["message"] and "read by Juliet Stevenson" in found["message"]
    assert found["message"].endswith(". Which one would you like?"), found["message"]


async def test_an_episode_title_of_a_series_is_looked_for_in_its_books(tmp_path, make_player):
    """ "三体死神永生那一集": the episode is in the series' other book, which plays; an episode
    none of its books holds asks which book, never an error of the first."""
    from player_fixtures import make_album

    root = tmp_path / "series"
    make_album(root, "三体", ["第一集 科学边界", "第二集 射手和农场主"], seconds=1.0)
    make_album(root, "三体2", ["第一集 面壁者", "第二集 咒语"], seconds=1.0)
    make_album(root, "西游记", ["第一集 猴王出世"], seconds=1.0)
    player = await make_player(library_paths=[root])
    played = await bounded(player.play_book("三体", episode_title="面壁者"))
    assert played["now"]["title"] == "三体2" and played["now"]["episode"] == 1
    asked = await bounded(player.play_book("三体", episode_title="死神永生"))
    assert "三体2" in asked["message"] and asked.get("now") is None
    assert sorted(a["title"] for a in asked["albums"]) == ["三体", "三体2"]
    assert player.state == PlayerState.PLAYING and player.now.detail.album.title == "三体2"
    own = await bounded(player.play_book("三体", episode_title="射手和农场主"))
    assert own["now"]["title"] == "三体" and own["now"]["episode"] == 2
    with pytest.raises(NotFoundError):  # a book of no series: its own error, as before
        await bounded(player.play_book("西游记", episode_title="死神永生"))
