"""Speech synthesis with piper, one sentence at a time.

`PiperSynthesiser.sentences` yields each sentence's audio as soon as it is made (piper's
`PiperVoice.synthesize` streams one `AudioChunk` per sentence), so the first sentence is
playing while the next ones are still being synthesised. `CachedSynthesiser` keeps the
audio of short answers (confirmations, errors, "没听清") by text and voice, in memory and
on disk, so a recurring answer starts at once, also after a restart.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
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
        """One `Speech` per sentence, synthesised lazily as the iterator advances; a long
        first sentence is spoken clause by clause (`first_clause`), so its first words
        start sooner (piper's time to the first sample grows with the sentence)."""
        for part in first_clause(text):
            for chunk in self.voice.synthesize(part, syn_config=self._syn_config):
                yield Speech(chunk.audio_int16_bytes, chunk.sample_rate)


_CLAUSE_MARKS = ",，、:：;；"
_SENTENCE_MARKS = ".。!！?？\n"


def first_clause(text: str, *, min_clause: int = 6, min_rest: int = 8) -> list[str]:
    """`text` as [its first clause, the rest] when the first sentence has a clause mark
    (comma, colon, semicolon; Chinese marks too) after at least `min_clause` characters
    and at least `min_rest` characters follow; else [text]. "Playing Treasure Island,
    episode 6." is synthesised in 60 ms up to the comma, 120 ms whole (en_US-joe-medium
    on a 2-core x86), and the rest is made while the first clause plays."""
    end = min((i for i, ch in enumerate(text) if ch in _SENTENCE_MARKS), default=len(text))
    for i, ch in enumerate(text[:end]):
        if ch in _CLAUSE_MARKS and i + 1 >= min_clause:
            head, rest = text[: i + 1].strip(), text[i + 1 :].strip()
            if len(rest) >= min_rest:
                return [head, rest]
            break
    return [text]


class CachedSynthesiser:
    """`inner` with the audio of answers up to `max_chars` characters kept by text and voice.

    A cached answer is yielded at once as one `Speech`; a new one streams sentence by
    sentence from `inner` as before and is kept when complete. `voice_id` names the voice
    (e.g. the model file and its length scale) so another voice never reuses the audio.
    With a `directory`, entries are also files (``<sha256>.pcm``: a 4-byte little-endian
    sample rate, then mono S16_LE), written whole under a temporary name and renamed;
    at most `max_files` are kept there (oldest removed first), `max_entries` in memory.
    """

    def __init__(
        self,
        inner: Synthesiser,
        *,
        voice_id: str,
        directory: str | Path | None = None,
        max_chars: int = 80,
        max_entries: int = 64,
        max_files: int = 256,
    ) -> None:
        self.inner = inner
        self.sample_rate = inner.sample_rate
        self.voice_id = voice_id
        self.directory = Path(directory) if directory is not None else None
        self.max_chars = max_chars
        self.max_entries = max_entries
        self.max_files = max_files
        self.hits = 0
        self._memory: OrderedDict[str, Speech] = OrderedDict()
        self._lock = threading.Lock()

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.voice_id}\0{text}".encode()).hexdigest()

    def cached(self, text: str) -> Speech | None:
        """The kept audio of `text`, or None."""
        key = self._key(text.strip())
        with self._lock:
            speech = self._memory.get(key)
            if speech is not None:
                self._memory.move_to_end(key)
                return speech
        if self.directory is None:
            return None
        path = self.directory / f"{key}.pcm"
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if len(data) < 6 or (len(data) - 4) % 2:
            path.unlink(missing_ok=True)
            return None
        speech = Speech(data[4:], int.from_bytes(data[:4], "little"))
        self._remember(key, speech)
        return speech

    def _remember(self, key: str, speech: Speech) -> None:
        with self._lock:
            self._memory[key] = speech
            self._memory.move_to_end(key)
            while len(self._memory) > self.max_entries:
                self._memory.popitem(last=False)

    def _store(self, text: str, parts: list[Speech]) -> None:
        rates = {p.sample_rate for p in parts}
        if len(rates) != 1:
            return
        speech = Speech(b"".join(p.pcm for p in parts), rates.pop())
        key = self._key(text)
        self._remember(key, speech)
        if self.directory is None:
            return
        path = self.directory / f"{key}.pcm"
        temp = path.with_suffix(".tmp")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temp.write_bytes(speech.sample_rate.to_bytes(4, "little") + speech.pcm)
            os.replace(temp, path)
            files = sorted(self.directory.glob("*.pcm"), key=lambda p: p.stat().st_mtime)
            for old in files[: max(0, len(files) - self.max_files)]:
                old.unlink(missing_ok=True)
        except OSError as err:
            _LOGGER.debug("answer audio not kept on disk: %s", err)
            temp.unlink(missing_ok=True)

    def sentences(self, text: str) -> Iterator[Speech]:
        """The kept audio of `text` at once, else `inner`'s sentences (kept when short)."""
        text = text.strip()
        speech = self.cached(text) if len(text) <= self.max_chars else None
        if speech is not None:
            self.hits += 1
            yield speech
            return
        parts: list[Speech] = []
        for part in self.inner.sentences(text):
            parts.append(part)
            yield part
        if parts and len(text) <= self.max_chars:
            self._store(text, parts)

    def prepare(self, texts: Iterable[str]) -> int:
        """Synthesise and keep `texts` not kept yet (e.g. the device's fixed phrases, at
        start in a worker thread); returns how many were made."""
        made = 0
        for text in texts:
            text = text.strip()
            if text and len(text) <= self.max_chars and self.cached(text) is None:
                for _ in self.sentences(text):
                    pass
                made += 1
        return made
