"""End to end on real input: press, speak, answer, play.

The real application, built from a config: a GPIO button on gpiozero's mock pin factory
that the test presses and releases; capture through ALSA's `file` plugin reading a Korean
request spoken by espeak-ng; real Vosk (the Korean model, the only one the registries
carry) with a phrase list; the real Qwen2.5-Coder-0.5B through llama.cpp with the grammar;
a local library of generated episodes; piper (en_US voice) and the book written through
ALSA to a file. The output is compared against the synthesised answer and the decoded
episode, sample for sample (by normalised cross-correlation).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from agent.trace import read_last
from device import config as config_mod
from device.app import AppState
from device.asr import VoskRecogniser
from device.demo import encode_episode
from device.resample import convert_once
from device.runtime import build, load_synthesiser

pytestmark = [pytest.mark.models, pytest.mark.slow]

OUT_RATE = 22050  # Hz, stereo S16_LE: the playback device's format in this test
REQUEST_KO = "음악 2번 재생"  # "play 음악 (music), number 2", spoken by espeak-ng
# The phrase list (command words, numbers, album titles), as phrase-list mode builds it.
KO_PHRASES = ["음악", "노래", "일", "이", "삼", "사", "오", "번", "화", "틀어", "재생"]
EPISODE_SECONDS = 6.0
TRAILING_SILENCE = 3.0  # seconds of silence after the request in the capture file
HOLD_AFTER_SPEECH = 0.8  # seconds the button stays down after the request ends


def _encode_noise(path: Path, seed: int, seconds: float) -> None:
    """An MP3 episode of band-limited noise: unique, so its position can be found."""
    rate = 44100
    noise = np.random.default_rng(seed).standard_normal(int(rate * seconds))
    noise = np.convolve(noise, np.ones(4) / 4, mode="same")  # softer top end, kinder to MP3
    encode_episode((noise / np.abs(noise).max() * 12000).astype("<i2").tobytes(), rate, path)


def _decode(path: Path, rate: int) -> np.ndarray:
    """Decode like the player does: to `rate` Hz stereo S16; returns the left channel."""
    import av

    chunks = []
    with av.open(str(path)) as container:
        resampler = av.AudioResampler(format="s16", layout="stereo", rate=rate)
        for frame in container.decode(audio=0):
            for out in resampler.resample(frame):
                chunks.append(out.to_ndarray().reshape(-1, 2)[:, 0])
        for out in resampler.resample(None):
            chunks.append(out.to_ndarray().reshape(-1, 2)[:, 0])
    return np.concatenate(chunks).astype(np.float64)


def _find(haystack: np.ndarray, needle: np.ndarray) -> tuple[int, float]:
    """(offset, normalised correlation) of the best match of `needle` in `haystack`."""
    n = len(needle)
    if len(haystack) < n:
        return -1, 0.0
    size = 1 << int(np.ceil(np.log2(len(haystack) + n)))
    corr = np.fft.irfft(np.fft.rfft(haystack, size) * np.conj(np.fft.rfft(needle, size)), size)
    corr = corr[: len(haystack) - n + 1]
    energy = np.convolve(haystack**2, np.ones(n), mode="valid")
    score = corr / (np.sqrt(energy * np.sum(needle**2)) + 1e-9)
    best = int(np.argmax(score))
    return best, float(score[best])


class RecordingSynthesiser:
    """The real piper voice, keeping every sentence it made (to find it in the output)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.sample_rate = inner.sample_rate
        self.spoken = []

    def sentences(self, text: str):
        for speech in self.inner.sentences(text):
            self.spoken.append(speech)
            yield speech


@pytest.fixture
def korean_request(tmp_path: Path) -> Path:
    """The request as raw 16 kHz mono S16_LE: 0.3 s silence, speech, 3 s silence.

    ALSA's `file` plugin returns noise once its input file is exhausted, so the file is
    longer than the button is held (see `HOLD_AFTER_SPEECH`)."""
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            pytest.fail(
                f"{tool} is needed to make the spoken request (install.sh --dev installs it)"
            )
    wav = tmp_path / "request.wav"
    raw = tmp_path / "request.raw"
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "150", "-w", str(wav), REQUEST_KO], check=True)
    subprocess.run(
        ["sox", str(wav), "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw",
         str(raw), "pad", "0.3", str(TRAILING_SILENCE)],
        check=True,
    )  # fmt: skip
    return raw


async def test_press_speak_answer_play(
    tmp_path: Path, korean_request: Path, llm_path: Path, vosk_ko_path: Path, piper_en_path: Path
) -> None:
    library = tmp_path / "library"
    album = library / "음악"
    album.mkdir(parents=True)
    for n in (1, 2, 3):
        _encode_noise(album / f"{n:02d} 음악 {n}화.mp3", seed=n, seconds=EPISODE_SECONDS)
    out_raw = tmp_path / "speaker.raw"
    models_dir = llm_path.parent
    cfg = config_mod.from_dict(
        {
            "language": "en",
            "state_dir": str(tmp_path / "state"),
            "cache_dir": str(tmp_path / "cache"),
            "models_dir": str(models_dir),
            "runtime_dir": str(tmp_path / "run"),
            "audio": {
                "capture_device": f"xt_cap:INFILE={korean_request}",
                "playback_device": f"xt_play:OUTFILE={out_raw}",
                "playback_rate": OUT_RATE,
                "period_frames": 512,
                "volume_percent": 100,
                "duck_volume": 0.0,
            },
            "button": {"gpio": True, "pin": 17, "pin_factory": "mock", "keyboard": False},
            "llm": {"model": llm_path.stem, "policy": "local", "n_ctx": 4096},
            "tts": {"voice_en": piper_en_path.stem},
            "library": {"paths": [str(library)]},
        },
        "<e2e>",
    )
    synthesiser = RecordingSynthesiser(load_synthesiser(cfg))
    recogniser = VoskRecogniser(vosk_ko_path, phrases=KO_PHRASES)
    rt = await asyncio.wait_for(build(cfg, recogniser=recogniser, synthesiser=synthesiser), 120)
    app = rt.app
    runner = asyncio.create_task(rt.serve())
    try:
        await asyncio.wait_for(app.wait_state(AppState.IDLE), 30)
        pin = app.buttons["gpio"].button.pin
        pin.drive_low()  # press (pull-up: pressed = low)
        await asyncio.wait_for(app.wait_state(AppState.LISTENING), 5)
        # Hold while the request is "spoken" into the microphone (16 kHz mono S16_LE).
        spoken = korean_request.stat().st_size / 32000 - TRAILING_SILENCE
        await asyncio.sleep(spoken + HOLD_AFTER_SPEECH)
        pin.drive_high()  # release
        await asyncio.wait_for(app.wait_state(AppState.THINKING), 10)
        await asyncio.wait_for(app.wait_state(AppState.SPEAKING), 180)
        await asyncio.wait_for(app.wait_state(AppState.IDLE), 60)
        await asyncio.sleep(2.0)  # the book plays on after the answer
        player_state = str(app.player.state)
    finally:
        app.request_stop("test done")
        await asyncio.wait_for(runner, 15)

    # The transcript: Vosk's words, spoken numbers as digits.
    assert app.last_heard is not None
    assert app.last_heard.transcript == REQUEST_KO

    # The trace: play_book for the album and section, then the answer.
    turns = read_last(cfg.path("state_dir"), 5)
    assert len(turns) == 1, turns
    turn = turns[0]
    calls = [(s["action"], s.get("arguments", {})) for s in turn["steps"] if s.get("action")]
    played = any(
        name == "play_book" and "음악" in args.get("keyword", "") and args.get("section") == 2
        for name, args in calls
    )
    assert played, (calls, turn["answer"])
    # The answer: a Final Answer step, or (playback tools are return-direct) the observation
    # of the last action.
    last = turn["steps"][-1]
    spoken = last.get("answer")
    if spoken is None and last.get("observation"):
        spoken = json.loads(last["observation"]).get("message")  # a structured result
    assert turn["answer"] and turn["answer"] == spoken, (turn["answer"], last)
    assert player_state == "playing"

    # The speaker: the spoken answer, then episode 2's audio, held while speaking.
    out = np.frombuffer(out_raw.read_bytes(), dtype="<i2").reshape(-1, 2)[:, 0].astype(np.float64)
    assert len(out) > OUT_RATE, "nothing was written to the speaker"
    voice = b"".join(convert_once(s.pcm, s.sample_rate, 1, OUT_RATE, 2) for s in synthesiser.spoken)
    voice = np.frombuffer(voice, dtype="<i2").reshape(-1, 2)[:, 0].astype(np.float64)
    assert len(voice) > OUT_RATE // 2, "no answer was synthesised"
    voice_at, voice_score = _find(out, voice[: OUT_RATE // 2])
    assert voice_score > 0.95, f"spoken answer not found in the output ({voice_score:.2f})"
    voice_end = voice_at + len(voice)

    source = _decode(album / "02 음악 2화.mp3", OUT_RATE)
    window = OUT_RATE // 4
    after = out[voice_end + window : voice_end + 2 * window]
    resumed_at, resumed_score = _find(source, after)
    assert resumed_score > 0.95, f"episode 2 not playing after the answer ({resumed_score:.2f})"
    for other in (1, 3):  # and it is not another episode
        _, score = _find(_decode(album / f"{other:02d} 음악 {other}화.mp3", OUT_RATE), after)
        assert score < 0.5
    # Held, not lost: what played before the answer plus what follows it is contiguous.
    start_at, start_score = _find(out[:voice_at] if voice_at > window else out, source[:window])
    if start_score > 0.95 and start_at < voice_at:  # the book started before the answer
        played_before = voice_at - start_at
        assert abs((resumed_at - window) - played_before) < 2 * 512, (
            played_before,
            resumed_at,
        )
    else:  # the book started only after the answer, from its beginning
        assert resumed_at < 3 * window
