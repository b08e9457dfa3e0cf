"""Settings from the page written back to the config file (comments kept, checked as the
loader checks the file, applied live or flagged for a restart), per-book speed and skips,
the live event stream, history, health and sources, and the [web] config itself."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import time
from pathlib import Path

import pytest
from aiohttp import ClientSession, CookieJar
from web_fixtures import PASSWORD, T, album_id, served, start_world, stop_world

from device import config as config_mod
from device import doctor
from device.web import auth


async def test_a_lower_maximum_is_written_with_comments_kept_and_caps_at_once(world, page):
    player = world.runtime.player
    status, body = await page.request("POST", "/api/volume", {"percent": 80})
    assert status == 200 and body["data"]["volume"] == 80, body
    status, body = await page.request(
        "POST", "/api/settings", {"changes": {"audio.max_volume_percent": 40}}
    )
    assert status == 200, body
    assert body["applied"] == ["audio.max_volume_percent"] and body["restart_pending"] == []
    text = world.config_path.read_text()
    assert "# the household box" in text and "# the loudest the box plays" in text
    assert "max_volume_percent = 40" in text
    assert config_mod.load(world.config_path).audio.max_volume_percent == 40
    assert player.max_volume_percent == 40 and round(player.volume_now() * 100) == 40
    # a louder request, from the page and as a voice turn calls it, is held at 40
    status, body = await page.request("POST", "/api/volume", {"percent": 90})
    assert status == 200 and body["data"]["volume"] == 40, body
    assert "最高40%" in body["message"], body  # the cap told, in the box's language
    result = await world.runtime.registry.call("volume_up", {}, caller="agent")
    assert result.data["volume"] == 40, result
    status, body = await page.request("GET", "/api/state")
    assert body["volume"] == 40 and body["limits"]["max"] == 40


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"audio.max_volume_percent": 120}, "audio.max_volume_percent", "between 0 and 100"),
        ({"audio.max_volume_percent": "loud"}, "audio.max_volume_percent", "whole number"),
        ({"audio.min_volume_percent": 90, "audio.max_volume_percent": 50},
         "audio.min_volume_percent", "must not be above"),
        ({"audio.bedtime": "25:00-7"}, "audio.bedtime", "20:00-07:00"),
        ({"language": "fr"}, "language", "one of zh, en"),
        ({"library.feeds": "http://x"}, "library.feeds", "list"),
    ],
)  # fmt: skip
async def test_a_bad_setting_is_refused_with_the_loaders_words_and_nothing_written(
    world, page, changes, field, words
) -> None:
    before = world.config_path.read_bytes()
    status, body = await page.request("POST", "/api/settings", {"changes": changes})
    assert status == 400 and body["error"] == "bad_field", body
    assert field in body["message"] and words in body["message"], body
    assert world.config_path.read_bytes() == before
    assert world.runtime.player.max_volume_percent == 100


async def test_other_keys_and_no_config_file_are_refused(world, page) -> None:
    before = world.config_path.read_bytes()
    status, body = await page.request("POST", "/api/settings", {"changes": {"state_dir": "/"}})
    assert status == 400 and body["error"] == "not_setting", body
    world.server.running = dataclasses.replace(world.server.running, source="<dev defaults>")
    status, body = await page.request(
        "POST", "/api/settings", {"changes": {"audio.max_volume_percent": 50}}
    )
    assert status == 409 and body["error"] == "no_config" and "--config" in body["message"]
    assert world.config_path.read_bytes() == before


async def test_language_and_feeds_wait_for_a_restart_and_say_so(world, page) -> None:
    changes = {"language": "en", "library.feeds": ["http://127.0.0.1:9/feed.xml"]}
    status, body = await page.request("POST", "/api/settings", {"changes": changes})
    assert status == 200, body
    assert body["applied"] == [] and sorted(body["restart_pending"]) == ["language",
                                                                         "library.feeds"]  # fmt: skip
    status, body = await page.request("GET", "/api/settings")
    assert body["values"]["language"] == "en" and sorted(body["restart_pending"]) == [
        "language",
        "library.feeds",
    ]
    assert world.runtime.app.language == "zh"  # the running service speaks on as it started
    saved = config_mod.load(world.config_path)
    assert saved.language == "en" and saved.library.feeds == ("http://127.0.0.1:9/feed.xml",)


async def test_a_bedtime_window_now_holds_the_volume_down_at_once(world, page) -> None:
    now = datetime.datetime.now()
    start = (now - datetime.timedelta(hours=1)).strftime("%H:%M")
    end = (now + datetime.timedelta(hours=1)).strftime("%H:%M")
    changes = {"audio.bedtime": f"{start}-{end}", "audio.bedtime_max_volume_percent": 30}
    status, body = await page.request("POST", "/api/settings", {"changes": changes})
    assert status == 200, body
    status, state = await page.request("GET", "/api/state")
    assert state["limits"]["bedtime"] is True and state["limits"]["ceiling"] == 30, state
    assert state["volume"] == 30  # 80 set, 30 heard at bedtime
    status, body = await page.request("POST", "/api/settings", {"changes": {"audio.bedtime": ""}})
    assert status == 200
    status, state = await page.request("GET", "/api/state")
    assert state["limits"]["bedtime"] is False and state["volume"] == 80


async def test_per_book_speed_and_skips_are_kept_and_applied(world, page) -> None:
    xiyouji = await album_id(page, "西游记")
    status, body = await page.request("POST", "/api/play", {"album_id": xiyouji})
    assert status == 200, body
    status, body = await page.request(
        "POST", f"/api/albums/{xiyouji}/settings", {"speed": 1.5, "intro": 5, "outro": 2}
    )
    assert status == 200 and body["settings"] == {"speed": 1.5, "intro": 5.0, "outro": 2.0}
    assert world.runtime.player.speed_now() == 1.5  # the book playing took it at once
    status, body = await page.request("GET", f"/api/albums/{xiyouji}")
    assert body["settings"]["speed"] == 1.5 and len(body["episodes"]) == 3, body
    assert [e["episode"] for e in body["episodes"]] == [1, 2, 3]
    status, body = await page.request("POST", f"/api/albums/{xiyouji}/settings", {"speed": 3})
    assert status == 400 and body["error"] == "bad_field"
    status, body = await page.request("POST", "/api/speed", {"rate": 1.0})
    assert status == 200 and body["data"]["speed"] == 1.0, body


async def test_a_voice_command_reaches_the_event_stream_within_a_second(world, page) -> None:
    registry = world.runtime.registry
    dracula = await album_id(page, "Dracula")
    async with page.session.get(world.url + "/api/events") as events:
        assert events.status == 200
        assert events.headers["Content-Type"].startswith("text/event-stream")

        async def next_state() -> dict:
            while True:
                line = await events.content.readline()
                if line.startswith(b"data: "):
                    return json.loads(line[6:])

        first = await asyncio.wait_for(next_state(), T)
        assert first["player"] == "idle"
        started = time.monotonic()
        result = await registry.call("play_book", {"keyword": dracula}, caller="agent")
        assert result.ok, result
        while (state := await asyncio.wait_for(next_state(), T))["player"] != "playing":
            pass
        assert time.monotonic() - started < 1.0
        assert state["now"]["title"] == "Dracula"
        started = time.monotonic()
        await registry.call("pause", {}, caller="agent")
        while (state := await asyncio.wait_for(next_state(), T))["player"] != "paused":
            pass
        assert time.monotonic() - started < 1.0


async def test_history_health_and_sources(tmp_path: Path) -> None:
    dead = "http://127.0.0.1:9/feed.xml"  # nothing listens on port 9
    async with served(tmp_path) as (world, page):
        xiyouji = await album_id(page, "西游记")
        await page.request("POST", "/api/play", {"album_id": xiyouji, "episode": 3})
        status, body = await page.request("GET", "/api/turns?n=5")
        assert status == 200
        turn = body["turns"][0]
        assert turn["utterance"] == "[web] play_book" and turn["steps"][0]["action"] == "play_book"
        status, body = await page.request("GET", "/api/health")
        names = {f["name"]: f for f in body["findings"]}
        assert "http://" in names["web page"]["detail"] and names["library"]["level"] == "ok"
        status, body = await page.request("GET", "/api/sources")
        assert [s["prefix"] for s in body["sources"]] == ["lib:"]
        assert body["sources"][0]["error"] == ""
    # a feed that cannot be reached: its last error, in the box's words
    async with served(tmp_path / "2", library=f'feeds = ["{dead}"]\n') as (world, page):
        await world.runtime.registry.call("search_album", {"keyword": "海底两万里"})
        status, body = await page.request("GET", "/api/sources")
        feed = next(s for s in body["sources"] if s["remote"])
        assert feed["error"] and feed["error_at"], body
        assert any("\u4e00" <= ch <= "\u9fff" for ch in feed["error"]), feed  # in Chinese


def test_doctor_names_the_page_address(tmp_path: Path) -> None:
    from web_fixtures import write_config

    path = write_config(tmp_path)
    cfg = config_mod.load(path)
    finding = doctor.check_web(cfg)
    assert finding.level == "warn" and ":8080/" in finding.detail
    assert f"xiaoting --config {path} web password" in finding.detail  # as it was read
    auth.set_password(auth.password_path(cfg.path("state_dir")), PASSWORD)
    finding = doctor.check_web(cfg)
    assert finding.level == "ok" and finding.detail.startswith("http://")
    off = config_mod.load(write_config(tmp_path, web="enabled = false\n"))
    assert doctor.check_web(off).detail.startswith("off")


@pytest.mark.parametrize(
    ("web", "message"),
    [
        ('bind = "everywhere"\n', "web.bind"),
        ("port = 0\n", "web.port"),
        ('hosts = ["evil host"]\n', "web.hosts"),
        ("upload_max_mb = 0\n", "web.upload_max_mb"),
        ("colour = 1\n", "web.colour: unknown key"),
    ],
)
def test_the_web_table_is_checked_like_the_rest(tmp_path: Path, web: str, message: str) -> None:
    from web_fixtures import write_config

    with pytest.raises(config_mod.ConfigError, match=message):
        config_mod.load(write_config(tmp_path, web=web))
    cfg = config_mod.load(write_config(tmp_path))
    assert (cfg.web.enabled, cfg.web.bind, cfg.web.port) == (True, "0.0.0.0", 8080)


async def test_a_port_in_use_is_one_line_and_the_service_runs_on(tmp_path: Path, caplog) -> None:
    from device.runtime import start_web

    world, serving = await start_world(tmp_path)
    try:
        taken = dataclasses.replace(
            world.config, web=dataclasses.replace(world.config.web, bind="127.0.0.1",
                                                  port=world.server.port)
        )  # fmt: skip
        assert await start_web(taken, world.runtime) == []
        assert "web page not started" in caplog.text
        off = dataclasses.replace(taken, web=dataclasses.replace(taken.web, enabled=False))
        assert await start_web(off, world.runtime) == []  # off: nothing bound, nothing said
        async with ClientSession(cookie_jar=CookieJar(unsafe=True)) as session:
            async with session.get(world.url + "/") as response:
                assert response.status == 200
    finally:
        await stop_world(world, serving)
