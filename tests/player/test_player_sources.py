"""Catalog sources: local folders, RSS feeds, a LibriVox-shaped API, a JSON API, combined."""

from __future__ import annotations

import asyncio
import os

import pytest
from player_fixtures import make_album, rss_feed

from player.errors import NotFoundError, SourceError
from player.http import Http
from player.models import Album, SearchPage
from player.sources import (
    Catalog,
    FeedSource,
    JsonSource,
    JsonSourceSpec,
    LibriVoxSource,
    LocalLibrary,
)


async def test_local_library_sections_from_names(library):
    lib = LocalLibrary([library])
    found = await lib.search("西游记")
    assert [a.title for a in found.albums] == ["西游记"]
    detail = await lib.album(found.albums[0].id)
    assert [(e.section, e.title) for e in detail.episodes] == [
        (1, "第一集 猴王出世"), (2, "第二集 拜师学艺"), (3, "第三集 大闹天宫"),
    ]  # fmt: skip
    assert detail.album.id.startswith("lib:")
    assert all(os.path.isabs(e.location) for e in detail.episodes)


async def test_local_library_numbers_without_digits_in_name_order(tmp_path):
    root = tmp_path / "lib"
    make_album(root, "故事", ["b 早晨", "a 晚上", "c 中午"], seconds=0.3)
    lib = LocalLibrary([root, tmp_path / "missing"])
    detail = await lib.album((await lib.search("故事")).albums[0].id)
    assert [e.title for e in detail.episodes] == ["a 晚上", "b 早晨", "c 中午"]
    assert [e.section for e in detail.episodes] == [1, 2, 3]


async def test_local_library_album_json_and_rescan(tmp_path):
    root = tmp_path / "lib"
    folder = make_album(root, "sanguo", ["第1回", "第2回"], seconds=0.3)
    (folder / "album.json").write_text('{"title": "三国演义", "author": "袁阔成"}')
    lib = LocalLibrary([root], rescan_interval=0.0)
    assert (await lib.search("三國演義")).albums[0].author == "袁阔成"
    assert (await lib.search("袁阔成")).total == 1
    make_album(root, "红楼梦", ["01"], seconds=0.3)
    assert (await lib.search("红楼梦")).total == 1
    assert "红楼梦" in lib.known_titles()


async def test_local_unknown_id(library):
    with pytest.raises(NotFoundError):
        await LocalLibrary([library]).album("lib:../../etc/passwd")


async def test_rss_feed_sections_and_bad_feeds(server):
    server.feeds["good.xml"] = rss_feed(
        "三体 广播剧",
        [("第二集", "http://x/2.mp3", 2), ("第一集", "http://x/1.mp3", 1), ("第三集", "http://x/3.mp3", 3)],
        author="729声工场",
    )  # fmt: skip
    server.feeds["bad.xml"] = b"this is not xml at all"
    server.feeds["cut.xml"] = rss_feed("Cut", [("a", "http://x/a.mp3", None)])[:120]
    http = Http()
    try:
        urls = [server.url(f"/feeds/{n}") for n in ("good.xml", "bad.xml", "cut.xml", "gone.xml")]
        source = FeedSource(urls, http)
        found = await asyncio.wait_for(source.search("三体"), 5)
        assert [a.title for a in found.albums] == ["三体 广播剧"]
        assert found.albums[0].author == "729声工场"
        detail = await asyncio.wait_for(source.album(found.albums[0].id), 5)
        assert [(e.section, e.location) for e in detail.episodes] == [
            (1, "http://x/1.mp3"), (2, "http://x/2.mp3"), (3, "http://x/3.mp3"),
        ]  # fmt: skip
        bad_id = next(i for i, u in source._ids.items() if u.endswith("bad.xml"))
        with pytest.raises(SourceError):
            await asyncio.wait_for(source.album(bad_id), 5)
        with pytest.raises(NotFoundError):
            await source.album("rss:nope")
    finally:
        await http.close()


def librivox_book(server, book_id, title, last_name, n):
    return {
        "id": str(book_id), "title": title, "description": "<p>A book</p>",
        "num_sections": str(n),
        "authors": [{"first_name": "Wu", "last_name": last_name}],
        "sections": [
            {"section_number": str(i), "title": f"Chapter {i}", "playtime": "95",
             "listen_url": server.url(f"/audio/lv{book_id}_{i}.mp3")}
            for i in range(1, n + 1)
        ],
    }  # fmt: skip


async def test_librivox_search_detail_and_not_found(server):
    server.books = [
        librivox_book(server, 101, "Journey to the West", "Cheng'en", 3),
        librivox_book(server, 102, "The Westing Game", "Raskin", 1),
    ]
    http = Http()
    try:
        source = LibriVoxSource(http, base_url=server.url("/librivox"))
        found = await asyncio.wait_for(source.search("journey"), 5)
        assert [(a.id, a.author, a.episode_count) for a in found.albums] == [
            ("lv:101", "Wu Cheng'en", 3)
        ]
        by_author = await asyncio.wait_for(source.search("raskin"), 5)
        assert [a.id for a in by_author.albums] == ["lv:102"]
        assert (await asyncio.wait_for(source.search("zzz"), 5)).albums == ()
        detail = await asyncio.wait_for(source.album("lv:101"), 5)
        assert [e.section for e in detail.episodes] == [1, 2, 3]
        assert detail.episodes[0].duration == 95.0
        assert detail.album.description == "A book"
        for bad in ("lv:999", "lv:../x", "lv:"):
            with pytest.raises(NotFoundError):
                await asyncio.wait_for(source.album(bad), 5)
    finally:
        await http.close()


async def test_librivox_prefix_article_author_and_ranking(server):
    server.books = [
        librivox_book(server, 201, "Adventures of Tom Sawyer", "Twain", 2),
        librivox_book(server, 202, "The Adventures of Sherlock Holmes", "Doyle", 2),
        librivox_book(server, 203, "Adventures of Huckleberry Finn", "Twain", 2),
        librivox_book(server, 204, "Prince and the Pauper", "Twain", 1),
        librivox_book(server, 205, "Sherlock Holmes Stories", "Doyle", 1),
    ]
    http = Http()
    try:
        source = LibriVoxSource(http, base_url=server.url("/librivox"))
        # A leading article is dropped and the title is searched as a prefix.
        found = await asyncio.wait_for(source.search("The Adventures of Tom"), 5)
        assert found.albums[0].id == "lv:201"
        found = await asyncio.wait_for(source.search("the adventures of sherlock holmes"), 5)
        assert found.albums[0].id == "lv:202"  # stored with its article
        found = await asyncio.wait_for(source.search("A Prince and the Pauper"), 5)
        assert found.albums[0].id == "lv:204"  # stored without one
        # An author's full name finds the books by last name, ranked by the matcher.
        found = await asyncio.wait_for(source.search("Mark Twain"), 5)
        assert {a.id for a in found.albums} == {"lv:201", "lv:203", "lv:204"}
        found = await asyncio.wait_for(source.search("Adventures of Huckleberry Finn"), 5)
        assert found.albums[0].id == "lv:203" and len(found.albums) == 1
    finally:
        await http.close()


JSON_SPEC = {
    "name": "lrts",
    "search_url": "{base}/json/search?type=search&keyword={keyword}&page={page}&key={api_key}",
    "detail_url": "{base}/json/detail?type=detail&album_id={album_id}&key={api_key}",
    "results_path": "data.list",
    "total_path": "data.total",
    "album_id_field": "albumId",
    "album_title_field": "albumName",
    "album_author_field": "anchor",
    "episodes_path": "data.tracks",
    "episode_title_field": "name",
    "episode_url_field": "src",
    "api_key": "secret",
}


def json_spec(server, **changes) -> JsonSourceSpec:
    spec = dict(JSON_SPEC, **changes)
    for key in ("search_url", "detail_url"):
        spec[key] = spec[key].replace("{base}", server.base)
    return JsonSourceSpec.from_any(spec)


async def test_json_source_paging_and_detail(server):
    server.json_albums = [
        {"albumId": 7 + i, "albumName": f"西游记 版本{i}", "anchor": "甄齐",
         "tracks": [{"name": "猴王出世", "src": server.url("/audio/j1.mp3")}]}
        for i in range(5)
    ]  # fmt: skip
    http = Http()
    try:
        source = JsonSource(json_spec(server), http)
        first = await asyncio.wait_for(source.search("西游记", page=1, page_size=3), 5)
        assert len(first.albums) == 3 and first.total == 5
        second = await asyncio.wait_for(source.search("西游记", page=2, page_size=3), 5)
        assert len(second.albums) == 2
        assert first.albums[0].id == "lrts:7" and first.albums[0].author == "甄齐"
        detail = await asyncio.wait_for(source.album("lrts:7"), 5)
        assert [(e.section, e.title) for e in detail.episodes] == [(1, "猴王出世")]
        with pytest.raises(NotFoundError):
            await asyncio.wait_for(source.album("lrts:../../x"), 5)
        # A wrong key: the service's error body is reported as such, not as "not found".
        keyless = JsonSource(json_spec(server, api_key="wrong"), http)
        with pytest.raises(SourceError, match="lrts报错: bad key"):
            await asyncio.wait_for(keyless.search("西游记"), 5)
        broken = JsonSource(json_spec(server, results_path="code"), http)
        with pytest.raises(SourceError):
            await asyncio.wait_for(broken.search("西游记"), 5)
    finally:
        await http.close()


class DeadSource:
    prefix = "dead:"
    remote = True

    async def search(self, keyword, *, page=1, page_size=10) -> SearchPage:
        raise SourceError("down")

    async def album(self, album_id):
        raise SourceError("down")

    def known_titles(self):
        return []


class StaticSource:
    prefix = "st:"
    remote = True

    def __init__(self, albums):
        self.albums = albums

    async def search(self, keyword, *, page=1, page_size=10) -> SearchPage:
        return SearchPage(tuple(self.albums[:page_size]), len(self.albums), page)

    async def album(self, album_id):
        raise NotFoundError("x")

    def known_titles(self):
        return [a.title for a in self.albums]


async def test_catalog_merges_ranks_and_survives_a_dead_source(library):
    remote = StaticSource([Album("st:1", "西游记少儿版"), Album("st:2", "西游记 全本")])
    catalog = Catalog([LocalLibrary([library]), DeadSource(), remote])
    found = await asyncio.wait_for(catalog.search("西游记", page_size=5), 5)
    assert found.albums[0].title == "西游记"  # exact title first
    assert {a.id for a in found.albums[1:]} == {"st:1", "st:2"}
    page2 = await asyncio.wait_for(catalog.search("西游记", page=2, page_size=2), 5)
    assert len(page2.albums) == 1
    with pytest.raises(NotFoundError):
        await catalog.album("nosuch:1")
    with pytest.raises(SourceError):
        await Catalog([DeadSource()]).search("x")
    assert "西游记少儿版" in catalog.known_titles()


def test_a_rescan_that_finds_the_same_library_says_it_once(library, caplog) -> None:
    """The journal's "local library: N albums" line at each forced rescan of an unchanged
    library was said twice at start-up (a new user's trial); a change is said again."""
    lib = LocalLibrary([library])
    with caplog.at_level("INFO", logger="player.sources.local"):
        lib.refresh(force=True)
        lib.refresh(force=True)
    said = [r for r in caplog.records if r.getMessage().startswith("local library:")]
    assert [r.levelname for r in said] == ["INFO"]  # the second, unchanged, is only debug
