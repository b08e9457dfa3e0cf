"""The household's page in a real browser (Debian's chromium, driven by Playwright) on a
real `xiaoting run`: log in, see a book a voice-equivalent `xiaoting ask` started, pause it
from the page and read "paused" in `xiaoting status`, upload a three-file album and play
it, lower the maximum volume and hear a louder request held at it; screenshots at 360 px
and 1280 px are written and checked not to be blank."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_fixtures import PASSWORD, tone_mp3, write_config

pytestmark = pytest.mark.slow

CLI = [sys.executable, "-m", "device.cli"]
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _cli(config: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "--config", str(config), *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def _status(config: Path) -> dict:
    result = _cli(config, "status", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen]]:
    """`xiaoting run` with 西游记 (3 episodes) and the page on a free port; (config, page
    URL, process)."""
    for n in (1, 2, 3):
        tone_mp3(tmp_path / "library" / "西游记" / f"第{n}集.mp3", seconds=40)
    port = _free_port()
    config = write_config(tmp_path, web=f'bind = "127.0.0.1"\nport = {port}\n')
    done = _cli(config, "web", "password", stdin=PASSWORD + "\n")
    assert done.returncode == 0, done.stderr
    log = (tmp_path / "service.log").open("w")
    proc = subprocess.Popen([*CLI, "--config", str(config), "run"], cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT)  # fmt: skip
    deadline = time.monotonic() + 60
    while not (tmp_path / "run" / "control.sock").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("service did not start:\n" + (tmp_path / "service.log").read_text())
        time.sleep(0.2)
    try:
        yield config, f"http://127.0.0.1:{port}/", proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        log.close()


def _not_blank(path: Path, width: int) -> None:
    from PIL import Image

    with Image.open(path) as image:
        assert image.width == width, image.size
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, f"{path}: {len(colours or [])} colours"
    most = max(count for count, _ in colours) / (image.width * image.height)
    assert most < 0.9, f"{path}: one colour covers {most:.0%}"


async def test_the_page_in_chromium(chromium: Path, service, tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect

    config, url, proc = service
    errors: list[str] = []
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=str(chromium))
        context = await browser.new_context(viewport={"width": 360, "height": 780}, locale="zh-CN")
        context.set_default_timeout(10_000)
        page = await context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        # log in
        await page.goto(url)
        await expect(page.locator("#login-form")).to_be_visible()
        await page.fill("#password", "not-the-password")
        await page.click("#login-button")
        await expect(page.locator("#login-msg")).to_have_text("密码不对")
        errors.clear()  # the 401 of the wrong password is the browser's console error
        await page.fill("#password", PASSWORD)
        await page.click("#login-button")
        await expect(page.locator("#app")).to_be_visible()
        await expect(page.locator("#now-album")).to_have_text("没有在播放")

        # a voice-equivalent request shows on the page within a second
        asked = _cli(config, "ask", "播放西游记第二集")
        assert asked.returncode == 0, asked.stderr
        shown = time.monotonic()
        await expect(page.locator("#now-album")).to_have_text("西游记", timeout=1000)
        await expect(page.locator("#now-episode")).to_contain_text("第 2 集", timeout=1000)
        await expect(page.locator("#heard-utterance")).to_contain_text("播放西游记第二集")
        assert time.monotonic() - shown < 1.5

        # pause from the page; `xiaoting status` says paused
        await expect(page.locator("#icon-pause")).to_be_visible()
        await page.click("#playpause")
        await expect(page.locator("#icon-play")).to_be_visible()
        status = _cli(config, "status")
        assert status.returncode == 0 and "已暂停 (paused)" in status.stdout, status.stdout
        assert _status(config)["player"] == "paused"

        # screenshots of the phone and the desktop
        phone = tmp_path / "page-360.png"
        await page.screenshot(path=str(phone))
        _not_blank(phone, 360)
        await page.set_viewport_size({"width": 1280, "height": 860})
        desktop = tmp_path / "page-1280.png"
        await page.screenshot(path=str(desktop))
        _not_blank(desktop, 1280)
        await page.set_viewport_size({"width": 360, "height": 780})

        # upload a three-file album and play it
        files = [
            tone_mp3(tmp_path / "phone" / f"第{n}章 地球往事.mp3", seconds=3) for n in (1, 2, 3)
        ]
        await page.click('.tabs button[data-tab="add"]')
        await page.set_input_files("#files", [str(f) for f in files])
        await expect(page.locator("#file-list")).to_contain_text("3")
        await page.fill("#album-name", "三体")
        await page.click("#upload-button")
        await expect(page.locator("#upload-msg")).to_have_text("《三体》已加入书库，3 集")
        assert sorted(p.name for p in (tmp_path / "library" / "三体").iterdir()) == [
            f.name for f in files
        ]
        await page.click("#upload-play")
        await expect(page.locator("#now-album")).to_have_text("三体")
        state = _status(config)
        assert (state["album"], state["episode"], state["player"]) == ("三体", 1, "playing")

        # the book list knows it, with its episodes
        await page.click('.tabs button[data-tab="books"]')
        await page.fill("#search", "三体")
        await page.locator("#albums .album", has_text="三体").click()
        await expect(page.locator("#episodes li")).to_have_count(3)

        # a lower maximum volume, and a louder request held at it
        await page.click('.tabs button[data-tab="settings"]')
        await expect(page.locator("#settings-file")).to_contain_text(str(config))
        await page.eval_on_selector(
            "#set-max", "(el) => { el.value = '40'; el.dispatchEvent(new Event('input')); }"
        )
        await expect(page.locator("#set-max-out")).to_have_text("40%")
        await page.click("#settings-form button[type=submit]")
        await expect(page.locator("#settings-msg")).to_have_text("设置已保存")
        assert "max_volume_percent = 40" in config.read_text()
        louder = _cli(config, "ask", "大声点")
        assert louder.returncode == 0, louder.stderr
        assert "40%" in louder.stdout, louder.stdout
        assert _status(config)["volume_percent"] == 40
        await page.click('.tabs button[data-tab="now"]')
        await expect(page.locator("#vol-out")).to_have_text("40%")

        # the other language, by the switch
        await page.click("#lang")
        await expect(page.locator('.tabs button[data-tab="now"] b')).to_have_text("Playing")

        # what the box heard and did
        await page.click('.tabs button[data-tab="history"]')
        await expect(page.locator("#turns > li").first).to_contain_text("大声点")
        await expect(page.locator("#health")).to_contain_text("web page")
        await browser.close()
    assert errors == [], errors
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    assert time.monotonic() - started < 5  # open event streams do not hold the exit


async def test_with_no_password_the_page_says_how_to_set_one(chromium: Path, tmp_path) -> None:
    from playwright.async_api import async_playwright, expect
    from web_fixtures import start_world, stop_world

    world, serving = await start_world(tmp_path, password=None)
    try:
        async with async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path=str(chromium))
            page = await browser.new_page(viewport={"width": 360, "height": 780})
            await page.goto(world.url + "/")
            await expect(page.locator("#login-note")).to_contain_text("sudo xiaoting web password")
            await expect(page.locator("#login-form")).to_be_hidden()
            await expect(page.locator("#app")).to_be_hidden()
            await browser.close()
    finally:
        await stop_world(world, serving)
