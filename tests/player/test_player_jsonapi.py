"""The JSON source against a 懒人听书-shaped API on a real (segmenting) HTTP server."""

from __future__ import annotations

import asyncio
import json
import logging
import re

import pytest
from netserver import Route

from player.errors import NotFoundError, SourceError
from player.http import Http
from player.models import PLAY_URL_SCHEME, PlayerState
from player.sources import JsonSource, JsonSourceSpec

KEY = "k3y/with spaces&more"


class FakeApi:
    """search (2 per page), detail (20 per page, with a total), play URL per episode."""

    def __init__(self, net, albums: dict[str, tuple[str, str, int]], audio_path: str = ""):
        self.net = net
        self.albums = albums  # id -> (name, announcer, episodes)
        self.audio_path = audio_path
        net.handle("/api", self.answer)

    def answer(self, request):
        q = request.query
        if q.get("apikey") != KEY:
            return self.json({"code": 10001, "msg": "apikey无效"})
        page = int(q.get("page", 1))
        if q["type"] == "search":
            found = [(i, a) for i, a in self.albums.items() if q["keyword"] in a[0]]
            items = [{"id": i, "name": a[0], "announcer": a[1], "sections": a[2]}
                     for i, a in found[(page - 1) * 2 : page * 2]]  # fmt: skip
            return self.json({"code": 0, "data": {"list": items, "total": len(found)}})
        if q["type"] == "detail":
            album = self.albums.get(q["album_id"])
            if album is None:
                return self.json({"code": 404, "msg": "专辑不存在"})
            numbers = range((page - 1) * 20 + 1, min(album[2], page * 20) + 1)
            items = [{"id": f"{q['album_id']}-{n}", "name": f"第{n}集", "section": n,
                      "duration": "1:05"} for n in numbers]  # fmt: skip
            data = {"name": album[0], "total": album[2], "list": items}
            return self.json({"code": 0, "data": data})
        if q["type"] == "url":
            return self.json({"code": 0, "data": {"url": self.audio_path}})
        return self.json({"code": 400, "msg": "bad type"})

    @staticmethod
    def json(data) -> Route:
        return Route(body=json.dumps(data, ensure_ascii=False).encode(),
                     content_type="application/json", segment=200, gap=0.001)  # fmt: skip


def spec(net, **changes) -> JsonSourceSpec:
    api = net.url("/api")
    values = dict(
        name="lrts", label="懒人听书",
        search_url=api + "?type=search&keyword={keyword}&page={page}&apikey={api_key}",
        detail_url=api + "?type=detail&album_id={album_id}&page={page}&apikey={api_key}",
        play_url=api + "?type=url&album_id={album_id}&id={episode_id}&apikey={api_key}",
        results_path="data.list", total_path="data.total", album_id_field="id",
        album_title_field="name", album_author_field="announcer", album_count_field="sections",
        detail_title_path="data.name", episodes_path="data.list",
        detail_total_path="data.total", episode_id_field="id", episode_title_field="name",
        episode_url_field="url", episode_number_field="section",
        episode_duration_field="duration", play_url_path="data.url", api_key=KEY,
    )  # fmt: skip
    values.update(changes)
    return JsonSourceSpec(**values)


async def bounded(coro, limit: float = 10.0):
    return await asyncio.wait_for(coro, limit)


async def test_search_detail_paging_and_play_url(net, caplog):
    FakeApi(net, {"11": ("西游记 甄齐", "甄齐", 45), "12": ("西游记 少儿", "小A", 3),
                  "13": ("西游记 评书", "袁阔成", 9)}, audio_path="/audio/x.mp3")  # fmt: skip
    http = Http()
    caplog.set_level(logging.DEBUG)
    try:
        source = JsonSource(spec(net), http)
        found = await bounded(source.search("西游记", page_size=5))
        assert found.total == 3 and [a.id for a in found.albums] == ["lrts:11", "lrts:12",
                                                                      "lrts:13"]  # fmt: skip
        assert found.albums[0].author == "甄齐" and found.albums[0].source == "懒人听书"
        detail = await bounded(source.album("lrts:11"))
        assert len(detail.episodes) == 45  # three detail pages, not the first 20
        assert [e.section for e in detail.episodes] == list(range(1, 46))
        assert detail.album.title == "西游记 甄齐" and detail.episodes[0].duration == 65
        first = detail.episodes[0]
        assert first.location.startswith(PLAY_URL_SCHEME) and first.is_remote
        assert await bounded(source.play_url(first)) == net.url("/audio/x.mp3")
        with pytest.raises(NotFoundError, match="专辑不存在"):
            await bounded(source.album("lrts:99"))
    finally:
        await http.close()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for form in (KEY, "k3y%2Fwith%20spaces%26more", "k3y/with+spaces"):
        assert form not in logged


async def test_api_error_body_is_reported_and_key_masked(net, caplog):
    FakeApi(net, {"11": ("西游记", "甄齐", 2)})
    http = Http()
    try:
        source = JsonSource(spec(net, api_key="wrong-" + KEY), http)
        with pytest.raises(SourceError, match="懒人听书报错: apikey无效"):
            await bounded(source.search("西游记"))
        net.add("/down", status=500)
        broken = JsonSource(spec(net, search_url=net.url("/down?k={api_key}"),
                                 api_key="wrong-" + KEY), http)  # fmt: skip
        with pytest.raises(SourceError, match="懒人听书返回错误500"):
            await bounded(broken.search("西游记"))
    finally:
        await http.close()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "apikey无效" in logged and "wrong-k3y" not in logged and "k3y" not in logged


async def test_titles_remembered_across_restarts(make_player, net, tmp_path, audio_dir):
    FakeApi(net, {"11": ("西游记 甄齐", "甄齐", 3)}, audio_path="/audio/x.mp3")
    net.add("/audio/x.mp3", (audio_dir / "tone.mp3").read_bytes(), content_type="audio/mpeg")
    options = dict(json_sources=[spec(net, detail_title_path="")], state_dir=tmp_path / "st",
                   cache_dir=tmp_path / "cache")  # fmt: skip
    player = await make_player(**options)
    assert "西游记 甄齐" in (await bounded(player.search_album("西游记")))["message"]
    text = (await bounded(player.play_book("lrts:11", section=2)))["message"]
    assert "西游记 甄齐" in text
    await bounded(asyncio.shield(player.pending.job.task))
    for _ in range(100):
        if player.state == PlayerState.PLAYING:
            break
        await asyncio.sleep(0.02)
    assert player.state == PlayerState.PLAYING
    await bounded(player.close())
    # After a restart the detail answer carries no title: the remembered one stays.
    again = await make_player(**options)
    detail = await bounded(again.get_album_detail("lrts:11"))
    assert detail["message"].startswith("西游记 甄齐") and "lrts:11" not in detail["message"]
    assert detail["album"]["id"] == "lrts:11"
    assert "西游记 甄齐" in again.titles() and "11" not in again.titles()
    assert again.store.album_load("lrts:11").album.title == "西游记 甄齐"


async def test_episode_numbers_from_titles_then_order(net):
    items = [{"id": "a", "name": "第3集 三打白骨精", "url": "/a.mp3"},
             {"id": "b", "name": "片花", "url": "/b.mp3"},
             {"id": "c", "name": "第1集 猴王出世", "url": "/c.mp3"},
             {"id": "d", "name": "file", "url": "file:///etc/passwd"},
             {"id": "e", "name": "abs", "url": "/etc/passwd"}]  # fmt: skip
    net.add("/detail", json.dumps({"data": {"episodes": items}}).encode(),
            content_type="application/json")  # fmt: skip
    http = Http()
    try:
        source = JsonSource(JsonSourceSpec(name="j", search_url=net.url("/s"),
                                           detail_url=net.url("/detail?id={album_id}"),
                                           episode_title_field="name"), http)  # fmt: skip
        detail = await bounded(source.album("j:1"))
        got = [(e.section, e.title, e.location) for e in detail.episodes]
        assert got[0] == (1, "第1集 猴王出世", net.url("/c.mp3"))
        assert got[1][:2] == (2, "片花") and got[2][:2] == (3, "第3集 三打白骨精")
        # "file://" is refused; "/etc/passwd" is a path on the API's server, never a file here.
        assert got[3][2] == net.url("/etc/passwd") and len(got) == 4
        assert all(re.match(r"http://127\.0\.0\.1:\d+/", loc) for _s, _t, loc in got)
    finally:
        await http.close()
