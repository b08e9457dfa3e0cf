"""Facts about the hardware for ``xiaoting doctor`` and start-up checks; never raises."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from .audio_in import AlsaCapture, CaptureError
from .audio_out import AlsaPlayback, PlaybackError
from .config import Config


@dataclass(frozen=True)
class Fact:
    """One check: `ok`, a short `detail`, and extra values for the report."""

    name: str
    ok: bool
    detail: str
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return asdict(self)


def alsa_pcms() -> dict[str, list[str]]:
    """ALSA PCM names by direction (``{"playback": [...], "capture": [...]}``); empty lists
    when pyalsaaudio is missing."""
    try:
        import alsaaudio
    except ImportError:
        return {"playback": [], "capture": []}
    try:
        return {
            "playback": list(alsaaudio.pcms(alsaaudio.PCM_PLAYBACK)),
            "capture": list(alsaaudio.pcms(alsaaudio.PCM_CAPTURE)),
        }
    except Exception:
        return {"playback": [], "capture": []}


def check_capture(config: Config) -> Fact:
    """Open the configured capture device at 16 kHz mono S16_LE and read one period."""
    capture = AlsaCapture(
        config.audio.capture_device, period_frames=config.audio.period_frames, gain=1.0
    )
    try:
        capture.open()
        pcm = capture.read()
    except CaptureError as err:
        return Fact("capture", False, str(err))
    finally:
        capture.close()
    return Fact("capture", True, f"{config.audio.capture_device}: read {len(pcm) // 2} frames")


def check_playback(config: Config) -> Fact:
    """Open the configured playback device at the configured rate, stereo S16_LE."""
    output = AlsaPlayback(
        config.audio.playback_device,
        sample_rate=config.audio.playback_rate,
        channels=2,
        period_frames=config.audio.period_frames,
    )
    try:
        output.open()
    except PlaybackError as err:
        return Fact("playback", False, str(err))
    finally:
        output.close()
    return Fact(
        "playback", True, f"{config.audio.playback_device}: {config.audio.playback_rate} Hz stereo"
    )


def check_gpio(config: Config, *, pin_factory: Any = None) -> Fact:
    """Claim the push-to-talk pin with gpiozero and release it; reports the level."""
    if not config.button.gpio:
        return Fact("gpio", True, "GPIO button disabled in config")
    try:
        from gpiozero import Button
    except ImportError as err:
        return Fact("gpio", False, f"gpiozero not installed: {err}")
    factory = pin_factory
    name = config.button.pin_factory or os.environ.get("GPIOZERO_PIN_FACTORY", "") or "default"
    try:
        if factory is None and config.button.pin_factory:
            from .button import pin_factory_by_name

            factory = pin_factory_by_name(config.button.pin_factory)
        button = Button(config.button.pin, pull_up=config.button.pull_up, pin_factory=factory)
    except Exception as err:
        return Fact("gpio", False, f"GPIO{config.button.pin} unusable ({name}): {err}")
    try:
        pressed = bool(button.is_pressed)
    finally:
        button.close()
    return Fact(
        "gpio",
        True,
        f"GPIO{config.button.pin} via {name}: {'pressed' if pressed else 'released'}",
        {"pressed": pressed},
    )


def device_facts(config: Config) -> list[Fact]:
    """All hardware checks in order: playback, capture, GPIO."""
    pcms = alsa_pcms()
    facts = [check_playback(config), check_capture(config), check_gpio(config)]
    facts.insert(0, Fact("alsa", bool(pcms["playback"]), f"{len(pcms['playback'])} PCMs", pcms))
    return facts
