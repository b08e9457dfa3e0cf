"""Errors raised by the player; each carries a short speakable message for the agent.

`PlayerError` is the base class. A tool raises a subclass, and the agent turns the
exception's text into an observation, so the message is a sentence a person can hear
("没有找到“西游记”的第9999集"), never a traceback.
"""

from __future__ import annotations


class PlayerError(Exception):
    """Base class of every error the player raises; `str(error)` is speakable."""


class NotFoundError(PlayerError):
    """An album, an episode or a search result does not exist."""


class BadInputError(PlayerError):
    """A tool argument is out of range or malformed (section 0, volume 150, ...)."""


class SourceError(PlayerError):
    """A catalog source failed: network error, bad JSON, a feed that is not XML."""


class DownloadError(PlayerError):
    """A download failed: HTTP error, HTML instead of audio, disk full, wrong size."""


class DecodeError(PlayerError):
    """An audio file cannot be opened or decoded by PyAV (corrupt, empty, not audio)."""


class InterruptedDownloadError(DownloadError):
    """The network went away mid-download; the partial file is kept for a Range resume."""


class SinkError(PlayerError):
    """Writing PCM to the audio output failed (the file itself may be fine)."""
