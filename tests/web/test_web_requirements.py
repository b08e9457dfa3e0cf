"""Without chromium the browser test is skipped on a laptop and fails under CI
(``XIAOTING_REQUIRE_MODELS=1``), by the mechanism the model tests use (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("required", "outcome"), [("", "1 skipped"), ("1", "1 error")])
def test_a_missing_chromium_skips_or_fails(tmp_path: Path, required: str, outcome: str) -> None:
    env = dict(os.environ, XIAOTING_CHROMIUM=str(tmp_path / "no-chromium"),
               XIAOTING_REQUIRE_MODELS=required)  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/web/test_web_browser.py::test_the_page_in_chromium", "-q",
         "-p", "no:cacheprovider", "-rs"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert outcome in result.stdout, result.stdout + result.stderr
    assert "chromium not found" in result.stdout
    assert result.returncode == (1 if required else 0)  # an error fails the run as a failure does
