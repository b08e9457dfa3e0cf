"""Fixtures for the device tests: the ALSA `file`-plugin devices (see tests/conftest.py),
fakes, an App."""

from __future__ import annotations

import pytest

from device.alsa_files import SYSTEM_ALSA_CONF


@pytest.fixture
def alsa_file_devices() -> bool:
    """Skip unless ALSA's system config exists (the `file` plugin devices need it)."""
    if not SYSTEM_ALSA_CONF.exists():
        pytest.skip("no /usr/share/alsa/alsa.conf")
    pytest.importorskip("alsaaudio")
    return True
