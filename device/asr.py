"""Speech recognition with Vosk: streaming while the button is held, final on release.

Audio is 16 kHz mono S16_LE, as the Vosk models require. In phrase-list mode the
recogniser is limited to a grammar (a JSON list of phrases plus ``[unk]``) made of command
words, numbers and the catalog's album titles, which helps small models a lot.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from words import spoken_to_digits as normalize

_LOGGER = logging.getLogger(__name__)

UNKNOWN = "[unk]"

COMMAND_PHRASES = {
    "zh": [
        "播放", "暂停", "继续", "停止", "别放了", "下一集", "上一集", "第", "集", "章",
        "快进", "快退", "分钟", "秒", "音量", "大一点", "小一点", "现在在播什么",
        "定时", "关闭", "搜索", "有声书", "故事", "从头开始",
    ],
    "en": [
        "play", "pause", "resume", "stop", "next", "previous", "episode", "chapter",
        "forward", "back", "minutes", "seconds", "volume", "louder", "quieter",
        "what is playing", "sleep timer", "search", "book", "from the beginning",
    ],
}  # fmt: skip

NUMBERS = {
    "zh": [*"一二三四五六七八九十", "十一", "十二", "二十", "三十", "一百"],
    "en": [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "twenty", "thirty", "hundred",
    ],
}  # fmt: skip


class AsrError(Exception):
    """The Vosk model is missing or cannot be loaded."""


class RecognitionStream(Protocol):
    """One utterance being recognised."""

    def accept(self, pcm: bytes) -> str | None:
        """Feed 16 kHz mono S16_LE; returns the partial transcript when it changed."""
        ...

    def final(self) -> str:
        """The final transcript (empty when nothing was recognised)."""
        ...


class Recogniser(Protocol):
    """A speech recogniser that starts one stream per utterance."""

    def stream(self) -> RecognitionStream:
        """A new stream for one utterance."""
        ...


def phrase_list(language: str, titles: Iterable[str] = (), extra: Iterable[str] = ()) -> list[str]:
    """Command words, numbers and album `titles` for `language`, without duplicates."""
    seen: dict[str, None] = {}
    for phrase in [*COMMAND_PHRASES.get(language, []), *NUMBERS.get(language, []), *titles, *extra]:
        phrase = " ".join(phrase.split()).lower() if language == "en" else phrase.strip()
        if phrase:
            seen.setdefault(phrase, None)
    return list(seen)


def clean_transcript(text: str) -> str:
    """Drop ``[unk]`` tokens and spare spaces; Vosk separates Chinese words by spaces too."""
    words = [w for w in text.split() if w != UNKNOWN]
    return " ".join(words)


class VoskStream:
    """A `KaldiRecognizer` fed period by period (not thread-safe: one worker thread)."""

    def __init__(self, recognizer: object) -> None:
        self._rec = recognizer
        self._partial = ""
        self._finals: list[str] = []

    def accept(self, pcm: bytes) -> str | None:
        """Feed audio; a completed segment is kept, the partial returned when it changed."""
        if not pcm:
            return None
        if self._rec.AcceptWaveform(pcm):
            text = clean_transcript(json.loads(self._rec.Result()).get("text", ""))
            if text:
                self._finals.append(text)
            self._partial = ""
            return None
        partial = json.loads(self._rec.PartialResult()).get("partial", "")
        if partial != self._partial:
            self._partial = partial
            return clean_transcript(partial)
        return None

    def so_far(self) -> str:
        """The transcript up to now as `final` would write it (the completed segments and
        the current partial), without ending the utterance."""
        return normalize(" ".join([*self._finals, clean_transcript(self._partial)]).strip())

    def final(self) -> str:
        """All recognised segments of the utterance joined by a space, spoken episode
        numbers as digits (`agent.spoken_numbers`)."""
        text = clean_transcript(json.loads(self._rec.FinalResult()).get("text", ""))
        if text:
            self._finals.append(text)
        return normalize(" ".join(self._finals))


class VoskRecogniser:
    """Vosk model at `model_path` (a directory); `phrases` turns on phrase-list mode.

    Raises AsrError when the directory is missing or Vosk cannot load it. Loading takes
    seconds and memory; do it once, in a worker thread.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        sample_rate: int = 16000,
        phrases: list[str] | None = None,
    ) -> None:
        path = Path(model_path)
        if not path.is_dir():
            raise AsrError(f"Vosk model not found at {path}")
        try:
            import vosk
        except ImportError as err:
            raise AsrError(f"vosk not installed: {err}") from err
        vosk.SetLogLevel(-1)
        try:
            self.model = vosk.Model(str(path))
        except Exception as err:
            raise AsrError(f"Vosk cannot load {path}: {err}") from err
        self._vosk = vosk
        self.path = path
        self.sample_rate = sample_rate
        self._lock = threading.Lock()
        self.phrases: list[str] | None = None
        self.set_phrases(phrases)

    def set_phrases(self, phrases: list[str] | None) -> None:
        """Switch phrase-list mode on (a list) or off (None); applies to the next stream."""
        with self._lock:
            self.phrases = list(phrases) if phrases else None

    def stream(self) -> VoskStream:
        """A new recognizer for one utterance."""
        with self._lock:
            phrases = self.phrases
        if phrases:
            grammar = json.dumps([*phrases, UNKNOWN], ensure_ascii=False)
            rec = self._vosk.KaldiRecognizer(self.model, self.sample_rate, grammar)
        else:
            rec = self._vosk.KaldiRecognizer(self.model, self.sample_rate)
        return VoskStream(rec)
