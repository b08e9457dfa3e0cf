"""Damaged audio of the kind a household has: decoding goes on past it.

Every file is made here with PyAV: 200 bytes of garbage in the middle of a 60 s MP3, M4A
(moov at the end and faststart) and Opus; ``cat a.mp3 b.mp3`` with 44.1 kHz stereo then
48 kHz mono; an ID3 tag between two MP3s; a faststart M4A cut at 70 %.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import av
import numpy as np
import pytest
from player_fixtures import RecordingSink, make_album, wait_for_state, wait_until

from player import PlayerState
from player.engine import Decoder, Playback, probe
from player.errors import DecodeError

OUT_RATE = 48000


def encode(path: Path, *, fmt: str, codec: str, rate: int, layout: str, seconds: float,
           freq: float = 440.0, faststart: bool = False) -> Path:  # fmt: skip
    """A sine tone of `freq` Hz, `seconds` long, at `rate` Hz in `layout`."""
    channels = 1 if layout == "mono" else 2
    options = {"movflags": "faststart"} if faststart else {}
    with av.open(str(path), "w", format=fmt, options=options) as out:
        stream = out.add_stream(codec, rate=rate, layout=layout)
        stream.bit_rate = 64000
        total = int(rate * seconds)
        wave = (0.3 * np.sin(2 * np.pi * freq * np.arange(total) / rate)).astype(np.float32)
        data = np.repeat(wave[None, :], channels, axis=0)
        pts = 0
        for start in range(0, total, 1024):
            frame = av.AudioFrame.from_ndarray(
                np.ascontiguousarray(data[:, start : start + 1024]), format="fltp", layout=layout
            )
            frame.sample_rate, frame.pts = rate, pts
            pts += frame.samples
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


def garble(data: bytes, count: int = 200, seed: int = 3) -> bytes:
    """`data` with `count` random bytes written over its middle."""
    out = bytearray(data)
    middle = len(out) // 2
    out[middle : middle + count] = np.random.default_rng(seed).bytes(count)
    return bytes(out)


def id3_tag(title: bytes) -> bytes:
    """A small ID3v2.4 tag (one TIT2 frame plus padding), as podcast ad inserts carry."""
    frame = b"TIT2" + (len(title) + 1).to_bytes(4, "big") + b"\x00\x00\x03" + title
    body = frame + bytes(2000)
    size = len(body)
    syncsafe = bytes([(size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F])
    return b"ID3\x04\x00\x00" + syncsafe + body


MP3 = {"fmt": "mp3", "codec": "libmp3lame"}
M4A = {"fmt": "ipod", "codec": "aac"}
OPUS = {"fmt": "ogg", "codec": "libopus"}


@pytest.fixture(scope="session")
def damaged(tmp_path_factory) -> dict[str, Path]:
    """The damaged files by name, made once per session."""
    root = tmp_path_factory.mktemp("damaged")
    clean = {
        "mp3": encode(root / "a.mp3", **MP3, rate=44100, layout="stereo", seconds=60),
        "m4a": encode(root / "a.m4a", **M4A, rate=44100, layout="mono", seconds=60),
        "m4a-faststart": encode(root / "f.m4a", **M4A, rate=44100, layout="mono", seconds=60,
                                faststart=True),
        "opus": encode(root / "a.opus", **OPUS, rate=48000, layout="mono", seconds=60),
    }  # fmt: skip
    files = {}
    for name, path in clean.items():
        files[f"bad-{name}"] = root / f"bad-{name}{path.suffix}"
        files[f"bad-{name}"].write_bytes(garble(path.read_bytes()))
    second = encode(root / "b.mp3", **MP3, rate=48000, layout="mono", seconds=30, freq=660)
    files["cat"] = root / "cat.mp3"
    files["cat"].write_bytes(clean["mp3"].read_bytes() + second.read_bytes())
    same = encode(root / "c.mp3", **MP3, rate=44100, layout="stereo", seconds=30, freq=660)
    files["id3"] = root / "id3.mp3"
    files["id3"].write_bytes(clean["mp3"].read_bytes() + id3_tag(b"Ad break") + same.read_bytes())
    data = clean["m4a-faststart"].read_bytes()
    files["truncated"] = root / "truncated.m4a"
    files["truncated"].write_bytes(data[: int(len(data) * 0.7)])
    return files


async def play_all(path: Path, sink: RecordingSink | None = None) -> tuple[list, RecordingSink]:
    """Play `path` into a recording sink as fast as it decodes; returns (events, sink)."""
    sink = sink or RecordingSink(sample_rate=OUT_RATE, channels=2)
    events: list = []
    done = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_event(_pb, kind, detail):
        events.append((kind, detail))
        loop.call_soon_threadsafe(done.set)

    playback = Playback(path, sink, on_event=on_event)
    playback.start()
    await asyncio.wait_for(done.wait(), 30)
    await asyncio.to_thread(playback.join, 5)
    return events, sink


def dominant_hz(samples: np.ndarray, rate: int = OUT_RATE) -> float:
    """The strongest frequency of a mono signal, in Hz."""
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.argmax(spectrum) * rate / len(samples))


@pytest.mark.parametrize("name", ["bad-mp3", "bad-m4a", "bad-m4a-faststart", "bad-opus"])
async def test_damaged_middle_plays_on(damaged, name, caplog):
    caplog.set_level(logging.INFO, logger="player.engine")
    assert probe(damaged[name]) == pytest.approx(60, abs=0.1)
    events, sink = await play_all(damaged[name])
    assert [kind for kind, _ in events] == ["ended"]
    played = sink.frames / OUT_RATE
    assert played >= 58.0, f"{name} stopped at {played:.2f} s"
    assert played <= 60.1
    skips = [r for r in caplog.records if "damaged packet" in r.getMessage()]
    assert len(skips) == 1, [r.getMessage() for r in skips]  # once per file, with the count
    assert skips[0].levelno == logging.WARNING
    assert "skipped 1 " in skips[0].getMessage() or "skipped 2 " in skips[0].getMessage()
    # the tone goes on after the damage, at its pitch
    tail = sink.samples()[0::2][-OUT_RATE * 5 :].astype(np.float32)
    assert dominant_hz(tail) == pytest.approx(440, abs=2)


async def test_rate_and_layout_change_plays_full_length_at_the_right_pitch(damaged, caplog):
    caplog.set_level(logging.INFO, logger="player.engine")
    events, sink = await play_all(damaged["cat"])
    assert [kind for kind, _ in events] == ["ended"]
    # 60 s at 44.1 kHz stereo then 30 s at 48 kHz mono: 90 s at the output rate.
    assert sink.frames / OUT_RATE == pytest.approx(90.0, abs=0.15)
    left = sink.samples()[0::2].astype(np.float32)
    assert dominant_hz(left[10 * OUT_RATE : 20 * OUT_RATE]) == pytest.approx(440, abs=1)
    assert dominant_hz(left[70 * OUT_RATE : 80 * OUT_RATE]) == pytest.approx(660, abs=1)
    right = sink.samples()[1::2].astype(np.float32)
    assert np.abs(right[70 * OUT_RATE : 80 * OUT_RATE]).max() > 5000  # mono reaches both
    assert any("audio changes to" in r.getMessage() and "48000" in r.getMessage()
               for r in caplog.records)  # fmt: skip


async def test_id3_tag_in_the_middle(damaged):
    events, sink = await play_all(damaged["id3"])
    assert [kind for kind, _ in events] == ["ended"]
    assert sink.frames / OUT_RATE == pytest.approx(90.0, abs=0.15)
    left = sink.samples()[0::2].astype(np.float32)
    assert dominant_hz(left[70 * OUT_RATE : 80 * OUT_RATE]) == pytest.approx(660, abs=1)


async def test_truncated_faststart_m4a_plays_what_is_there(damaged, caplog):
    caplog.set_level(logging.WARNING, logger="player.engine")
    assert probe(damaged["truncated"]) == pytest.approx(60, abs=0.1)  # the moov still says 60
    events, sink = await play_all(damaged["truncated"])
    assert [kind for kind, _ in events] == ["ended"]
    assert 40.0 < sink.frames / OUT_RATE < 42.5
    assert any("the rest is missing" in r.getMessage() for r in caplog.records)


async def test_seek_past_the_damage(damaged):
    decoder = Decoder(damaged["bad-mp3"], rate=OUT_RATE, channels=2)
    try:
        frames = sum(chunk.size for chunk in decoder.pcm(45.0)) // 2
    finally:
        decoder.close()
    assert frames / OUT_RATE == pytest.approx(15.0, abs=0.1)


async def test_file_with_no_audio_at_all_is_broken(tmp_path):
    clean = encode(tmp_path / "a.m4a", **M4A, rate=44100, layout="mono", seconds=5).read_bytes()
    # Every AAC packet overwritten; the sample table (moov, at the end) is intact.
    start, end = clean.find(b"mdat") + 4, clean.find(b"moov") - 4
    path = tmp_path / "silent.m4a"
    path.write_bytes(clean[:start] + b"\xff" * (end - start) + clean[end:])
    with pytest.raises(DecodeError):
        probe(path)
    events, sink = await play_all(path)
    assert [kind for kind, _ in events] == ["error"]
    assert isinstance(events[0][1], DecodeError)
    assert sink.frames == 0


async def test_damaged_download_is_kept_and_played_on(tmp_path, damaged, make_player, server):
    from player_fixtures import AudioFile, rss_feed

    body = damaged["bad-mp3"].read_bytes()
    server.audio["bad.mp3"] = AudioFile(body)
    server.feeds["f.xml"] = rss_feed("坏书", [("第1集", server.url("/audio/bad.mp3"), 1)])
    sink = RecordingSink(speed=0.0)
    player = await make_player(feeds=[server.url("/feeds/f.xml")], sink=sink)
    await asyncio.wait_for(player.play_book("坏书", section=1), 5)
    await wait_for_state(player, PlayerState.PLAYING, 10)
    cached = player.now.path
    await wait_for_state(player, PlayerState.IDLE, 20)
    assert sink.frames / 48000 >= 58.0
    assert cached.exists() and cached.read_bytes() == body  # never deleted for damage
    assert player.last_error == ""


async def test_damaged_local_chapter_then_the_next(tmp_path, damaged, make_player):
    library = tmp_path / "library"
    folder = make_album(library, "两集", ["第1集", "第2集"], seconds=1.0)
    (folder / "第1集.mp3").write_bytes(damaged["bad-mp3"].read_bytes())
    sink = RecordingSink(speed=0.0)
    player = await make_player(library_paths=[library], sink=sink)
    await asyncio.wait_for(player.play_book("两集", section=1), 5)
    await wait_until(lambda: sink.frames > 59 * 48000, 20)
    await wait_for_state(player, PlayerState.IDLE, 10)
    assert sink.frames / 48000 >= 58.0 + 0.9  # the damaged chapter, then chapter 2
    mark = player.store.last_bookmark()
    assert mark is not None and mark.section == 2  # it went on to the next chapter
    assert player.last_error == ""
