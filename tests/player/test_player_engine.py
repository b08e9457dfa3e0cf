"""PyAV decoding to the sink: formats, resampling, pause/resume at the same sample, seek,
volume, corrupt files."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from player_fixtures import RecordingSink, make_episode, wait_until

from player.engine import Playback, probe
from player.errors import DecodeError


async def play_to_end(playback: Playback) -> list[str]:
    events: list[str] = []
    done = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_event(_pb, kind, _detail):
        events.append(kind)
        loop.call_soon_threadsafe(done.set)

    playback.on_event = on_event
    playback.start()
    await asyncio.wait_for(done.wait(), 10)
    return events


@pytest.mark.parametrize("kind", ["mp3", "m4a", "opus", "ogg", "flac", "wav"])
async def test_every_format_decodes_to_sink_rate(audio_dir, kind):
    sink = RecordingSink(sample_rate=48000, channels=2)
    path = audio_dir / f"tone.{kind}"
    assert 1.3 < probe(path) < 1.7
    events = await play_to_end(Playback(path, sink))
    assert events == ["ended"]
    # 1.5 s at 48 kHz stereo, give or take encoder padding.
    assert abs(sink.frames - 72000) < 4000
    left, right = sink.samples()[0::2], sink.samples()[1::2]
    assert np.array_equal(left, right)  # mono upmixed to both channels
    assert np.abs(left).max() > 5000  # a real tone, not silence


async def test_mono_sink_and_other_rate(audio_dir):
    sink = RecordingSink(sample_rate=16000, channels=1)
    await play_to_end(Playback(audio_dir / "tone.flac", sink))
    assert abs(sink.frames - 24000) < 500


async def test_pause_and_resume_continue_at_the_same_sample(audio_dir):
    path = audio_dir / "tone.flac"
    reference = RecordingSink()
    await play_to_end(Playback(path, reference))

    sink = RecordingSink(speed=10.0)
    playback = Playback(path, sink)
    playback.start()
    await asyncio.wait_for(asyncio.wrap_future(playback.loaded), 5)
    await wait_until(lambda: sink.frames > 10000)
    playback.pause()
    await asyncio.sleep(0.1)
    frames_at_pause = sink.frames
    await asyncio.sleep(0.15)
    assert sink.frames == frames_at_pause  # nothing written while paused
    assert sink.drops == 1
    assert playback.position == pytest.approx(frames_at_pause / 48000, abs=1e-6)
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    playback.on_event = lambda *_: loop.call_soon_threadsafe(done.set)
    playback.resume()
    await asyncio.wait_for(done.wait(), 10)
    assert sink.pcm == reference.pcm  # sample-exact continuation


async def test_pause_while_a_chunk_is_prepared_writes_not_one_more(audio_dir):
    """A pause that comes after the worker looked, while it decodes the next chunk (slow
    on a busy machine), stops before that chunk: the listener hears nothing after it."""
    path = audio_dir / "tone.flac"
    reference = RecordingSink()
    await play_to_end(Playback(path, reference))
    sink = RecordingSink()
    calls = 0
    written_at_pause: list[int] = []

    def volume() -> float:  # called once per chunk, between decoding and writing
        nonlocal calls
        calls += 1
        if calls == 5:
            written_at_pause.append(sink.frames)
            playback.pause()
        return 1.0

    playback = Playback(path, sink, volume=volume)
    playback.start()
    await wait_until(lambda: playback.paused)
    await asyncio.sleep(0.2)
    assert written_at_pause == [sink.frames] == [4 * 2400]
    assert playback.position == pytest.approx(4 * 2400 / 48000)
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    playback.on_event = lambda *_: loop.call_soon_threadsafe(done.set)
    playback.resume()
    await asyncio.wait_for(done.wait(), 10)
    assert sink.pcm == reference.pcm  # the held chunk is played on resume, once


class DelaySink(RecordingSink):
    """A sink reporting frames still queued, as ALSA does; drop() loses them."""

    queued = 2400

    def delay(self) -> int:
        return self.queued


async def test_pause_rewinds_frames_the_sink_dropped(audio_dir):
    sink = DelaySink(speed=10.0)
    playback = Playback(audio_dir / "tone.flac", sink)
    playback.start()
    await wait_until(lambda: sink.frames > 12000)
    playback.pause()
    await asyncio.sleep(0.1)
    written = sink.frames
    assert playback.position == pytest.approx((written - 2400) / 48000, abs=1e-6)
    playback.resume()
    await wait_until(lambda: sink.frames >= written + 2400)
    replay = sink.samples()[written * 2 : (written + 2400) * 2]
    original = sink.samples()[(written - 2400) * 2 : written * 2]
    assert np.array_equal(replay, original)
    playback.stop()
    playback.join(2)


async def test_seek_trims_to_the_target(audio_dir):
    sink = RecordingSink()
    playback = Playback(audio_dir / "long.mp3", sink, start=4.0)
    await play_to_end(playback)
    # 2 s remain of 6 s (mp3 padding allows a few ms)
    assert abs(sink.frames - 96000) < 3000


async def test_seek_while_paused_stays_paused(audio_dir):
    sink = RecordingSink(speed=10.0)
    playback = Playback(audio_dir / "long.mp3", sink)
    playback.start()
    await wait_until(lambda: sink.frames > 4800)
    playback.pause()
    playback.seek(3.0)
    await asyncio.sleep(0.2)
    frames = sink.frames
    await asyncio.sleep(0.1)
    assert sink.frames == frames
    assert playback.position == pytest.approx(3.0)
    playback.resume()
    await wait_until(lambda: playback.position > 3.05)
    playback.stop()
    playback.join(2)


async def test_volume_scales_samples(audio_dir):
    loud, quiet = RecordingSink(), RecordingSink()
    await play_to_end(Playback(audio_dir / "tone.wav", loud))
    await play_to_end(Playback(audio_dir / "tone.wav", quiet, volume=lambda: 0.25))
    a, b = loud.samples().astype(float), quiet.samples().astype(float)
    assert len(a) == len(b)
    assert np.abs(b).max() == pytest.approx(np.abs(a).max() * 0.25, rel=0.01)


@pytest.mark.parametrize("content", [b"", b"<html>not audio</html>", b"\xff\xfb" + bytes(5000)])
async def test_corrupt_files_raise_decode_error(tmp_path, content):
    path = tmp_path / "bad.mp3"
    path.write_bytes(content)
    with pytest.raises(DecodeError):
        probe(path)
    playback = Playback(path, RecordingSink())
    playback.start()
    if content.startswith(b"\xff\xfb"):
        # Opens as MP3 but yields nothing playable: probe refuses it; the worker ends.
        playback.join(5)
    else:
        with pytest.raises(DecodeError):
            await asyncio.wait_for(asyncio.wrap_future(playback.loaded), 5)


async def test_truncated_file_plays_what_is_there(tmp_path, audio_dir):
    data = (audio_dir / "long.mp3").read_bytes()
    path = tmp_path / "half.mp3"
    path.write_bytes(data[: len(data) // 2])
    sink = RecordingSink()
    await play_to_end(Playback(path, sink))
    assert 100000 < sink.frames < 200000


def test_make_episode_lengths(tmp_path):
    path = make_episode(tmp_path / "x.opus", kind="opus", seconds=0.5)
    assert 0.4 < probe(path) < 0.6


async def test_a_seek_is_the_position_before_the_worker_reaches_it(audio_dir):
    """A status or a bookmark taken right after a seek says where the listener asked to
    be, even while the decoding thread is busy (a loaded machine): never the old place."""
    sink = RecordingSink(speed=10.0)
    playback = Playback(audio_dir / "long.mp3", sink)
    playback.start()
    await wait_until(lambda: sink.frames > 4800)
    playback.seek(4.5)
    assert playback.position == pytest.approx(4.5, abs=0.05)
    playback.stop()
    playback.join(2)
