"""ALSA devices over the `file` plugin, for running without a sound card (tests, benchmarks).

``xt_cap:INFILE=<raw S16_LE file>`` is a capture device that reads the file, and
``xt_play:OUTFILE=<path>`` a playback device that writes raw frames to the file; both sit on
ALSA's `null` device, so no hardware is needed. ALSA reads ``ALSA_CONFIG_PATH`` once, when it
first loads its configuration, so `install` must run before the first ALSA call of the
process.
"""

from __future__ import annotations

import os
from pathlib import Path

SYSTEM_ALSA_CONF = Path("/usr/share/alsa/alsa.conf")

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


def install(directory: str | os.PathLike[str]) -> Path | None:
    """Write the devices' config to `directory`/asoundrc and point ``ALSA_CONFIG_PATH`` at
    the system alsa.conf plus it; returns the file, or None (and changes nothing) when this
    machine has no system alsa.conf."""
    if not SYSTEM_ALSA_CONF.exists():
        return None
    path = Path(directory) / "asoundrc"
    path.write_text(ASOUNDRC)
    os.environ["ALSA_CONFIG_PATH"] = f"{SYSTEM_ALSA_CONF}:{path}"
    return path
