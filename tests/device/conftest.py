"""Fixtures for the device tests: an ALSA config with `file`-plugin devices, fakes, an App.

ALSA reads ``ALSA_CONFIG_PATH`` when it first loads its configuration, so it is set here at
import time: the system ``alsa.conf`` plus two parametrised devices that need no sound card:
``xt_cap:INFILE=<raw S16_LE file>`` (capture reads the file) and
``xt_play:OUTFILE=<path>`` (playback writes raw frames to the file), both over ``null``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ASOUNDRC = """
pcm.xt_cap {
  @args [ INFILE ]
  @args.INFILE { type string default "/dev/zero" }
  type file
  slave.pcm "null"
  file "/dev/null"
  infile $INFILE
  format "raw"
}
pcm.xt_play {
  @args [ OUTFILE ]
  @args.OUTFILE { type string default "/dev/null" }
  type file
  slave.pcm "null"
  file $OUTFILE
  format "raw"
}
"""

_SYSTEM_ALSA_CONF = Path("/usr/share/alsa/alsa.conf")
_ALSA_DIR = Path(tempfile.mkdtemp(prefix="xiaoting-alsa-"))
(_ALSA_DIR / "asoundrc").write_text(ASOUNDRC)
if _SYSTEM_ALSA_CONF.exists():
    os.environ["ALSA_CONFIG_PATH"] = f"{_SYSTEM_ALSA_CONF}:{_ALSA_DIR / 'asoundrc'}"


@pytest.fixture
def alsa_file_devices() -> bool:
    """Skip unless ALSA's system config exists (the `file` plugin devices need it)."""
    if not _SYSTEM_ALSA_CONF.exists():
        pytest.skip("no /usr/share/alsa/alsa.conf")
    pytest.importorskip("alsaaudio")
    return True
