"""Every `xiaoting` command line README.md shows parses, and runs without a traceback or a
silent no-op, against a temporary config and state. Commands for a running service go to a
stand-in: the real Runtime (real player on a generated library, real control socket) with a
scripted agent; `models fetch` of a profile the registries do not carry records its choice
instead of downloading; `run`, `demo` and `mcp` (which serve until stopped, or load the
language model) are parsed only. The list comes from README.md, so the README cannot drift."""

from __future__ import annotations

import asyncio
import io
import re
import shlex
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
sys.path.insert(0, str(ROOT / "tests" / "device"))

PARSE_ONLY = {"run", "demo", "mcp"}

pytestmark = pytest.mark.usefixtures("restore_logging")


def readme_commands() -> list[str]:
    """Every `xiaoting ...` command in README.md (code blocks and inline code)."""
    text = README.read_text(encoding="utf-8")
    found: list[str] = []
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    for block in blocks:
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line)
            for part in line.split("&&"):
                match = re.search(r"(?:^|sudo\s+|bin/)xiaoting (.+)$", part.strip())
                if match and "install.sh" not in part:
                    found.append(match.group(1).strip())
    for inline in re.findall(r"`([^`\n]*\bxiaoting [^`\n]*)`", text):
        for part in inline.split("&&"):
            match = re.search(r"(?:^|sudo\s+|bin/)xiaoting (.+)$", part.strip())
            if match and "install.sh" not in part and "-u xiaoting" not in part:
                found.append(match.group(1).strip())
    return list(dict.fromkeys(found))


COMMANDS = readme_commands()


def test_the_readme_shows_the_commands_people_use() -> None:
    firsts = {shlex.split(c)[0] for c in COMMANDS}
    assert {"demo", "ask", "status", "tool", "trace", "doctor", "models", "library"} <= firsts
    assert "library add ~/西游记" in COMMANDS
    assert any(c.startswith("models fetch --force") for c in COMMANDS)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A config, a library, an album folder to add, and a stand-in service."""
    from device_fakes import FakeAgent, FakeCapture, RecordingOutput

    from device import config as config_mod
    from device import demo
    from device.runtime import build

    tmp = tmp_path_factory.mktemp("readme")
    library = tmp / "library"
    home = tmp / "home"
    tone = (np.sin(np.arange(16000) / 5) * 8000).astype("<i2").tobytes()
    for folder, names in (
        (library / "三体", ("01.mp3", "02.mp3")),
        (home / "西游记", ("第01集.mp3",)),
    ):
        folder.mkdir(parents=True)
        for name in names:
            demo.encode_episode(tone, 16000, folder / name)
    config = tmp / "config.toml"
    config.write_text(
        f'language = "zh"\nlog_level = "WARNING"\nstate_dir = "{tmp / "state"}"\n'
        f'cache_dir = "{tmp / "cache"}"\nmodels_dir = "{tmp / "models"}"\n'
        f'runtime_dir = "{tmp / "run"}"\n[audio]\nplayback_device = "null"\n'
        f'[button]\ngpio = false\nkeyboard = false\n[library]\npaths = ["{library}"]\n'
    )
    cfg = config_mod.load(config)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict = {}

    async def serve() -> None:
        rt = await build(
            cfg,
            agent=FakeAgent("正在播放三体。"),
            output=RecordingOutput(),
            capture=FakeCapture(),
            recogniser=None,
            synthesiser=None,
        )
        await rt.start_control()
        holder["rt"] = rt
        task = asyncio.create_task(rt.serve())
        await rt.app.wait_state("idle")
        ready.set()
        await task

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(30), "the stand-in service did not start"
    yield {"config": config, "home": home, "tmp": tmp}
    loop.call_soon_threadsafe(holder["rt"].app.request_stop, "test done")
    thread.join(15)


def _argv(command: str, world: dict) -> list[str]:
    words = shlex.split(command.replace("~/", f"{world['home']}/"))
    words = ["en_US-joe-medium" if w == "ID" else w for w in words]
    return [*words, "--config", str(world["config"])]


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(command: str, world, capsys, monkeypatch) -> None:
    from device import cli
    from device import model_files as models

    argv = _argv(command, world)
    args = cli.parse_args(argv)  # exits 2 on a command line the parser does not take
    if args.command in PARSE_ONLY:
        return
    fetched: list[list[str]] = []

    async def stand_in_fetch(self, chosen, *, force=False):  # no downloads in the tests
        fetched.append([m.id for m in chosen])
        return models.FetchReport({f.path: "fetched" for m in chosen for f in m.files})

    monkeypatch.setattr(models.ModelStore, "fetch", stand_in_fetch)
    if args.command == "web":  # the new password comes on standard input, not a terminal
        monkeypatch.setattr("sys.stdin", io.StringIO("a-readme-password\n"))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    assert (out + err).strip(), f"{command}: printed nothing"
    assert "unrecognized arguments" not in err
    allowed = {0}
    if args.command == "models" and args.action == "verify":
        allowed = {1}  # the temporary models dir is empty: it must say which files are missing
        assert "FAIL" in out
    if args.command == "doctor":
        allowed = {0, 1}  # no language model in the temporary models dir
        assert "checks:" in out
    assert code in allowed, (command, code, out, err)
    if args.command == "models" and args.action == "fetch":
        assert fetched and all(fetched)


def test_every_command_the_code_prints_parses() -> None:
    """The fixes `doctor` and `models verify` print (`xiaoting models fetch --force ID` ...)
    are command lines the parser takes, with a real model id in place of the placeholder."""
    from device import cli

    printed = []
    for path in (ROOT / "device").glob("*.py"):
        printed += re.findall(r"`xiaoting ([^`]+)`", path.read_text(encoding="utf-8"))
    assert any("models fetch --force" in c for c in printed)
    for command in printed:
        command = re.sub(r"\{[^}]*\}|\bID\b", "en_US-joe-medium", command)
        if len(command.split()) < 2:
            continue  # a docstring naming a command ("`xiaoting doctor`"), not a line to run
        cli.parse_args(shlex.split(command))
