"""`xiaoting demo`: a small library read by the installed voice, then a few real turns.

Needs no microphone, speaker or GPIO. It writes a public-domain text, read by the piper
voice of the configured language, as episodes (MP3 and Ogg Opus, encoded with PyAV) into
the first library folder; then it starts the real App in this process and sends a few
requests — through Vosk from synthesised speech when a Vosk model for the language is
installed, else as text — printing every ReAct step with its timings. Audio goes to the
sound card, or to a WAV file it names.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from .commands import choose_output, local_app

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoBook:
    """An album of the demo library: folder name, and (episode title, text) per episode."""

    album: str
    episodes: tuple[tuple[str, str], ...]


# Public-domain texts: Aesop's Fables (G. F. Townsend's translation, 1867) and the opening
# of Journey to the West (吴承恩, 16th century).
BOOKS = {
    "en": DemoBook(
        "Aesop's Fables",
        (
            (
                "The Fox and the Grapes",
                "A famished fox saw some clusters of ripe black grapes hanging from a trellised "
                "vine. She resorted to all her tricks to get at them, but wearied herself in "
                "vain, for she could not reach them. At last she turned away, hiding her "
                "disappointment and saying: The grapes are sour, and not ripe as I thought.",
            ),
            (
                "The Hare and the Tortoise",
                "A hare one day ridiculed the short feet and slow pace of the tortoise, who "
                "replied, laughing: Though you be swift as the wind, I will beat you in a race. "
                "The hare, believing her assertion to be simply impossible, assented to the "
                "proposal. The tortoise never for a moment stopped, but went on with a slow but "
                "steady pace straight to the end of the course. Slow but steady wins the race.",
            ),
            (
                "The Lion and the Mouse",
                "A lion was awakened from sleep by a mouse running over his face. Rising up "
                "angrily, he caught him and was about to kill him, when the mouse piteously "
                "entreated, saying: If you would only spare my life, I would be sure to repay "
                "your kindness. The lion laughed and let him go. Little friends may prove "
                "great friends.",
            ),
        ),
    ),
    "zh": DemoBook(
        "西游记",
        (
            (
                "第一回 灵根育孕源流出",
                "诗曰：混沌未分天地乱，茫茫渺渺无人见。自从盘古破鸿蒙，开辟从兹清浊辨。"
                "覆载群生仰至仁，发明万物皆成善。欲知造化会元功，须看西游释厄传。",
            ),
            (
                "第二回 悟彻菩提真妙理",
                "话表美猴王得了姓名，怡然踊跃，对菩提前作礼启谢。那祖师即命大众引孙悟空出二门外，"
                "教他洒扫应对，进退周旋之节。",
            ),
            (
                "第三回 四海千山皆拱伏",
                "却说美猴王荣归故里，自斩了混世魔王，夺了一口大刀，逐日操演武艺，"
                "教小猴砍竹为标，削木为刀，治旗幡，打哨子，一进一退，安营下寨。",
            ),
        ),
    ),
}

TURNS = {
    "en": [
        "play Aesop's Fables episode 2",
        "what is playing now",
        "pause",
        "resume",
        "stop",
    ],
    "zh": ["帮我播放西游记第2集", "现在在播什么", "暂停", "继续", "别放了"],
}
# Seconds the book plays after each turn, so the output holds some of it.
LISTEN_SECONDS = 3.0
STAMP_FILE = ".xiaoting-demo.json"


def _voice_path(config) -> Path | None:
    name = config.tts_voice
    path = config.path("models_dir") / (name if name.endswith(".onnx") else f"{name}.onnx")
    return path if path.is_file() else None


def encode_episode(pcm: bytes, sample_rate: int, path: Path) -> None:
    """Encode mono S16_LE `pcm` at `sample_rate` Hz to `path`, atomically.

    The suffix picks the format: ``.mp3`` (MP3, 44.1 kHz) or ``.opus`` (Ogg Opus, 48 kHz).
    """
    import av
    import numpy as np

    codec, rate, container_format = {
        ".mp3": ("libmp3lame", 44100, "mp3"),
        ".opus": ("libopus", 48000, "ogg"),
    }[path.suffix]
    tmp = path.with_name(f".{path.name}.partial")
    with av.open(str(tmp), "w", format=container_format) as out:
        stream = out.add_stream(codec, rate=rate)
        stream.layout = "mono"
        resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=rate)
        samples = np.frombuffer(pcm, dtype="<i2").reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = sample_rate
        for chunk in resampler.resample(frame) + resampler.resample(None):
            for packet in stream.encode(chunk):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    os.replace(tmp, path)


def make_library(config, *, synthesiser=None) -> Path:
    """Write the demo album for the configured language; returns its folder.

    Episodes already written from the same text are kept. Without a voice the episodes are
    tones, and the log says so. Raises OSError when the library folder cannot be written.
    """
    book = BOOKS.get(config.language, BOOKS["en"])
    folder = Path(config.library.paths[0]).expanduser() / book.album
    folder.mkdir(parents=True, exist_ok=True)
    # One hidden file remembers which text (and voice) each episode was made from.
    stamp_path = folder / STAMP_FILE
    try:
        stamps = json.loads(stamp_path.read_text())
    except (OSError, ValueError):
        stamps = {}
    voice = str(getattr(synthesiser, "path", "tones"))
    for number, (title, text) in enumerate(book.episodes, start=1):
        suffix = ".opus" if number == len(book.episodes) else ".mp3"
        digest = hashlib.sha256(f"{voice}\n{title}\n{text}".encode()).hexdigest()[:16]
        path = folder / f"{number:02d} {title}{suffix}"
        if path.exists() and stamps.get(path.name) == digest:
            continue
        started = time.perf_counter()
        if synthesiser is not None:
            speech = list(synthesiser.sentences(f"{title}. {text}"))
            pcm = b"".join(s.pcm for s in speech)
            rate = speech[0].sample_rate if speech else 22050
        else:
            import numpy as np

            rate = 22050
            t = np.arange(rate * 8) / rate
            pcm = (np.sin(2 * np.pi * (220 + 110 * number) * t) * 8000).astype("<i2").tobytes()
        encode_episode(pcm, rate, path)
        stamps[path.name] = digest
        tmp = stamp_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(stamps, ensure_ascii=False, indent=1))
        os.replace(tmp, stamp_path)
        _LOGGER.info(
            "demo episode %s: %.1f s of audio, made in %.1f s",
            path.name,
            len(pcm) / 2 / rate,
            time.perf_counter() - started,
        )
    return folder


def _transcribe(synthesiser, recogniser, text: str) -> str:
    """Speak `text` with piper, resample to 16 kHz mono (as Vosk requires), recognise it."""
    from .resample import convert_once

    stream = recogniser.stream()
    for speech in synthesiser.sentences(text):
        pcm = convert_once(speech.pcm, speech.sample_rate, 1, 16000, 1)
        for i in range(0, len(pcm), 3200):
            stream.accept(pcm[i : i + 3200])
    return stream.final()


async def run(config, *, out: Path | None = None, turns: list[str] | None = None) -> int:
    """Make the library, run the turns, print steps and timings; 0 when every turn answered."""
    from .runtime import load_recogniser, load_synthesiser, vosk_model_path

    voice = _voice_path(config)
    synthesiser = await asyncio.to_thread(load_synthesiser, config) if voice else None
    if synthesiser is None:
        print(f"no piper voice {config.tts_voice!r} installed: episodes are tones, answers silent")
    started = time.perf_counter()
    print("making the demo library (the voice reads three episodes) ...", flush=True)
    folder = await asyncio.to_thread(make_library, config, synthesiser=synthesiser)
    print(f"demo library: {folder} ({time.perf_counter() - started:.1f} s)")
    recogniser = None
    if synthesiser is not None and vosk_model_path(config).is_dir():
        recogniser = await asyncio.to_thread(load_recogniser, config)
    if recogniser is not None:
        print(f"requests go in as speech: piper reads them, Vosk ({config.asr_model}) hears them")
    else:
        print(
            f"requests go in as text: no Vosk model for language {config.language!r} "
            f"({config.asr_model} is not in {config.models_dir})"
        )

    output = choose_output(config, out, fallback="demo.wav")
    print(f"loading the language model ({config.llm.model}) and caching its prompt ...", flush=True)
    started = time.perf_counter()
    requests = turns or TURNS.get(config.language, TURNS["en"])
    answered = 0
    timings: list[tuple[str, float, str]] = []
    async with local_app(config, output=output, warm=True) as rt:
        print(f"ready in {time.perf_counter() - started:.1f} s")
        for request in requests:
            print(f"\n> {request}")
            if recogniser is not None:
                started = time.perf_counter()
                heard = await asyncio.to_thread(_transcribe, synthesiser, recogniser, request)
                print(f"  heard: {heard!r} ({(time.perf_counter() - started) * 1000:.0f} ms)")
                request = heard or request
            started = time.perf_counter()
            reply = await rt.app.ask(request)
            elapsed = time.perf_counter() - started
            answer = (
                reply.get("answer", "") if reply.get("ok") else f"(failed: {reply.get('error')})"
            )
            agent_ms = reply.get("elapsed_ms", 0.0)
            print(
                f"Final Answer: {answer}  [agent {agent_ms:.0f} ms; {elapsed * 1000:.0f} ms with speech]"
            )
            answered += bool(reply.get("ok") and answer)
            timings.append((request, agent_ms, elapsed, reply.get("backend") or "?"))
            await asyncio.sleep(LISTEN_SECONDS)
    print("\nturn timings: agent (text in → Final Answer), and until the answer was spoken")
    for request, agent_ms, elapsed, backend in timings:
        print(f"  {agent_ms:7.0f} ms {elapsed * 1000:7.0f} ms  [{backend}]  {request}")
    where = getattr(output, "path", None)
    if where is not None:
        seconds = getattr(output, "seconds_written", 0.0)
        print(f"audio written to {where} ({seconds:.1f} s)")
    else:
        print(f"audio played on ALSA device {config.audio.playback_device!r}")
    return 0 if answered == len(requests) else 1
