"""`xiaoting models probe`: the measured decode rate picks the device profile's LLM, and
``--write-config`` sets it in the config without touching the rest of the file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from device.cli import LARGE_LLM, SMALL_LLM, set_config_llm

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config.example.toml"


def _xiaoting(*args: str, config: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from device.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, "--config", str(config), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "XIAOTING_CONFIG": str(config)},
    )


def _config(tmp_path: Path, models: Path) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8")
    path = tmp_path / "config.toml"
    path.write_text(text.replace('models_dir = "', f'models_dir = "{models}" #', 1))
    path.chmod(0o600)
    return path


def test_only_llm_model_changes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    shutil.copy(EXAMPLE, path)
    path.chmod(0o600)
    before = path.read_text(encoding="utf-8").splitlines()
    message = set_config_llm(path, SMALL_LLM)
    assert SMALL_LLM in message and "set" in message
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1 and LARGE_LLM in changed[0][0] and SMALL_LLM in changed[0][1]
    assert "# id from models/manifest.toml" in changed[0][1]  # the comment stays
    assert tomllib.loads(path.read_text())["llm"]["model"] == SMALL_LLM
    assert path.stat().st_mode & 0o777 == 0o600
    assert "already" in set_config_llm(path, SMALL_LLM)


def test_a_model_chosen_by_hand_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('language = "zh"\n[llm]\nmodel = "my-own-7b"\nn_ctx = 2048\n')
    message = set_config_llm(path, LARGE_LLM)
    assert "kept" in message
    assert tomllib.loads(path.read_text())["llm"] == {"model": "my-own-7b", "n_ctx": 2048}
    bare = tmp_path / "bare.toml"
    bare.write_text('language = "en"\n')
    set_config_llm(bare, SMALL_LLM)
    assert tomllib.loads(bare.read_text()) == {"language": "en", "llm": {"model": SMALL_LLM}}


def test_no_model_file_says_so_and_keeps_the_config(tmp_path: Path) -> None:
    empty = tmp_path / "models"
    empty.mkdir()
    config = _config(tmp_path, empty)
    before = config.read_text()
    result = _xiaoting("models", "probe", "--write-config", str(config), config=config)
    assert result.returncode == 1
    assert (
        "the probe cannot run" in result.stderr
        and f"keeping llm.model {LARGE_LLM}" in result.stderr
    )
    assert config.read_text() == before


@pytest.mark.models
def test_the_measured_rate_picks_and_writes_the_llm(tmp_path: Path, llm_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / llm_path.name).symlink_to(llm_path)
    config = _config(tmp_path, models)
    # A threshold no machine reaches: the 0.5B; one every machine reaches: the 1.5B.
    slow = _xiaoting(
        "models", "probe", "--threshold", "100000", "--write-config", str(config), config=config
    )
    assert slow.returncode == 0, slow.stderr
    assert "decode tokens/s" in slow.stdout and f"llm: {SMALL_LLM}" in slow.stdout
    assert f"llm.model set to {SMALL_LLM}" in slow.stdout
    assert tomllib.loads(config.read_text())["llm"]["model"] == SMALL_LLM
    fast = _xiaoting(
        "models", "probe", "--threshold", "0.001", "--write-config", str(config), config=config
    )
    assert fast.returncode == 0, fast.stderr
    assert f"llm: {LARGE_LLM}" in fast.stdout
    assert tomllib.loads(config.read_text())["llm"]["model"] == LARGE_LLM
