"""The truth about sound: a speaker that cannot be opened, what the device took, underruns.

The failing speaker is a real ALSA open of a device that does not exist; the book is the
real `Player` on a generated library, writing into the real `Mixer`.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from device_fakes import FakeAgent, RecordingOutput

from device.app import App, AppState
from device.audio_out import AlsaPlayback, Mixer
from device.events import Inbox
from device.systemd import Notifier

PLAYER_TESTS = Path(__file__).resolve().parents[1] / "player"
sys.path.insert(0, str(PLAYER_TESTS))
from player_fixtures import make_album, wait_until  # noqa: E402

from player import Player, PlayerState  # noqa: E402


async def recv_all(sock: socket.socket, seconds: float) -> list[str]:
    """Datagrams arriving on `sock` within `seconds`."""
    loop = asyncio.get_running_loop()
    got: list[str] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            got.append((await asyncio.wait_for(loop.sock_recv(sock, 4096), left)).decode())
        except TimeoutError:
            break
    return got


async def test_unopenable_speaker_is_reported_and_the_position_stands(
    tmp_path, alsa_file_devices, caplog
):
    library = tmp_path / "library"
    make_album(library, "西游记", ["第1集"], seconds=4.0)
    mixer = Mixer(AlsaPlayback("xiaoting_no_such_pcm"), period_frames=1024, backoff_max=0.2)
    caplog.set_level(logging.WARNING, logger="device.audio_out")
    mixer.start()
    player = Player(library_paths=[library], cache_dir=tmp_path / "cache",
                    state_dir=tmp_path / "state", sink=mixer.book)  # fmt: skip
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    app = App(Inbox(), mixer, FakeAgent(), player=player, notifier=Notifier(str(path)))
    task = asyncio.create_task(app.run())
    try:
        await asyncio.wait_for(player.start(), 5)
        await asyncio.wait_for(app.wait_state(AppState.IDLE), 5)
        await asyncio.wait_for(player.play_book("西游记", section=1), 5)
        await asyncio.sleep(1.0)
        assert player.state == PlayerState.PLAYING  # it will go on when a speaker returns
        assert player.now.playback.position == pytest.approx(0.0, abs=0.05)  # nothing heard
        status = (await asyncio.wait_for(player.get_status(), 2))["message"]
        assert "扬声器不可用" in status
        assert "0秒" in status
        facts = app.status()
        assert facts["speaker"] == "unavailable" and facts["speaker_ok"] is False
        assert "xiaoting_no_such_pcm" in facts["speaker_error"]
        assert facts["player_health"]["speaker_problem"].startswith("speaker unavailable")
        assert facts["player_health"]["position"] == pytest.approx(0.0, abs=0.05)
        assert "speaker unavailable" in app.status_line()
        lines = await recv_all(sock, 0.3)
        assert any("STATUS=" in m and "speaker unavailable" in m for m in lines), lines
        warnings = [r for r in caplog.records if "speaker unavailable" in r.getMessage()]
        assert len(warnings) == 1  # once, not once per retry
    finally:
        app.request_stop("test")
        await asyncio.wait_for(task, 10)
        sock.close()


async def test_speaker_back_updates_the_status_line(tmp_path):
    output = RecordingOutput(fail_opens=3)
    mixer = Mixer(output, period_frames=256, backoff_max=0.05)
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    app = App(Inbox(), mixer, FakeAgent(), notifier=Notifier(str(path)))
    mixer.start()
    task = asyncio.create_task(app.run())
    try:
        await wait_until(lambda: mixer.output_ok, 5)
        lines = await recv_all(sock, 0.5)
        statuses = [m for m in lines if "STATUS=" in m]
        assert statuses and "speaker unavailable" not in statuses[-1]
        assert app.status()["speaker"] == "ok"
    finally:
        app.request_stop("test")
        await asyncio.wait_for(task, 10)
        sock.close()


async def test_position_follows_what_the_device_took(tmp_path):
    library = tmp_path / "library"
    make_album(library, "西游记", ["第1集"], seconds=6.0)
    output = RecordingOutput(realtime=True)
    mixer = Mixer(output, period_frames=1024, book_buffer_seconds=0.5)
    mixer.start()
    player = Player(library_paths=[library], cache_dir=tmp_path / "cache",
                    state_dir=tmp_path / "state", sink=mixer.book)  # fmt: skip
    try:
        await asyncio.wait_for(player.start(), 5)
        await asyncio.wait_for(player.play_book("西游记", section=1), 5)
        await asyncio.sleep(1.5)
        taken = len(output.data) / 4 / 48000
        position = player.now.playback.position
        # The player wrote half a second more into the book buffer than the device took.
        assert player.now.playback.frames_written / 48000 > taken + 0.3
        assert position == pytest.approx(taken, abs=0.1)
    finally:
        await asyncio.wait_for(player.close(), 5)
        mixer.close()


def test_alsa_open_logs_period_and_buffer(tmp_path, alsa_file_devices, caplog):
    caplog.set_level(logging.INFO, logger="device.audio_out")
    output = AlsaPlayback(f"xt_play:OUTFILE={tmp_path / 'o.raw'}", period_frames=1024)
    output.open()
    try:
        lines = [r.getMessage() for r in caplog.records if "period" in r.getMessage()]
        assert len(lines) == 1
        assert "period 1024 frames (21.3 ms)" in lines[0]
        assert output.buffer_frames >= 0.2 * 48000  # at least 0.2 s of headroom
        assert f"buffer {output.buffer_frames} frames" in lines[0]
    finally:
        output.close()


class FlakyPcm:
    """Stands in for an alsaaudio.PCM: reports XRUN once, takes a short write once."""

    def __init__(self, alsaaudio) -> None:
        self.alsaaudio = alsaaudio
        self.states = [alsaaudio.PCM_STATE_RUNNING]
        self.short = 0
        self.data = bytearray()

    def state(self):
        return self.states.pop(0) if self.states else self.alsaaudio.PCM_STATE_RUNNING

    def write(self, data) -> int:
        data = bytes(data)
        if self.short:
            self.short -= 1
            data = data[: len(data) // 2]
        self.data += data
        return len(data) // 4

    def close(self) -> None:
        pass


def test_underruns_and_short_writes_are_counted(alsa_file_devices):
    import alsaaudio

    output = AlsaPlayback("unused")
    pcm = FlakyPcm(alsaaudio)
    output._pcm = pcm
    output._pacer.lead = 10.0  # no pacing for a fake device
    period = np.arange(1024 * 2, dtype="<i2").tobytes()
    output.write(period)  # the first write after open: an XRUN then is only silence
    pcm.states = [alsaaudio.PCM_STATE_XRUN]
    output.idle()
    output.write(period)  # after the mixer had nothing to play: not counted
    assert output.underruns == 0
    pcm.states = [alsaaudio.PCM_STATE_XRUN]
    output.write(period)  # while playing: an underrun
    pcm.short = 1
    output.write(period)  # the device took half: counted, the rest written again
    assert output.underruns == 2 and output.short_writes == 1
    assert bytes(pcm.data) == period * 4  # nothing lost


def test_book_channel_keeps_three_periods_ahead():
    mixer = Mixer(RecordingOutput(), period_frames=4096, book_buffer_seconds=0.01)
    assert mixer.book._max >= 3 * 4096 * mixer.frame_bytes
    mixer.close()


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 2), (3, 2), (4, 3), (8, 7)])
def test_llama_leaves_a_core_for_audio(monkeypatch, cores, threads):
    from agent.local import LocalModel, default_threads

    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: set(range(cores)))
    assert default_threads() == threads
    assert LocalModel("none.gguf").n_threads == threads
    assert LocalModel("none.gguf", n_threads=5).n_threads == 5


def test_the_benchmark_card_counts_underruns_like_a_card():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from audio_load import SimulatedCard

    card = SimulatedCard(period_frames=480, buffer_frames=960)  # 20 ms buffer
    period = bytes(480 * 4)
    card.write(period)
    card.write(period)
    started = time.monotonic()
    card.write(period)  # the buffer is full: this waits about one period
    assert time.monotonic() - started > 0.005
    time.sleep(0.05)  # the writer is late: the card ran dry
    card.write(period)
    assert card.underruns == 1
    card.idle()
    time.sleep(0.05)  # nothing to play: silence, not an underrun
    card.write(period)
    assert card.underruns == 1
