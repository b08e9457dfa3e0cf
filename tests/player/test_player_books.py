"""Audiobooks as listeners have them, on real files PyAV writes: chapters inside one file,
speakable titles, playback speed, intro and outro skip, sleep at the end of an episode,
the fade of a timer's end, and volume limits for a child's box."""

from __future__ import annotations

import asyncio
import datetime
import json
import shutil
import time
from pathlib import Path

import pytest
from player_fixtures import (
    RecordingSink,
    chapter_freq,
    dominant,
    make_album,
    make_book,
    make_episode,
    wait_for_state,
    wait_until,
)

from player import BadInputError, PlayerState
from player.chapters import ChapterIndex, id3_has_chapters, read_chapters
from player.player import bedtime_window, in_window
from player.sources import LocalLibrary
from player.store import Store
from player.texts import MESSAGES

RATE = 48000
MOBY = [("Chapter 1: Loomings", 3.0), ("Chapter 2: The Carpet-Bag", 3.0),
        ("Chapter 3: The Spouter-Inn", 3.0)]  # fmt: skip


def bounded(coro, limit: float = 5.0):
    return asyncio.wait_for(coro, limit)


@pytest.fixture(scope="session")
def moby(tmp_path_factory) -> Path:
    """An M4B of three 3-second chapters (300, 500 and 700 Hz), encoded once."""
    return make_book(tmp_path_factory.mktemp("books") / "moby.m4b", MOBY)


def shelf(root: Path, title: str, book: Path, *, info: dict | None = None) -> Path:
    """A library folder `root/title` holding a copy of `book` (and an album.json)."""
    folder = root / title
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(book, folder / book.name)
    if info is not None:
        (folder / "album.json").write_text(json.dumps(info), encoding="utf-8")
    return folder


def heard(sink: RecordingSink, seconds: float = 0.2) -> float:
    """The strongest frequency of the last `seconds` written to `sink`."""
    return dominant(sink.samples()[-int(seconds * RATE) * 2 :], RATE)


# -- chapters -----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".m4b", ".mp3"])
def test_chapter_marks_are_read_as_pyav_gives_them(tmp_path, suffix):
    book = make_book(tmp_path / f"book{suffix}", MOBY)
    chapters = read_chapters(book)
    assert [c.title for c in chapters] == [t for t, _ in MOBY]
    assert [c.start for c in chapters] == [0.0, 3.0, 6.0]
    assert [c.end for c in chapters][:2] == [3.0, 6.0] and chapters[2].end >= 8.9
    if suffix == ".mp3":
        assert id3_has_chapters(book)
        assert not id3_has_chapters(make_episode(tmp_path / "plain.mp3", seconds=0.5))
    assert read_chapters(make_episode(tmp_path / "plain.m4a", kind="m4a", seconds=0.5)) == ()


async def test_an_m4b_with_three_chapters_lists_three_episodes(make_player, tmp_path, moby):
    shelf(tmp_path / "lib", "白鲸记", moby)
    player = await make_player(library_paths=[tmp_path / "lib"])
    found = await bounded(player.search_album("白鲸记"))
    assert found["albums"][0]["episodes"] == 3 and found["message"] == "有白鲸记，3集"
    detail = await bounded(player.get_album_detail(found["albums"][0]["id"]))
    assert detail["listed"] == [
        {"episode": 1, "title": "Loomings"},
        {"episode": 2, "title": "The Carpet-Bag"},
        {"episode": 3, "title": "The Spouter-Inn"},
    ]
    assert detail["message"] == (
        "白鲸记共3集：第1集 Loomings、第2集 The Carpet-Bag和第3集 The Spouter-Inn"
    )


def test_an_album_mixes_chapter_marked_and_plain_files(tmp_path, moby):
    folder = tmp_path / "lib" / "Moby Dick"
    make_episode(folder / "01 Introduction.mp3", seconds=0.5)
    shutil.copyfile(moby, folder / "02 moby.m4b")
    make_episode(folder / "03 Afterword.mp3", seconds=0.5)
    library = LocalLibrary([tmp_path / "lib"])
    library.refresh(force=True)
    [detail] = library.details()
    assert detail.album.episode_count == 5
    rows = [(e.section, e.title, Path(e.location).name, e.start) for e in detail.episodes]
    assert rows == [
        (1, "01 Introduction", "01 Introduction.mp3", 0.0),
        (2, "Chapter 1: Loomings", "02 moby.m4b", 0.0),
        (3, "Chapter 2: The Carpet-Bag", "02 moby.m4b", 3.0),
        (4, "Chapter 3: The Spouter-Inn", "02 moby.m4b", 6.0),
        (5, "03 Afterword", "03 Afterword.mp3", 0.0),
    ]
    assert detail.episodes[2].duration == 3.0 and not detail.episodes[0].is_chapter


def test_chapters_are_read_once_and_kept_in_the_store(tmp_path, moby):
    shelf(tmp_path / "lib", "白鲸记", moby)
    store = Store(tmp_path / "state" / "player.sqlite3")
    first = ChapterIndex(store)
    LocalLibrary([tmp_path / "lib"], chapters=first).refresh(force=True)
    assert first.read == 1
    again = ChapterIndex(store)  # a restart: the store answers, the file is not opened
    library = LocalLibrary([tmp_path / "lib"], chapters=again)
    library.refresh(force=True)
    assert again.read == 0 and library.albums()[0].episode_count == 3
    store.close()


async def test_play_book_section_2_starts_at_the_second_chapter(make_player, tmp_path, moby, sink):
    shelf(tmp_path / "lib", "白鲸记", moby)
    sink.speed = 2.0  # a 3 s chapter lasts 1.5 s
    player = await make_player(library_paths=[tmp_path / "lib"])
    result = await bounded(player.play_book("白鲸记", section=2))
    assert result["message"] == "正在播放白鲸记第2章 The Carpet-Bag"
    now = result["now"]
    assert now["episode"] == 2 and now["episode_title"] == "The Carpet-Bag"
    assert now["position"] < 1.0 and now["duration"] == 3.0
    await wait_until(lambda: player.now.position > 0.5)
    status = (await bounded(player.get_status()))["now"]
    assert status["episode"] == 2 and 0.4 < status["position"] < 3.0
    assert status["duration"] == 3.0 and status["episode_title"] == "The Carpet-Bag"
    assert player.now.playback.position == pytest.approx(3.0 + status["position"], abs=0.2)
    assert heard(player.sink) == pytest.approx(chapter_freq(1), abs=10)
    # a chapter is paused and resumed as a chapter, as it was played
    assert (await bounded(player.pause()))["message"] == "已暂停白鲸记第2章"
    assert (await bounded(player.resume()))["message"] == "继续播放白鲸记第2章"


async def test_next_chapter_of_the_same_file_plays_on_in_the_open_file(
    make_player, tmp_path, moby, sink
):
    shelf(tmp_path / "lib", "白鲸记", moby)
    sink.speed = 2.0
    player = await make_player(library_paths=[tmp_path / "lib"])
    await bounded(player.play_book("白鲸记", section=2))
    playback = player.now.playback
    result = await bounded(player.next_episode())
    assert result["message"] == "正在播放白鲸记第3章 The Spouter-Inn"
    assert result["now"]["episode"] == 3 and result["now"]["position"] < 1.0
    assert player.now.playback is playback  # the same worker and open file: a seek within it
    await wait_until(lambda: player.now.position > 0.3)
    assert heard(sink) == pytest.approx(chapter_freq(2), abs=10)
    await bounded(player.previous_episode())
    assert player.now.episode.section == 2 and player.now.playback is playback
    mark = player.store.last_bookmark()
    assert (mark.section, mark.episode_title) == (2, "Chapter 2: The Carpet-Bag")
    assert mark.position < 1.0
    await bounded(player.previous_episode())  # back to the file's start
    await wait_until(lambda: player.now.position > 0.3)
    assert player.now.episode.section == 1 and player.now.playback is playback
    assert heard(sink) == pytest.approx(chapter_freq(0), abs=10)


async def test_auto_advance_crosses_chapters_without_reopening(make_player, tmp_path, moby):
    shelf(tmp_path / "lib", "白鲸记", moby)
    sink = RecordingSink(speed=6.0)
    player = await make_player(library_paths=[tmp_path / "lib"], sink=sink)
    await bounded(player.play_book("白鲸记", section=1))
    playback = player.now.playback
    seen = set()

    def chapter_now() -> bool:
        if player.now is not None:
            seen.add(player.now.episode.section)
        return player.state == PlayerState.IDLE

    await wait_until(chapter_now, 10)
    assert seen == {1, 2, 3} and not playback.alive
    assert playback.frames_written == pytest.approx(9.0 * RATE, abs=0.2 * RATE)  # no gap, no repeat
    mark = player.store.last_bookmark()
    assert mark.section == 3 and mark.position == 0.0  # finished: the last episode, from 0


async def test_seek_is_within_the_chapter(make_player, tmp_path, moby, sink):
    shelf(tmp_path / "lib", "白鲸记", moby)
    sink.speed = 2.0
    player = await make_player(library_paths=[tmp_path / "lib"])
    await bounded(player.play_book("白鲸记", section=2))
    assert (await bounded(player.seek(1.5)))["position"] == 1.5
    assert player.now.playback.position == pytest.approx(4.5, abs=0.01)
    assert player.now.episode.section == 2 and player.now.position == pytest.approx(1.5)
    with pytest.raises(BadInputError, match="3秒"):
        await bounded(player.seek(5))


async def test_a_bookmark_from_before_the_chapters_finds_its_chapter(make_player, tmp_path, moby):
    """A book left at 7.5 s of its file when the file was one episode resumes in chapter
    3 at 1.5 s, not at the start of chapter 1."""
    shelf(tmp_path / "lib", "白鲸记", moby)
    player = await make_player(library_paths=[tmp_path / "lib"])
    detail = await bounded(player.resolve("白鲸记"))
    player.store.bookmark_save(detail.album, detail.episodes[0], 7.5)
    result = await bounded(player.play_book("白鲸记"))
    assert result["now"]["episode"] == 3 and result["now"]["position"] == pytest.approx(1.5)


@pytest.mark.slow
async def test_kill_during_a_chapter_resumes_in_that_chapter(tmp_path, make_player):
    from test_player_kill import kill, spawn, wait_ready

    library = tmp_path / "library"
    make_book(
        library / "长篇" / "book.m4b", [("第一章 起", 4.0), ("第二章 承", 8.0), ("第三章 合", 4.0)]
    )
    child = await spawn("chapter", str(tmp_path / "state"), str(tmp_path / "cache"), str(library))
    try:
        assert "正在播放长篇第2章 承" in await wait_ready(child)
        await asyncio.sleep(2.0)
    finally:
        await kill(child)
    player = await make_player(library_paths=[library])
    mark = player.store.last_bookmark()
    assert mark is not None and mark.section == 2 and 1.0 <= mark.position <= 2.8
    result = await bounded(player.play_book("长篇"))
    assert result["message"].startswith("从第2章"), result
    assert player.now.episode.section == 2
    assert player.now.position == pytest.approx(mark.position, abs=0.3)
    assert player.now.playback.position == pytest.approx(4.0 + mark.position, abs=0.3)


# -- speakable titles ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "names", "spoken"),
    [
        ("Pride and Prejudice", ["prideandprejudice_01_64kb", "prideandprejudice_02_64kb"],
         "Playing Pride and Prejudice, episode 1"),
        ("Greatest Hits", ["01 - Track 01", "02 - Track 02"], "Playing Greatest Hits, episode 1"),
        # an English voice cannot say 猴王出世: the number is said (the title stays in the data)
        ("西游记", ["第01集 猴王出世", "第02集 拜师学艺"], "Playing 西游记, episode 1"),
        ("Moby Dick", ["Moby Dick 01 - Loomings", "Moby Dick 02 - The Carpet-Bag"],
         "Playing Moby Dick, episode 1: Loomings"),
    ],
)  # fmt: skip
async def test_only_titles_that_are_words_are_spoken(make_player, tmp_path, title, names, spoken):
    make_album(tmp_path / "lib", title, names, seconds=0.5)
    player = await make_player(library_paths=[tmp_path / "lib"], language="en")
    result = await bounded(player.play_book(title, section=1))
    assert result["message"] == spoken
    assert ("episode_title" in result["now"]) == (":" in spoken or title == "西游记")


# -- speed --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def minute(tmp_path_factory) -> Path:
    """60 s of a 440 Hz tone (FLAC: no encoder delay to blur the count)."""
    return make_episode(tmp_path_factory.mktemp("minute") / "tone.flac", kind="flac",
                        seconds=60.0, freq=440.0)  # fmt: skip


async def test_at_speed_1_5_a_minute_of_book_takes_40_seconds_at_440_hz(
    make_player, tmp_path, minute
):
    shelf(tmp_path / "lib", "一分钟", minute)
    sink = RecordingSink()  # as fast as the worker goes: frames written are device time
    player = await make_player(library_paths=[tmp_path / "lib"], sink=sink)
    await bounded(player.play_book("一分钟", section=1))
    await bounded(player.pause())
    result = await bounded(player.set_speed(1.5))
    assert result == {"message": "已调到1.5倍速", "speed": 1.5}
    await bounded(player.seek(0))  # the whole minute from its start
    await asyncio.sleep(0.05)
    start = sink.frames
    await bounded(player.resume())
    await wait_for_state(player, PlayerState.IDLE, 20)
    device = (sink.frames - start) / RATE
    assert device == pytest.approx(40.0, abs=1.0)
    assert dominant(sink.samples()[start * 2 : (start + 4 * RATE) * 2], RATE) == pytest.approx(
        440.0, abs=2.0
    )  # the pitch is kept
    album = (await bounded(player.search_album("一分钟")))["albums"][0]
    assert player.store.book(album["id"]).speed == 1.5  # remembered for this book


async def test_position_bookmark_and_status_stay_in_book_time(make_player, tmp_path, minute):
    shelf(tmp_path / "lib", "一分钟", minute)
    sink = RecordingSink(speed=8.0)
    player = await make_player(library_paths=[tmp_path / "lib"], sink=sink)
    await bounded(player.play_book("一分钟", section=1))
    await bounded(player.set_speed(step=2))  # two steps faster: 1.5
    assert (await bounded(player.get_status()))["speed"] == 1.5
    playback = player.now.playback
    await wait_until(lambda: playback.position > 1.0)
    begin, written = playback.position, playback.frames_written
    await wait_until(lambda: playback.frames_written - written > 4 * RATE)
    await bounded(player.pause())
    await asyncio.sleep(0.05)  # a chunk on its way to the sink when the pause came
    device = (playback.frames_written - written) / RATE
    assert playback.position - begin == pytest.approx(1.5 * device, abs=0.15)
    player.save_bookmark()
    mark = player.store.last_bookmark()
    assert mark.position == pytest.approx(player.now.position, abs=0.01) and mark.position > 6
    assert "1.5倍速" in (await bounded(player.get_status()))["message"]
    assert (await bounded(player.set_speed(rate=1.0)))["message"] == "已恢复正常速度"
    assert (await bounded(player.set_speed(step=-2)))["speed"] == 0.5
    assert "最慢" in (await bounded(player.set_speed(step=-1)))["message"]
    with pytest.raises(BadInputError):
        await bounded(player.set_speed(rate=3.0))
    # a speed between the rungs of 0.25 steps to the next rung: 0.8 faster is normal
    await bounded(player.set_speed(rate=0.8))
    assert (await bounded(player.set_speed(step=1)))["speed"] == 1.0
    await bounded(player.set_speed(rate=1.1))
    assert (await bounded(player.set_speed(step=-1)))["speed"] == 1.0
    assert (await bounded(player.set_speed(step=-1)))["speed"] == 0.75


async def test_the_speed_is_remembered_per_book(make_player, tmp_path, minute, moby):
    shelf(tmp_path / "lib", "一分钟", minute)
    shelf(tmp_path / "lib", "白鲸记", moby)
    player = await make_player(library_paths=[tmp_path / "lib"])
    await bounded(player.play_book("白鲸记", section=1))
    await bounded(player.set_speed(1.25))
    await bounded(player.play_book("一分钟"))
    assert player.now.playback.speed == 1.0
    await bounded(player.play_book("白鲸记", section=2))
    assert player.now.playback.speed == 1.25


# -- intro and outro ----------------------------------------------------------------------


async def test_intro_and_outro_of_album_json_are_skipped_in_every_chapter(
    make_player, tmp_path, moby
):
    shelf(tmp_path / "lib", "白鲸记", moby, info={"skip_intro": 1.0, "skip_outro": 1.0})
    sink = RecordingSink(speed=8.0)
    player = await make_player(library_paths=[tmp_path / "lib"], sink=sink)
    result = await bounded(player.play_book("白鲸记", section=1))
    assert result["now"]["position"] == 1.0  # the intro is skipped from the start
    playback = player.now.playback
    await wait_for_state(player, PlayerState.IDLE, 10)
    # 1 s of each 3 s chapter is heard: 1-2, 4-5, 7-8 (the last one's outro ends the file)
    assert playback.frames_written == pytest.approx(3.0 * RATE, abs=0.1 * RATE)


async def test_a_resume_never_lands_inside_a_skipped_intro(make_player, tmp_path, moby):
    shelf(tmp_path / "lib", "白鲸记", moby)
    player = await make_player(library_paths=[tmp_path / "lib"])
    await bounded(player.play_book("白鲸记", section=2))
    await bounded(player.pause())
    result = await bounded(player.set_skip(intro=1.5))
    assert result["message"] == "好的，白鲸记每一集跳过片头1.5秒" and result["intro"] == 1.5
    await bounded(player.stop())
    album = player.now_data() or (await bounded(player.search_album("白鲸记")))["albums"][0]
    assert player.store.book(album["id"]).intro == 1.5
    result = await bounded(player.play_book("白鲸记"))  # the bookmark was at 0:00
    assert result["now"]["episode"] == 2 and result["now"]["position"] == 1.5
    assert (await bounded(player.set_skip(intro=0, outro=2)))["message"] == (
        "好的，白鲸记每一集不再跳过片头，跳过片尾2秒"
    )
    with pytest.raises(BadInputError):
        await bounded(player.set_skip())


async def test_a_relative_skip_adds_to_the_books_skip(make_player, tmp_path, moby):
    shelf(tmp_path / "lib", "白鲸记", moby, info={"skip_intro": 1.0})
    player = await make_player(library_paths=[tmp_path / "lib"])
    await bounded(player.play_book("白鲸记", section=2))
    await bounded(player.pause())
    result = await bounded(player.set_skip(intro=0.5, relative=True))  # 1 s of album.json
    assert result == {"message": "好的，白鲸记每一集跳过片头1.5秒", "intro": 1.5, "outro": 0.0}
    result = await bounded(player.set_skip(outro=-3, relative=True))  # none to take away
    assert result["message"] == "好的，白鲸记每一集不再跳过片尾" and result["outro"] == 0.0
    result = await bounded(player.set_skip(intro=-0.5, outro=2, relative=True))
    assert result["message"] == "好的，白鲸记每一集跳过片头1秒，跳过片尾2秒"
    assert (result["intro"], result["outro"]) == (1.0, 2.0)
    played = await bounded(player.play_book("白鲸记", section=1))
    assert played["now"]["position"] == 1.0  # the skip is the one the book plays with
    await bounded(player.pause())
    for _ in range(2):  # 1 + 500, then held at 600
        result = await bounded(player.set_skip(intro=500, relative=True))
    assert result["message"] == "好的，白鲸记每一集跳过片头600秒" and result["intro"] == 600
    album_id = player.now.detail.album.id
    assert player.store.book(album_id).intro == 600
    result = await bounded(player.set_skip(intro=-600, relative=True))
    assert result["message"] == "好的，白鲸记每一集不再跳过片头" and result["intro"] == 0
    for bad in ({"intro": -5}, {"outro": -0.5}, {"intro": 601, "relative": True},
                {"outro": -601, "relative": True}, {"relative": True}):  # fmt: skip
        with pytest.raises(BadInputError):
            await bounded(player.set_skip(**bad))
    assert (player.store.book(album_id).intro, player.store.book(album_id).outro) == (0.0, 2.0)
    player.language = "en"
    result = await bounded(player.set_skip(outro=8, relative=True))
    assert result["message"] == "OK: every episode of 白鲸记 skips its last 10 seconds"


async def test_the_skip_is_said_by_the_status(make_player, tmp_path):
    root = tmp_path / "lib"
    make_album(root, "长安十二时辰", ["第一章 巳正", "第二章 午初"], seconds=2.0)
    player = await make_player(library_paths=[root], sink=RecordingSink(speed=1.0))
    idle = await bounded(player.get_status(about="skip"))  # nothing loaded, none left off
    assert idle["message"].startswith("空闲，没有在播放") and "intro" not in idle
    await bounded(player.play_book("长安十二时辰", section=1))
    said = await bounded(player.get_status(about="skip"))
    assert said["message"] == "长安十二时辰没有跳过片头片尾"
    assert (said["intro"], said["outro"]) == (0.0, 0.0) and said["now"]["episode"] == 1
    assert "跳过" not in (await bounded(player.get_status()))["message"]
    await bounded(player.pause())
    await bounded(player.set_skip(intro=25, outro=10))
    said = await bounded(player.get_status(about="skip"))
    assert said["message"] == "长安十二时辰每一集跳过片头25秒、片尾10秒"
    assert (said["intro"], said["outro"]) == (25.0, 10.0)
    status = await bounded(player.get_status())
    assert "，每集跳过片头25秒、片尾10秒" in status["message"]
    assert (status["intro"], status["outro"]) == (25.0, 10.0)
    await bounded(player.set_skip(outro=0))
    assert (await bounded(player.get_status()))["message"].endswith("，每集跳过片头25秒")
    await bounded(player.set_skip(intro=12.5, outro=7))
    await bounded(player.stop())
    # Nothing loaded: the book left off.
    said = await bounded(player.get_status(about="skip"))
    assert said["message"] == "长安十二时辰每一集跳过片头12.5秒、片尾7秒" and "now" not in said
    player.language = "en"
    assert (await bounded(player.get_status(about="skip")))["message"] == (
        "Every episode of 长安十二时辰 skips its first 12.5 seconds and its last 7 seconds"
    )
    await bounded(player.set_skip(outro=0))
    assert (await bounded(player.get_status(about="skip")))["message"] == (
        "Every episode of 长安十二时辰 skips its first 12.5 seconds"
    )
    await bounded(player.set_skip(intro=0, outro=3))
    assert (await bounded(player.get_status(about="skip")))["message"] == (
        "Every episode of 长安十二时辰 skips its last 3 seconds"
    )
    player.language = "zh"
    assert (await bounded(player.get_status(about="skip")))["message"] == (
        "长安十二时辰每一集跳过片尾3秒"
    )
    await bounded(player.set_skip(outro=0))
    player.language = "en"
    assert (await bounded(player.get_status(about="skip")))["message"] == (
        "长安十二时辰 skips nothing at the start or end of its episodes"
    )
    await bounded(player.play_book("长安十二时辰", section=2))
    await bounded(player.set_skip(intro=0.5))
    assert (
        "skipping the first 0.5 seconds of each episode"
        in (await bounded(player.get_status()))["message"]
    )


# -- sleep ----------------------------------------------------------------------------------


async def test_sleep_at_the_end_of_this_chapter_pauses_at_its_boundary(make_player, tmp_path, moby):
    shelf(tmp_path / "lib", "白鲸记", moby)
    sink = RecordingSink(speed=6.0)
    player = await make_player(library_paths=[tmp_path / "lib"], sink=sink)
    await bounded(player.play_book("白鲸记", section=1))
    result = await bounded(player.sleep_timer(end_of_episode=True))
    assert result["message"] == "好的，这一集放完就停" and result["end_of_episode"]
    assert "这一集放完就停" in (await bounded(player.get_status()))["message"]
    await wait_for_state(player, PlayerState.PAUSED, 10)
    assert player.now.playback.frames_written == 3 * RATE  # to the sample, not mid-sentence
    assert player.now.episode.section == 2 and player.now.position == pytest.approx(0.0)
    assert not player.sleep_at_end
    await bounded(player.resume())  # the next chapter plays on from its start
    await wait_until(lambda: player.now.position > 0.3)
    assert heard(sink) == pytest.approx(chapter_freq(1), abs=10)


async def test_sleep_at_the_end_of_a_plain_episode_stops_before_the_next(
    make_player, library, sink
):
    player = await make_player(library_paths=[library])
    await bounded(player.play_book("西游记", section=1))
    await bounded(player.sleep_timer(end_of_episode=True))
    await wait_for_state(player, PlayerState.IDLE, 10)
    mark = player.store.last_bookmark()
    assert (mark.section, mark.position) == (2, 0.0)  # "continue" starts the next one
    assert (await bounded(player.resume()))["now"]["episode"] == 2


async def test_next_episode_then_sleep_at_its_end_stops_after_the_new_one(make_player, library):
    """ "Next episode, and stop after it" in one turn: the episode that ends the listening
    is the new one, heard to its end, and the one after it does not start."""
    player = await make_player(library_paths=[library], sink=RecordingSink(speed=4.0))
    await bounded(player.play_book("西游记", section=1))
    assert (await bounded(player.next_episode()))["now"]["episode"] == 2
    playback = player.now.playback
    result = await bounded(player.sleep_timer(end_of_episode=True))
    assert result["end_of_episode"] and player.sleep_at_end
    await wait_for_state(player, PlayerState.IDLE, 10)
    assert playback.frames_written == pytest.approx(2.0 * RATE, abs=0.1 * RATE)  # all of 2
    mark = player.store.last_bookmark()
    assert (mark.section, mark.position) == (3, 0.0) and player.pending is None
    assert not player.sleep_at_end
    await asyncio.sleep(0.3)
    assert player.state == PlayerState.IDLE and player.now is None


async def test_a_timer_set_on_the_last_episode_ends_with_the_book(make_player, library):
    """ "Stop after this chapter" on a book's last episode: the book ends there, and the
    next book played is not stopped after its first episode."""
    player = await make_player(library_paths=[library], sink=RecordingSink(speed=4.0))
    await bounded(player.play_book("西游记", section=-1))
    await bounded(player.sleep_timer(end_of_episode=True))
    assert player.sleep_at_end
    await wait_for_state(player, PlayerState.IDLE, 10)
    assert not player.sleep_at_end and player.sleep_deadline is None
    await bounded(player.play_book("西游记", section=1))
    await wait_until(lambda: player.now is not None and player.now.episode.section == 2, 10)
    assert player.state == PlayerState.PLAYING


async def test_next_chapter_then_sleep_at_its_end_pauses_at_that_chapters_end(
    make_player, tmp_path, moby
):
    shelf(tmp_path / "lib", "白鲸记", moby)
    sink = RecordingSink(speed=6.0)
    player = await make_player(library_paths=[tmp_path / "lib"], sink=sink)
    await bounded(player.play_book("白鲸记", section=1))
    playback = player.now.playback
    await wait_until(lambda: playback.frames_written > RATE // 2)
    assert (await bounded(player.next_episode()))["now"]["episode"] == 2
    written = playback.frames_written
    await bounded(player.sleep_timer(end_of_episode=True))
    await wait_for_state(player, PlayerState.PAUSED, 10)
    assert player.now.playback is playback  # the same file, moved within
    # chapter 2 heard to its end (to within the chunk on its way when the move came)
    assert playback.frames_written - written == pytest.approx(3.0 * RATE, abs=0.06 * RATE)
    assert player.now.episode.section == 3 and player.now.position == pytest.approx(0.0)
    assert heard(sink) == pytest.approx(chapter_freq(1), abs=10)  # the last heard: chapter 2
    assert not player.sleep_at_end


async def test_a_timer_end_fades_out_then_pauses(make_player, library):
    sink = RecordingSink(speed=1.0)
    player = await make_player(library_paths=[library], fade_seconds=0.6)
    player.sink = sink
    await bounded(player.play_book("西游记", section=1))
    await bounded(player.sleep_timer(0.005))  # 0.3 s
    await wait_for_state(player, PlayerState.PAUSED, 5)
    samples = sink.samples()[::2].astype(float)
    loud = abs(samples[: RATE // 4]).max()
    tail = abs(samples[-RATE // 10 :]).max()
    middle = abs(samples[-int(0.35 * RATE) : -int(0.25 * RATE)]).max()
    assert tail < 0.25 * loud and tail < middle < loud  # it falls, not stops
    assert player.now.position < 0.5  # resume replays what faded


async def test_the_sleep_timer_counts_the_listeners_time_at_any_speed(
    make_player, tmp_path, minute
):
    """ "一点五倍速，再定个四十分钟": forty of the listener's minutes, not forty of the book's
    (which would end the evening a third early); time paused does not count."""
    shelf(tmp_path / "lib", "一分钟", minute)
    player = await make_player(library_paths=[tmp_path / "lib"], sink=RecordingSink(speed=1.0))
    await bounded(player.play_book("一分钟"))
    await bounded(player.set_speed(2.0))
    await bounded(player.sleep_timer(2))
    assert player.sleep_deadline - time.monotonic() == pytest.approx(120, abs=0.5)
    await asyncio.sleep(1.2)
    left = player.sleep_left
    assert left == pytest.approx(120 - 1.2, abs=0.6)  # one second a second, at 2x too
    assert (await bounded(player.get_status()))["sleep_minutes"] == 2
    await bounded(player.pause())
    held = player.sleep_left
    await asyncio.sleep(1.2)
    assert player.sleep_left == pytest.approx(held, abs=0.1)  # paused: it waits


# -- volume limits ---------------------------------------------------------------------------


def test_a_bedtime_window_may_pass_midnight():
    night = bedtime_window("20:00-07:00")
    assert night == (1200, 420)
    assert in_window(night, 21 * 60) and in_window(night, 6 * 60 + 59)
    assert not in_window(night, 7 * 60) and not in_window(night, 12 * 60)
    assert in_window(bedtime_window("13:00-14:30"), 14 * 60) and bedtime_window("") is None
    for bad in ("8pm-7am", "25:00-07:00", "20:00-20:00"):
        with pytest.raises(ValueError):
            bedtime_window(bad)


async def test_the_volume_stays_within_the_child_box_limits(make_player, library):
    clock = {"now": datetime.datetime(2024, 5, 1, 12, 0)}
    player = await make_player(
        library_paths=[library], volume_percent=60, min_volume_percent=20,
        bedtime="20:00-07:00", bedtime_max_volume_percent=40, clock=lambda: clock["now"],
    )  # fmt: skip
    result = await bounded(player.set_volume(5))
    assert result == {"message": "音量最低20%，已调到20%", "volume": 20}
    assert "最小" in (await bounded(player.volume_down()))["message"]
    assert (await bounded(player.set_volume(80)))["volume"] == 80  # midday: no bedtime cap
    clock["now"] = datetime.datetime(2024, 5, 1, 21, 30)
    player._night = (float("-inf"), False)  # the once-a-second check, done now
    assert player.volume_now() == 0.4  # the book plays at most at the bedtime volume
    assert (await bounded(player.get_status(about="volume")))["volume"] == 40
    result = await bounded(player.set_volume(70))
    assert result == {"message": "现在是睡觉时间，音量最高40%，已调到40%", "volume": 40}
    assert "睡觉时间" in (await bounded(player.volume_up()))["message"]
    await bounded(player.play_book("西游记", section=1))
    assert player.now.playback.volume() == 0.4


async def test_the_status_with_nothing_loaded_says_where_the_book_was_left(make_player, library):
    """ "播到哪了" after a stop (an end-of-episode timer's, say): where it was left off, not
    only "idle" (a new user's trial)."""
    player = await make_player(library_paths=[library])
    await bounded(player.play_book("西游记", section=2))
    await bounded(player.stop())
    status = await bounded(player.get_status())
    assert status["message"].startswith("没有在播放，上次听到西游记第2集"), status["message"]
    assert status["left_off"]["title"] == "西游记" and status["left_off"]["episode"] == 2


async def test_another_book_drops_the_end_of_episode_timer(make_player, library):
    """ "Stop after this chapter", then another book: the chapter it was set for is gone,
    and the new book plays on (a new user's trial heard the other book stop); "next
    chapter" keeps it, for the chapter now playing."""
    player = await make_player(library_paths=[library], sink=RecordingSink(speed=1.0))
    await bounded(player.play_book("西游记", section=1))
    await bounded(player.sleep_timer(end_of_episode=True))
    await bounded(player.next_episode())
    assert player.sleep_at_end  # the chapter playing now ends the listening
    played = await bounded(player.play_book("Journey to the West"))
    assert not player.sleep_at_end
    assert played["message"].endswith("上一本书这一集放完就停的定时已取消"), played  # said
    status = await bounded(player.get_status("sleep"))
    assert status["message"] == MESSAGES["about_no_sleep"][0], status


async def test_time_left_leaves_out_the_skipped_end(make_player, tmp_path):
    """ "这集还有多久" with the last 8 s of every episode skipped: those are not heard, so
    they are not left (a new user's trial heard the whole rest)."""
    root = tmp_path / "lib"
    make_album(root, "长安十二时辰", ["第一章 巳正", "第二章 午初"], seconds=20.0)
    player = await make_player(library_paths=[root], sink=RecordingSink(speed=1.0))
    await bounded(player.play_book("长安十二时辰", section=1))
    await bounded(player.pause())
    whole = (await bounded(player.get_status("time_left")))["message"]
    await bounded(player.set_skip(outro=8))
    cut = (await bounded(player.get_status("time_left")))["message"]
    assert whole.startswith("这一集还剩20秒") or whole.startswith("这一集还剩19秒"), whole
    assert cut.startswith("这一集还剩12秒") or cut.startswith("这一集还剩11秒"), cut
