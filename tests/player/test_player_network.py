"""Catalogs over a link that behaves like a real one: segmented bodies, stalls, drops, gzip.

Every server here is `NetServer`, which sends bodies in 1460-byte segments a few
milliseconds apart, so a client that reads only what has arrived is caught.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from player_fixtures import make_album

from player.errors import NotFoundError, PlayerError, SourceError
from player.http import Http, charset_of, mask_secrets
from player.models import SearchPage
from player.sources import Catalog, FeedSource, LibriVoxSource, LocalLibrary


def feed(title: str, items: list[dict], *, encoding: str = "UTF-8", extra: str = "") -> str:
    """An RSS 2.0 document; items: title, url, and optional number, guid, type, date."""
    parts = []
    for item in items:
        number = item.get("number")
        parts.append(
            "<item>"
            f"<title>{item['title']}</title>"
            + (f"<itunes:episode>{number}</itunes:episode>" if number else "")
            + (f"<guid>{item['guid']}</guid>" if item.get("guid") else "")
            + (f"<pubDate>{item['date']}</pubDate>" if item.get("date") else "")
            + f'<enclosure url="{item["url"]}" length="1000" '
            f'type="{item.get("type", "audio/mpeg")}"/>'
            "<description>" + "Lorem ipsum dolor sit amet. " * 8 + "</description>"
            "</item>"
        )
    return (
        f'<?xml version="1.0" encoding="{encoding}"?>'
        '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">'
        f"<channel><title>{title}</title>{extra}{''.join(parts)}</channel></rss>"
    )


def eight(prefix: str = "http://cdn.example/") -> list[dict]:
    return [{"title": f"第{i}集", "url": f"{prefix}{i}.mp3", "number": i} for i in range(1, 9)]


async def bounded(coro, limit: float = 10.0):
    return await asyncio.wait_for(coro, limit)


@pytest.fixture
async def http():
    client = Http(timeout=3.0)
    yield client
    await asyncio.wait_for(client.close(), 5)


async def test_segmented_feed_is_read_whole(net, http):
    body = feed("三体 广播剧", eight()).encode()
    assert len(body) > 2 * 1460  # several segments on the wire
    net.add("/feed.xml", body, content_type="application/rss+xml")
    source = FeedSource([net.url("/feed.xml")], http)
    found = await bounded(source.search("三体"))
    detail = await bounded(source.album(found.albums[0].id))
    assert [e.section for e in detail.episodes] == list(range(1, 9))


async def test_two_thousand_item_feed(net, http):
    items = [{"title": f"Episode {i}", "url": f"/media/{i}.mp3", "number": i}
             for i in range(1, 2001)]  # fmt: skip
    body = feed("Big Show", items).encode()
    net.add("/big.xml", body, content_type="application/rss+xml", segment=16384, gap=0.0005)
    source = FeedSource([net.url("/big.xml")], http)
    detail = await bounded(source.album(next(iter(source._ids))))
    assert len(detail.episodes) == 2000
    assert detail.episodes[-1].location == net.url("/media/2000.mp3")


async def test_charset_from_header_and_from_document(net, http):
    text = feed("西游记 评书", eight(), encoding="GBK")
    net.add("/gbk.xml", text.encode("gbk"), content_type="application/rss+xml")
    net.add("/gbk-header.xml", text.replace('encoding="GBK"', "").encode("gbk"),
            content_type="application/rss+xml; charset=gbk")  # fmt: skip
    for path in ("/gbk.xml", "/gbk-header.xml"):
        source = FeedSource([net.url(path)], http)
        found = await bounded(source.search("西游记"))
        assert [a.title for a in found.albums] == ["西游记 评书"], path
    payload = json.dumps({"books": [{"id": "7", "title": "红楼梦"}]}, ensure_ascii=False)
    net.add("/api/audiobooks/", payload.encode("gb18030"),
            content_type="application/json; charset=GB2312")  # fmt: skip
    data = await bounded(http.get_json(net.url("/api/audiobooks/")))
    assert data["books"][0]["title"] == "红楼梦"
    assert charset_of(b'<?xml version="1.0" encoding="big5"?><a/>', None) == "big5"
    assert charset_of(b"{}", "text/plain") == "utf-8"


async def test_gzip_and_deflate_bodies(net, http):
    books = [{"id": str(i), "title": f"Book {i}", "sections": []} for i in range(300)]
    payload = json.dumps({"books": books}).encode()
    for encoding in ("gzip", "deflate"):
        net.add(f"/{encoding}", payload, content_type="application/json", encoding=encoding)
        data = await bounded(http.get_json(net.url(f"/{encoding}")))
        assert len(data["books"]) == 300


async def test_too_large_is_an_error_not_a_cut(net):
    client = Http(max_body=10_000)
    try:
        net.add("/big", b"x" * 20_000)
        with pytest.raises(SourceError, match="太大"):
            await bounded(client.get_bytes(net.url("/big"), name="懒人听书"))
        net.add("/big-nolength", b"x" * 20_000, no_length=True)
        with pytest.raises(SourceError, match="太大"):
            await bounded(client.get_bytes(net.url("/big-nolength")))
        net.add("/big-gzip", b"x" * 200_000, encoding="gzip")  # 200 KB inflated from ~200 B
        with pytest.raises(SourceError, match="太大"):
            await bounded(client.get_bytes(net.url("/big-gzip")))
    finally:
        await client.close()


async def test_cut_body_names_the_source_and_is_never_cached(net, http):
    body = feed("Cut Show", eight()).encode()
    route = net.add("/cut.xml", body, content_type="application/rss+xml", drop_at=3000)
    with pytest.raises(SourceError, match=r"127\.0\.0\.1"):
        await bounded(http.get_bytes(net.url("/cut.xml")))
    route.drops = 1
    source = FeedSource([net.url("/cut.xml")], http)
    source.rest_seconds = 0.0
    found = await bounded(source.search("Cut Show"))
    assert found.albums == () and found.failed == ("127.0.0.1",)
    # The next search fetches again (nothing cut was kept) and gets all eight.
    found = await bounded(source.search("Cut Show"))
    assert found.albums[0].episode_count == 8 and not found.failed


async def test_redirect_loop_and_errors_are_named(net, http):
    net.add("/loop", redirect="/loop")
    with pytest.raises(SourceError, match="跳转"):
        await bounded(http.get_bytes(net.url("/loop"), name="懒人听书"))
    net.add("/busy", status=503, retry_after=30)
    with pytest.raises(SourceError, match="懒人听书返回错误503"):
        await bounded(http.get_bytes(net.url("/busy"), name="懒人听书"))
    net.add("/notjson", b"<html>oops</html>", content_type="text/html")
    with pytest.raises(SourceError, match="LibriVox返回的不是JSON"):
        await bounded(http.get_json(net.url("/notjson"), name="LibriVox"))


async def test_stall_after_headers_is_a_timeout_naming_the_source(net):
    client = Http(timeout=0.5)
    try:
        net.add("/stall", b"{}", stall_after_headers=30)
        started = time.monotonic()
        with pytest.raises(SourceError, match="响应太慢"):
            await bounded(client.get_json(net.url("/stall"), name="懒人听书"))
        assert time.monotonic() - started < 2
    finally:
        await client.close()


def test_secrets_are_masked_also_url_encoded():
    line = "GET http://h/api?key=a%2Fb+c&x=a/b c"
    assert mask_secrets(line, ["a/b c"]) == "GET http://h/api?key=***&x=***"


async def test_one_dead_feed_costs_only_its_timeout(net, http, tmp_path):
    net.add("/a.xml", feed("Alpha Stories", eight()).encode(), content_type="application/rss+xml")
    net.add("/b.xml", feed("Alpha Tales", eight()).encode(), content_type="application/rss+xml")
    net.add("/dead.xml", feed("Alpha Dead", eight()).encode(), stall_after_headers=60)
    urls = [net.url(p) for p in ("/a.xml", "/dead.xml", "/b.xml")]
    catalog = Catalog([FeedSource(urls, http, timeout=1.0)], source_timeout=1.25)
    started = time.monotonic()
    found = await bounded(catalog.search("Alpha"))
    elapsed = time.monotonic() - started
    assert sorted(a.title for a in found.albums) == ["Alpha Stories", "Alpha Tales"]
    assert found.failed == ("127.0.0.1",)
    assert 0.9 < elapsed < 1.5, elapsed
    assert "127.0.0.1暂时连不上" in catalog.note(found)
    # Asked again at once, the dead feed is not waited for a second time.
    started = time.monotonic()
    again = await bounded(catalog.search("Alpha"))
    assert time.monotonic() - started < 0.3 and again.failed == ("127.0.0.1",)
    assert len(again.albums) == 2


class _Dead:
    """A remote source that never answers."""

    prefix = "lrts:"
    remote = True
    label = "懒人听书"

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        await asyncio.sleep(60)
        raise AssertionError

    async def album(self, album_id: str):
        await asyncio.sleep(60)

    def known_titles(self) -> list[str]:
        return []


async def test_search_says_which_source_failed(make_player, tmp_path):
    root = tmp_path / "lib"
    make_album(root, "西游记", ["第1集"], seconds=0.3)
    player = await make_player(library_paths=[root], sources=[_Dead()], source_timeout=0.5)
    started = time.monotonic()
    text = (await bounded(player.search_album("西游记")))["message"]
    assert time.monotonic() - started < 1.0 + 0.5
    assert "西游记" in text and "懒人听书暂时连不上" in text
    started = time.monotonic()
    with pytest.raises(NotFoundError, match=r"没有找到.*懒人听书暂时连不上"):
        await bounded(player.search_album("红楼梦"))
    assert time.monotonic() - started < 0.2  # the dead source rests: no second wait
    with pytest.raises(SourceError, match="懒人听书暂时连不上"):
        await bounded(player.play_book("红楼梦"))


async def test_search_says_so_in_english(make_player, tmp_path):
    player = await make_player(sources=[_Dead()], source_timeout=0.3, language="en")
    player.library.paths = []
    with pytest.raises(NotFoundError, match=r"Nothing found.*懒人听书 unreachable"):
        await bounded(player.search_album("Dream of the Red Chamber"))


async def test_last_good_results_served_while_down(net, http):
    books = {"books": [{"id": "9", "title": "Journey to the West", "authors": [],
                        "sections": []}]}  # fmt: skip
    route = net.add("/lv/audiobooks/", json.dumps(books).encode(),
                    content_type="application/json")  # fmt: skip
    catalog = Catalog([LibriVoxSource(http, base_url=net.url("/lv"))], source_timeout=2)
    first = await bounded(catalog.search("Journey to the West"))
    assert [a.id for a in first.albums] == ["lv:9"] and not first.failed
    route.status = 503
    again = await bounded(catalog.search("Journey to the West"))
    assert [a.id for a in again.albums] == ["lv:9"]
    assert again.failed == ("LibriVox",) and again.stale == ("LibriVox",)
    assert "上次的结果" in catalog.note(again)


async def test_local_library_never_waits_for_remote(tmp_path):
    root = tmp_path / "lib"
    make_album(root, "西游记", ["第1集"], seconds=0.3)
    catalog = Catalog([LocalLibrary([root]), _Dead()], source_timeout=0.3)
    found = await bounded(catalog.search("西游记"))
    assert [a.title for a in found.albums] == ["西游记"] and found.failed == ("懒人听书",)
    with pytest.raises(SourceError):
        await bounded(Catalog([_Dead()], source_timeout=0.2).search("x"))


async def test_feed_urls_numbers_duplicates_and_entities(net, http):
    items = [
        {"title": "Ep 3: The Storm", "url": "/media/ep03.ogg", "type": "audio/ogg",
         "date": "Wed, 03 Jan 2024 08:00:00 GMT"},
        {"title": "第2集 拜师", "url": " audio/ep02.mp3 ", "guid": "g2",
         "date": "Tue, 02 Jan 2024 08:00:00 GMT"},
        {"title": "Repost of 2", "url": "http://other.example/x.mp3", "guid": "g2"},
        {"title": "Same file again", "url": "audio/ep02.mp3"},
        {"title": "Trailer", "url": "/media/trailer.mp3", "type": "",
         "date": "Sun, 31 Dec 2023 08:00:00 GMT"},
        {"title": "Bonus", "url": "/media/bonus.mp3",
         "date": "Thu, 04 Jan 2024 08:00:00 GMT"},
        {"title": "Cover art", "url": "/img/cover.jpg", "type": "image/jpeg"},
        {"title": "Video", "url": "/v/clip.mp4", "type": "video/mp4"},
        {"title": "Secrets", "url": "file:///etc/passwd"},
        {"title": "Up", "url": "../../../etc/passwd", "type": "audio/mpeg"},
        {"title": "Tom &amp;amp; Jerry", "url": "/media/tj.mp3", "number": 7},
        {"title": "2024 年终回顾", "url": "/media/review.mp3",
         "date": "Fri, 05 Jan 2024 08:00:00 GMT"},
    ]  # fmt: skip
    net.add("/shows/feed.xml", feed("A &amp; B Show", items).encode(),
            content_type="application/rss+xml")  # fmt: skip
    source = FeedSource([net.url("/shows/feed.xml")], http)
    detail = await bounded(source.album(next(iter(source._ids))))
    assert detail.album.title == "A & B Show"
    got = {e.section: (e.title, e.location) for e in detail.episodes}
    assert got[3] == ("Ep 3: The Storm", net.url("/media/ep03.ogg"))
    assert got[2] == ("第2集 拜师", net.url("/shows/audio/ep02.mp3"))
    assert got[7] == ("Tom & Jerry", net.url("/media/tj.mp3"))
    # Unnumbered ones fill the free numbers oldest first: trailer, bonus, review; "../.."
    # resolves inside the server, so it stays an http URL (never a local path).
    assert got[1][0] == "Trailer" and got[4][0] == "Bonus" and got[5][0] == "2024 年终回顾"
    assert got[6] == ("Up", net.url("/etc/passwd"))
    assert all(e.location.startswith("http://127.0.0.1") for e in detail.episodes)
    assert len(detail.episodes) == 7


def test_every_json_spec_field_is_a_documented_config_key():
    import dataclasses
    from pathlib import Path

    from device.config import JsonSourceConfig, from_dict
    from player.sources import JsonSourceSpec

    spec_fields = {f.name for f in dataclasses.fields(JsonSourceSpec)}
    config_fields = {f.name for f in dataclasses.fields(JsonSourceConfig)}
    assert spec_fields == config_fields
    example = (Path(__file__).resolve().parents[2] / "config.example.toml").read_text()
    for name in spec_fields:
        assert f"# {name} = " in example, name  # in the 懒人听书 example
    table = {name: getattr(JsonSourceConfig(), name) for name in spec_fields}
    table.update(name="lrts", search_url="http://x/s?k={keyword}", ok_codes=["0"])
    config = from_dict({"library": {"json_sources": [table]}})
    spec = JsonSourceSpec.from_any(config.library.json_sources[0])
    assert spec.search_url == "http://x/s?k={keyword}" and spec.ok_codes == ("0",)


class _Planted:
    """A remote-looking source whose episodes point at local files."""

    prefix = "pl:"
    remote = True
    label = "planted"

    def __init__(self, locations: list[str]):
        from player.models import Album, AlbumDetail, Episode

        album = Album("pl:1", "Planted", "", len(locations))
        self.detail = AlbumDetail(
            album, tuple(Episode("pl:1", i, f"ep {i}", loc) for i, loc in enumerate(locations, 1))
        )

    async def search(self, keyword: str, *, page: int = 1, page_size: int = 10) -> SearchPage:
        return SearchPage((self.detail.album,), 1, page)

    async def album(self, album_id: str):
        return self.detail

    def known_titles(self) -> list[str]:
        return ["Planted"]


async def test_local_files_only_from_library_roots(make_player, tmp_path, audio_dir):
    root = tmp_path / "lib"
    folder = make_album(root, "西游记", ["第1集"], seconds=0.3)
    outside = tmp_path / "private"
    outside.mkdir()
    secret = outside / "secret.mp3"
    secret.write_bytes((audio_dir / "tone.mp3").read_bytes())
    (folder / "第2集.mp3").symlink_to(secret)  # a symlink leaving the root
    planted = _Planted([str(secret), str(root / ".." / "private" / "secret.mp3")])
    player = await make_player(library_paths=[root], sources=[planted])
    detail = await bounded(
        player.library.album((await player.library.search("西游记")).albums[0].id)
    )
    assert [e.title for e in detail.episodes] == ["第1集"]  # the symlink is not offered
    for section in (1, 2):
        with pytest.raises(PlayerError, match="不安全"):
            await bounded(player.play_book("pl:1", section=section))
    assert player.now is None


async def test_failed_prefetch_is_in_status(make_player, net):
    net.add("/loop.mp3", redirect="/loop.mp3")
    player = await make_player()
    from player.models import Episode

    job = player.downloader.start(Episode("rss:x", 1, "x", net.url("/loop.mp3")), "Loop #1")
    with pytest.raises(PlayerError):
        await bounded(asyncio.shield(job.task))
    status = (await bounded(player.get_status()))["message"]
    assert "Loop 第1集下载失败: 下载地址一直在跳转" in status


async def test_large_library_rescans_off_the_loop(tmp_path):
    root = tmp_path / "big"
    for a in range(500):
        folder = root / f"书{a:03d}"
        folder.mkdir(parents=True)
        for n in range(1, 101):
            (folder / f"第{n}集.mp3").touch()
    library = LocalLibrary([root], rescan_interval=0.0)
    await bounded(asyncio.to_thread(library.refresh, force=True), 60)
    assert len(library.known_titles()) == 500
    detail = await bounded(library.album((await bounded(library.search("书042"))).albums[0].id))
    assert [e.section for e in detail.episodes] == list(range(1, 101))
    (root / "新书").mkdir()
    (root / "新书" / "第1集.mp3").touch()
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    ticker = asyncio.ensure_future(tick())
    try:
        await bounded(library.fresh(wait=60.0), 60)
    finally:
        ticker.cancel()
    assert "新书" in library.known_titles()
    assert ticks > 0  # the loop ran while the worker thread scanned
