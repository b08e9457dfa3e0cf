"""Capture and playback through a real ALSA path (the `file` plugin over `null`), and the mixer."""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
import pytest
from device_fakes import RecordingOutput

from device.audio_in import AlsaCapture, CaptureError, CaptureGuard
from device.audio_out import AlsaPlayback, BookMode, Mixer
from device.resample import Resampler, convert_once, peak


def tone(n: int, value: int = 1000) -> bytes:
    return (np.sin(np.arange(n) / 7) * value).astype("<i2").tobytes()


def test_capture_reads_a_file_through_alsa(tmp_path, alsa_file_devices) -> None:
    source = tone(16000 * 2)
    raw = tmp_path / "in.raw"
    raw.write_bytes(source)
    capture = AlsaCapture(f"xt_cap:INFILE={raw}", period_frames=512)
    capture.open()
    try:
        got = b"".join(capture.read() for _ in range(8))
    finally:
        capture.close()
    assert len(got) == 8 * 512 * 2
    assert got == source[: len(got)]


def test_capture_gain_scales_and_clips(tmp_path, alsa_file_devices) -> None:
    raw = tmp_path / "in.raw"
    raw.write_bytes(np.array([1000, -1000, 20000, -20000] * 256, dtype="<i2").tobytes())
    capture = AlsaCapture(f"xt_cap:INFILE={raw}", period_frames=256, gain=2.0)
    capture.open()
    try:
        got = np.frombuffer(capture.read(), dtype="<i2")
    finally:
        capture.close()
    assert list(got[:4]) == [2000, -2000, 32767, -32768]


def test_missing_capture_device_is_reported_once_and_backs_off(caplog) -> None:
    pytest.importorskip("alsaaudio")
    guard = CaptureGuard(AlsaCapture("xiaoting_no_such_pcm"), backoff_min=0.5)
    with caplog.at_level(logging.DEBUG, logger="device.audio_in"):
        assert guard.try_open(now=100.0) is False
        assert guard.try_open(now=100.1) is False  # in backoff: not even tried
        assert guard.try_open(now=100.6) is False
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "xiaoting_no_such_pcm" in warnings[0].getMessage()
    assert guard.failures == 2
    assert guard.next_try == pytest.approx(101.6)
    with pytest.raises(CaptureError):
        AlsaCapture("xiaoting_no_such_pcm").open()


def test_playback_writes_the_mixed_book_through_alsa(tmp_path, alsa_file_devices) -> None:
    out = tmp_path / "out.raw"
    output = AlsaPlayback(
        f"xt_play:OUTFILE={out}", sample_rate=48000, channels=2, period_frames=512
    )
    mixer = Mixer(output, period_frames=512)
    mixer.start()
    try:
        assert mixer.output_ok
        book = np.full(4800 * 2, 1234, dtype="<i2").tobytes()  # 0.1 s stereo
        mixer.book.write(book)
        deadline = time.monotonic() + 2
        while mixer.book._buf and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        mixer.close()
    data = np.frombuffer(out.read_bytes(), dtype="<i2")
    assert len(data) == 4800 * 2
    assert set(data.tolist()) == {1234}


def test_resampler_converts_rate_and_channels() -> None:
    mono22k = tone(22050)
    out = convert_once(mono22k, 22050, 1, 48000, 2)
    frames = len(out) // 4
    assert abs(frames - 48000) < 200
    stereo = np.frombuffer(out, dtype="<i2").reshape(-1, 2)
    assert np.array_equal(stereo[:, 0], stereo[:, 1])
    assert Resampler(16000, 1, 16000, 1).convert(b"\x01\x00") == b"\x01\x00"
    # Streaming 48 kHz stereo -> 16 kHz mono, period by period.
    r = Resampler(48000, 2, 16000, 1)
    src = np.repeat(np.frombuffer(tone(48000), dtype="<i2"), 2).tobytes()
    got = b"".join(r.convert(src[i : i + 4096]) for i in range(0, len(src), 4096)) + r.flush()
    assert abs(len(got) // 2 - 16000) < 100
    assert peak(got) > 500


def run_mixer(output: RecordingOutput, **kw) -> Mixer:
    mixer = Mixer(output, period_frames=256, **kw)
    mixer.start()
    return mixer


def test_held_book_blocks_the_writer_and_drop_releases_it() -> None:
    output = RecordingOutput()
    mixer = run_mixer(output, book_buffer_seconds=0.01)
    try:
        mixer.set_book_mode(BookMode.HOLD)
        done = threading.Event()

        def writer() -> None:
            mixer.book.write(np.full(48000 * 2, 500, dtype="<i2").tobytes())
            done.set()

        threading.Thread(target=writer, daemon=True).start()
        assert not done.wait(0.2)  # held: the book does not advance
        assert len(output.data) == 0
        mixer.book.drop()  # stop/seek/pause from the player
        assert done.wait(1.0)
    finally:
        mixer.close()


def test_voice_is_mixed_over_a_ducked_book() -> None:
    output = RecordingOutput(realtime=False)
    mixer = Mixer(output, period_frames=256, duck_volume=0.5)
    assert mixer.open()
    try:
        mixer.set_book_mode(BookMode.DUCK)
        mixer.voice.begin()
        mixer.book.write(np.full(4096 * 2, 2000, dtype="<i2").tobytes())
        seconds = mixer.voice.write(np.full(2048, 3000, dtype="<i2").tobytes(), 16000)
        mixer.start()
        assert seconds == pytest.approx(2048 / 16000, rel=0.05)
        assert mixer.voice.wait_idle(2.0)
        assert mixer.voice.first_sample_at is not None
    finally:
        mixer.close()
    samples = output.samples()
    # Book at 2000 ducked to 1000, voice 3000 at full level (mono spread to both sides).
    assert abs(int(np.median(samples[: 4096 * 2])) - 4000) <= 50
    assert int(np.median(samples[-1024:])) in (1000, 3000)  # one channel ran out first


def test_unplugged_speaker_is_reopened_and_the_book_not_lost(caplog) -> None:
    output = RecordingOutput(fail_after=2)
    with caplog.at_level(logging.WARNING, logger="device.audio_out"):
        mixer = Mixer(output, period_frames=256, backoff_max=0.05)
        mixer.start()
        try:
            book = np.arange(256 * 2 * 8, dtype="<i2").tobytes()  # 8 periods, distinct samples
            mixer.book.write(book)
            deadline = time.monotonic() + 3
            while len(output.data) < len(book) and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            mixer.close()
    assert output.opens >= 3  # first open, failed reopen, good reopen
    assert bytes(output.data) == book  # every frame arrived once, in order
    assert any("speaker lost" in r.getMessage() for r in caplog.records)
