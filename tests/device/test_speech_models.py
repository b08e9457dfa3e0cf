"""Real Vosk (Korean model) on espeak-ng speech, and the real piper en_US voice."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from device.asr import VoskRecogniser, phrase_list
from device.tts import PiperSynthesiser

pytestmark = pytest.mark.models

SENTENCE = "안녕하세요 음악을 재생해 주세요"
WORDS = ["안녕하세요", "음악", "재생", "해", "주세요", "정지", "다음", "이전"]


def korean_speech(tmp_path: Path, text: str) -> bytes:
    """`text` spoken by espeak-ng, resampled by sox to 16 kHz mono S16_LE."""
    if not (shutil.which("espeak-ng") and shutil.which("sox")):
        message = "espeak-ng and sox are needed to make test speech (install.sh --dev)"
        if os.environ.get("XIAOTING_REQUIRE_MODELS", "") not in ("", "0"):
            pytest.fail(message)
        pytest.skip(message)
    raw, wav16 = tmp_path / "ko.wav", tmp_path / "ko16.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-w", str(raw), text], check=True, timeout=30)
    subprocess.run(
        ["sox", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(wav16)], check=True, timeout=30
    )
    with wave.open(str(wav16)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
        return w.readframes(w.getnframes())


def recognise(rec: VoskRecogniser, pcm: bytes) -> str:
    stream = rec.stream()
    for i in range(0, len(pcm), 2048):  # 64 ms periods, as the capture delivers them
        stream.accept(pcm[i : i + 2048])
    return stream.final()


_LOADED: dict[Path, VoskRecogniser] = {}


@pytest.fixture
def vosk_ko(vosk_ko_path):
    """The Korean model, loaded once per test session (it takes seconds)."""
    if vosk_ko_path not in _LOADED:
        _LOADED[vosk_ko_path] = VoskRecogniser(vosk_ko_path)
    return _LOADED[vosk_ko_path]


def test_vosk_streams_korean_with_and_without_a_phrase_list(vosk_ko, tmp_path) -> None:
    pcm = korean_speech(tmp_path, SENTENCE)
    free = recognise(vosk_ko, pcm)
    assert free  # some Korean text, however rough espeak's voice is
    vosk_ko.set_phrases(phrase_list("ko", extra=WORDS))
    try:
        limited = recognise(vosk_ko, pcm)
    finally:
        vosk_ko.set_phrases(None)
    words = limited.split()
    assert words and set(words) <= set(WORDS)
    assert "안녕하세요" in words and "재생" in words
    expected = {"안녕하세요", "재생", "주세요"}
    assert len(expected & set(words)) >= len(expected & set(free.split()))


def test_vosk_gives_nothing_for_silence(vosk_ko) -> None:
    assert recognise(vosk_ko, bytes(16000 * 2 * 2)) == ""


def test_piper_speaks_sentence_by_sentence(piper_en_path) -> None:
    synth = PiperSynthesiser(piper_en_path)
    text = "Playing Journey to the West. Chapter one starts now. Enjoy it."
    started = time.monotonic()
    it = synth.sentences(text)
    first = next(it)
    first_at = time.monotonic() - started
    rest = list(it)
    total = time.monotonic() - started
    assert len(rest) == 2  # three sentences, three chunks
    assert first.sample_rate == synth.sample_rate == 22050
    assert 0.5 < first.seconds < 5.0
    assert first_at < total  # the first sentence was ready before the last one
    samples = np.frombuffer(first.pcm, dtype="<i2")
    assert int(np.abs(samples).max()) > 5000  # normalised speech, not silence


@pytest.fixture(scope="module", autouse=True)
def _free_models():
    """Free the Vosk model before interpreter exit (its __del__ needs the library)."""
    yield
    _LOADED.clear()
