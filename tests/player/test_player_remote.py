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
