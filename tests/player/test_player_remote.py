"""The tools against remote sources: RSS, LibriVox-shaped and JSON APIs over a real server;
background downloads, progress, joining, prefetch, corrupt cache files, offline replay."""

from __future__ import annotations

import asyncio

import pytest
from player_fixtures import AudioFile, rss_feed, wait_for_state, wait_until
from test_player_sources import json_spec, librivox_book

from player import DecodeError, NotFoundError, PlayerState


def bounded(coro, limit: float = 10.0):
    return asyncio.wait_for(coro, limit)


@pytest.fixture
def tones(audio_dir):
    return {
        "mp3": (audio_dir / "tone.mp3").read_bytes(),
        "long": (audio_dir / "long.mp3").read_bytes(),
        "opus": (audio_dir / "tone.opus").read_bytes(),
    }


async def test_rss_search_download_then_play(make_player, server, tones, sink):
    server.feeds["santi.xml"] = rss_feed(
        "三体 广播剧", [(f"第{i}集", server.url(f"/audio/s{i}.mp3"), i) for i in (1, 2, 3)]
    )
    for i in (1, 2, 3):
        server.audio[f"s{i}.mp3"] = AudioFile(tones["long"], delay=0.02)
    player = await make_player(feeds=[server.url("/feeds/santi.xml")])
    found = await bounded(player.search_album("三體"))
    assert found["message"] == "找到1个专辑：三体 广播剧，3集"
    assert found["albums"][0]["id"].startswith("rss:")
    text = (await bounded(player.play_book("三体", section=2)))["message"]
    assert text == "正在下载三体 广播剧第2集，稍等，下载好就播放"
    assert player.state == PlayerState.LOADING
    status = (await bounded(player.get_status()))["message"]
    assert "正在准备三体 广播剧第2集" in status and "下载三体 广播剧第2集" in status
    # A second request for the same episode joins the same download.
    (await bounded(player.play_book("三体", section=2)))["message"]
    await wait_for_state(player, PlayerState.PLAYING, 10)
    assert [n for n, _r in server.requests].count("s2.mp3") == 1
    assert player.now.cached and player.now.episode.section == 2
    # The next episode is prefetched while this one plays.
    following = player.now.detail.episode(3)
    await wait_until(lambda: player.cache.lookup(following) is not None, 10)
    # Second time round the same episode is cached: the fast path.
    await bounded(player.stop())
    text = (await bounded(player.play_book("三体", section=2)))["message"]
    assert text.startswith("正在播放三体 广播剧第2集")


async def test_librivox_through_tools_and_offline_replay(make_player, server, tones, tmp_path):
    server.books = [librivox_book(server, 101, "Journey to the West", "Chengen", 2)]
    for i in (1, 2):
        server.audio[f"lv101_{i}.mp3"] = AudioFile(tones["mp3"])
    player = await make_player(
        librivox_url=server.url("/librivox"), language="en", prefetch_next=False
    )
    text = (await bounded(player.search_album("journey")))["message"]
    assert "Journey to the West by Wu Chengen, 2 episodes" in text
    detail = (await bounded(player.get_album_detail("lv:101")))["message"]
    assert detail.endswith("2 episodes: episode 1 and episode 2")  # titles only repeat numbers
    assert "Downloading" in (await bounded(player.play_book("lv:101", section=1)))["message"]
    await wait_for_state(player, PlayerState.PLAYING)
    await bounded(player.stop())
    # The server goes away: the remembered album and cached episode still play.
    await server.close()
    text = (await bounded(player.play_book("Journey to the West", section=1)))["message"]
    assert text.startswith("Playing Journey to the West, episode 1")
    assert "Downloading" in (await bounded(player.play_book("lv:101", section=2)))["message"]
    await wait_until(lambda: player.last_error != "")
    assert player.state == PlayerState.IDLE
    assert "last error: The connection dropped" in (await bounded(player.get_status()))["message"]


async def test_json_source_through_tools(make_player, server, tones):
    server.json_albums = [
        {"albumId": 55, "albumName": "西游记|甄齐播讲", "anchor": "甄齐",
         "tracks": [{"name": "猴王出世", "src": server.url("/audio/j1.mp3")},
                    {"name": "拜师学艺", "src": server.url("/audio/j2.opus")}]},
    ]  # fmt: skip
    server.audio["j1.mp3"] = AudioFile(tones["mp3"])
    server.audio["j2.opus"] = AudioFile(tones["opus"], content_type="audio/ogg")
    player = await make_player(json_sources=[json_spec(server)])
    found = await bounded(player.search_album("西游记"))
    assert found["message"] == "找到1个专辑：西游记|甄齐播讲（甄齐），2集"
    album_id = found["albums"][0]["id"]
    assert album_id == "lrts:55"
    assert "第2集 拜师学艺" in (await bounded(player.get_album_detail(album_id)))["message"]
    (await bounded(player.play_book("西游记", section=2)))["message"]
    await wait_for_state(player, PlayerState.PLAYING)
    assert player.now.path.suffix == ".opus"


async def test_failed_download_is_reported_and_nothing_plays(make_player, server):
    server.feeds["f.xml"] = rss_feed("坏书", [("第1集", server.url("/audio/html.mp3"), 1)])
    server.audio["html.mp3"] = AudioFile(b"<!DOCTYPE html><html>captcha</html>", "text/html")
    player = await make_player(feeds=[server.url("/feeds/f.xml")])
    assert "正在下载" in (await bounded(player.play_book("坏书", section=1)))["message"]
    await wait_for_state(player, PlayerState.IDLE)
    assert "网页，不是音频" in (await bounded(player.get_status()))["message"]
    assert list(player.cache.root.rglob("*.mp3*")) == []


async def test_corrupt_cached_file_is_removed(make_player, server, tones):
    server.feeds["c.xml"] = rss_feed("好书", [("第1集", server.url("/audio/c1.mp3"), 1)])
    server.audio["c1.mp3"] = AudioFile(tones["mp3"])
    player = await make_player(feeds=[server.url("/feeds/c.xml")])
    (await bounded(player.play_book("好书", section=1)))["message"]
    await wait_for_state(player, PlayerState.PLAYING)
    await bounded(player.stop())
    path = player.cache.lookup(player.store.album_load(player.store.albums()[0].id).episodes[0])
    size = path.stat().st_size
    path.write_bytes(b"\x00" * size)  # same size, garbage inside
    with pytest.raises(DecodeError, match="坏了，已从缓存删除"):
        (await bounded(player.play_book("好书", section=1)))["message"]
    assert not path.exists()
    assert player.state == PlayerState.IDLE
    # Asked again, it is downloaded afresh.
    assert "正在下载" in (await bounded(player.play_book("好书", section=1)))["message"]
    await wait_for_state(player, PlayerState.PLAYING)


async def test_unknown_remote_album(make_player, server):
    player = await make_player(librivox_url=server.url("/librivox"))
    with pytest.raises(NotFoundError):
        (await bounded(player.get_album_detail("lv:424242")))["message"]
    with pytest.raises(NotFoundError, match="没有找到"):
        await bounded(player.search_album("nothing here"))


async def test_next_episode_still_downloading_then_sleep_at_its_end(make_player, server, tones):
    """ "Next episode, and stop after it" while the next one downloads: the timer waits for
    it and stops at its end; it is not "nothing playing"."""
    server.feeds["n.xml"] = rss_feed(
        "三体 广播剧", [(f"第{i}集", server.url(f"/audio/n{i}.mp3"), i) for i in (1, 2, 3)]
    )
    server.audio["n1.mp3"] = AudioFile(tones["long"])
    server.audio["n2.mp3"] = AudioFile(tones["long"], delay=0.1)
    server.audio["n3.mp3"] = AudioFile(tones["long"])
    player = await make_player(feeds=[server.url("/feeds/n.xml")], prefetch_next=False)
    await bounded(player.play_book("三体", section=1))
    await wait_for_state(player, PlayerState.PLAYING, 10)
    assert "正在下载" in (await bounded(player.next_episode()))["message"]
    assert player.pending is not None and player.now is None
    result = await bounded(player.sleep_timer(end_of_episode=True))
    assert result == {"message": "好的，这一集放完就停", "end_of_episode": True}
    assert "这一集放完就停" in (await bounded(player.get_status()))["message"]
    await wait_for_state(player, PlayerState.PLAYING, 10)
    assert player.now.episode.section == 2
    playback = player.now.playback
    await wait_for_state(player, PlayerState.IDLE, 10)
    assert playback.frames_written > 5.5 * 48000  # the 6 s episode heard to its end
    mark = player.store.last_bookmark()
    assert (mark.section, mark.position) == (3, 0.0) and player.pending is None
    assert "n3.mp3" not in [n for n, _r in server.requests]  # the next one never started


async def test_sleep_at_the_end_is_forgotten_when_the_episode_never_comes(
    make_player, server, tones
):
    server.feeds["m.xml"] = rss_feed(
        "坏书", [(f"第{i}集", server.url(f"/audio/m{i}.mp3"), i) for i in (1, 2)]
    )
    server.audio["m1.mp3"] = AudioFile(tones["long"], delay=0.1, status=404)
    player = await make_player(feeds=[server.url("/feeds/m.xml")], prefetch_next=False)
    await bounded(player.play_book("坏书", section=1))
    await bounded(player.sleep_timer(end_of_episode=True))
    assert player.sleep_at_end
    await wait_for_state(player, PlayerState.IDLE, 10)
    assert not player.sleep_at_end


async def test_an_episode_title_of_a_remote_book_left_off(make_player, server, tones):
    server.feeds["t.xml"] = rss_feed(
        "三体 广播剧", [("第1集 科学边界", server.url("/audio/t1.mp3"), 1),
                        ("第2集 射手和农场主", server.url("/audio/t2.mp3"), 2)],
    )  # fmt: skip
    for i in (1, 2):
        server.audio[f"t{i}.mp3"] = AudioFile(tones["mp3"])
    player = await make_player(feeds=[server.url("/feeds/t.xml")], prefetch_next=False)
    await bounded(player.play_book("三体", section=1))
    await wait_for_state(player, PlayerState.PLAYING, 10)
    await bounded(player.stop())
    del server.feeds["t.xml"]  # the feed is gone: its remembered copy names the episodes
    result = await bounded(player.play_book("射手和农场主"))
    assert result["message"] == "正在下载三体 广播剧第2集，稍等，下载好就播放"
    await wait_for_state(player, PlayerState.PLAYING, 10)
    assert player.now.episode.section == 2
