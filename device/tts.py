"""Speech synthesis with piper, one sentence at a time.

`PiperSynthesiser.sentences` yields each sentence's audio as soon as it is made (piper's
`PiperVoice.synthesize` streams one `AudioChunk` per sentence), so the first sentence is
playing while the next ones are still being synthesised.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

_LOGGER = logging.getLogger(__name__)


class TtsError(Exception):
    """The piper voice is missing or cannot be loaded."""


@dataclass(frozen=True)
class Speech:
    """One synthesised sentence: mono S16_LE `pcm` at `sample_rate` Hz."""

    pcm: bytes
    sample_rate: int

    @property
    def seconds(self) -> float:
        """Duration in seconds."""
        return len(self.pcm) / 2 / self.sample_rate


class Synthesiser(Protocol):
    """Text to speech, sentence by sentence (blocking; run in a worker thread)."""

    sample_rate: int

    def sentences(self, text: str) -> Iterator[Speech]:
        """Yield one `Speech` per sentence of `text`."""
        ...


class PiperSynthesiser:
    """A piper voice loaded from `model_path` (.onnx with its .onnx.json beside it).

    `length_scale` > 1 speaks slower. Raises TtsError when the files are missing or the
    voice cannot be loaded.
    """

    def __init__(self, model_path: str | Path, *, length_scale: float = 1.0) -> None:
        path = Path(model_path)
        if not path.is_file():
            raise TtsError(f"piper voice not found at {path}")
        if not Path(f"{path}.json").is_file():
            raise TtsError(f"piper voice {path.name} has no {path.name}.json beside it")
        try:
            from piper import PiperVoice, SynthesisConfig
        except ImportError as err:
            raise TtsError(f"piper-tts not installed: {err}") from err
        try:
            self.voice = PiperVoice.load(path)
        except Exception as err:
            raise TtsError(f"piper cannot load {path}: {err}") from err
        self.path = path
        self.sample_rate = int(self.voice.config.sample_rate)
        self._syn_config = SynthesisConfig(length_scale=length_scale)

    def sentences(self, text: str) -> Iterator[Speech]:
        """One `Speech` per sentence, synthesised lazily as the iterator advances."""
        for chunk in self.voice.synthesize(text, syn_config=self._syn_config):
            yield Speech(chunk.audio_int16_bytes, chunk.sample_rate)
