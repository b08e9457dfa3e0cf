"""The whole App with fakes for models and hardware: states, book handling, barge-in, stop."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import stat
import time

import numpy as np
import pytest
from device_fakes import (
    FakeAgent,
    FakeButton,
    FakeCapture,
    FakePlayer,
    FakeRecogniser,
    FakeSynthesiser,
    RecordingOutput,
)

from device.app import App, AppState, Timings
from device.audio_out import BookMode, Mixer
from device.control import ControlServer, control_request
from device.events import Inbox
from device.runtime import install_signal_handlers, remove_signal_handlers
from device.systemd import Notifier

S = AppState
LOUD = (np.sin(np.arange(16000) / 3) * 8000).astype("<i2").tobytes()
TIMINGS = Timings(
    tap_seconds=0.15, bounce_seconds=0.02, max_utterance_seconds=5.0, release_tail_seconds=0.05
)


class Rig:
    """An App with fakes, running as a task."""

    def __init__(
        self, tmp_path, *, agent=None, capture=None, synth=None, timings=TIMINGS, notifier=None
    ):
        self.inbox = Inbox()
        self.output = RecordingOutput(realtime=True)
        self.mixer = Mixer(self.output, period_frames=1024, duck_volume=0.0)
        self.modes: list[BookMode] = []
        real = self.mixer.set_book_mode

        def spy(mode: BookMode) -> None:
            self.modes.append(mode)
            real(mode)

        self.mixer.set_book_mode = spy  # type: ignore[method-assign]
        self.player = FakePlayer(self.mixer.book)
        self.agent = agent or FakeAgent("好的。正在播放西游记。")
        self.capture = capture or FakeCapture(LOUD)
        self.recogniser = FakeRecogniser("播放西游记")
        self.synth = synth or FakeSynthesiser(0.1)
        self.button = FakeButton(self.inbox)
        self.socket = tmp_path / "control.sock"
        self.app = App(
            self.inbox,
            self.mixer,
            self.agent,
            player=self.player,
            capture=self.capture,
            recogniser=self.recogniser,
            synthesiser=self.synth,
            buttons=[self.button],
            notifier=notifier,
            timings=timings,
        )
        self.control = ControlServer(self.socket, self.app)
        self.task: asyncio.Task | None = None

    async def _serve(self) -> int:
        try:
            return await self.app.run()
        finally:
            await self.control.close()

    async def start(self) -> Rig:
        self.mixer.start()
        await self.control.start()
        self.task = asyncio.create_task(self._serve())
        await self.wait(S.IDLE)
        return self

    async def wait(self, state: AppState, seconds: float = 3.0) -> None:
        await asyncio.wait_for(self.app.wait_state(state), seconds)

    async def talk(self, hold: float = 0.3) -> None:
        self.button.press()
        await self.wait(S.LISTENING)
        await asyncio.sleep(hold)
        self.button.release()

    async def stop(self) -> int:
        self.app.request_stop("test")
        return await asyncio.wait_for(self.task, 5.0)


@pytest.fixture
async def rig(tmp_path):
    rigs: list[Rig] = []

    async def make(**kw) -> Rig:
        r = Rig(tmp_path, **kw)
        rigs.append(r)
        return await r.start()

    yield make
    for r in rigs:
        if r.task is not None and not r.task.done():
            await r.stop()


def after(history: list[AppState], start: int) -> list[AppState]:
    return history[start:]


async def test_voice_turn_goes_through_every_state_and_book_comes_back(rig) -> None:
    r = await rig()
    await r.player.play()
    await asyncio.sleep(0.1)
    mark = len(r.app.history)
    await r.talk()
    await r.wait(S.SPEAKING)
    await r.wait(S.IDLE)
    assert after(r.app.history, mark) == [S.LISTENING, S.THINKING, S.SPEAKING, S.IDLE]
    assert r.agent.utterances == ["播放西游记"]
    assert r.synth.texts == ["好的。正在播放西游记。"]
    # Held while the person talks, ducked (here: held, duck_volume 0) while speaking, then back.
    assert r.modes[-3:] == [BookMode.HOLD, BookMode.DUCK, BookMode.PLAY]
    assert r.mixer.mode == BookMode.PLAY
    before = r.player.frames_written
    await asyncio.sleep(0.2)
    assert r.player.frames_written > before  # the book flows again
    assert r.recogniser.fed and r.recogniser.fed[0] >= 16000 * 0.3 * 0.8


async def test_book_does_not_advance_while_the_person_talks(rig) -> None:
    r = await rig()
    await r.player.play()
    await asyncio.sleep(0.1)
    r.button.press()
    await r.wait(S.LISTENING)
    await asyncio.sleep(0.1)  # let buffered periods drain
    frames = r.player.frames_written
    await asyncio.sleep(0.3)
    assert r.player.frames_written - frames <= 1024 * 1  # blocked in write
    r.button.release()
    await r.wait(S.IDLE)


async def test_tap_toggles_the_book_without_the_agent(rig) -> None:
    r = await rig()
    await r.player.play()
    for expected in ("pause", "resume"):
        r.button.press()
        await r.wait(S.LISTENING)
        await asyncio.sleep(0.03)
        r.button.release()
        await r.wait(S.IDLE)
        assert r.player.calls[-1] == expected
    assert r.agent.utterances == []
    assert r.player.state == "playing"


async def test_barge_in_during_thinking_cancels_the_turn(rig) -> None:
    r = await rig(agent=FakeAgent("答案。", think_seconds=30))
    await r.talk()
    await asyncio.wait_for(r.agent.started.wait(), 3)
    r.agent.think_seconds = 0
    r.button.press()
    await r.wait(S.LISTENING)
    assert r.agent.cancelled == 1
    assert r.app.barge_ins == 1
    assert r.app.history[-2:] == [S.THINKING, S.LISTENING]
    await asyncio.sleep(0.3)
    r.button.release()
    await r.wait(S.SPEAKING)
    await r.wait(S.IDLE)
    assert len(r.agent.utterances) == 2


async def test_barge_in_during_speech_stops_the_voice(rig) -> None:
    r = await rig(synth=FakeSynthesiser(3.0))
    await r.talk()
    await r.wait(S.SPEAKING)
    await asyncio.sleep(0.2)
    started = time.monotonic()
    r.button.press()
    await r.wait(S.LISTENING)
    assert time.monotonic() - started < 1.0
    await asyncio.sleep(0.1)
    assert not r.mixer.voice._buf  # the rest of the sentence was dropped
    r.button.release()
    await r.wait(S.IDLE, 10)


async def test_pause_asked_for_in_the_turn_is_not_undone(rig) -> None:
    agent = FakeAgent("已暂停。", action="pause")
    r = await rig(agent=agent)
    agent.player = r.player
    await r.player.play()
    await r.talk()
    await r.wait(S.SPEAKING)
    await r.wait(S.IDLE)
    assert r.player.state == "paused"
    assert "resume" not in r.player.calls
    frames = r.player.frames_written
    await asyncio.sleep(0.2)
    assert r.player.frames_written == frames


async def test_silence_is_answered_with_not_heard(rig) -> None:
    r = await rig(capture=FakeCapture(bytes(32000)))
    await r.talk()
    await r.wait(S.SPEAKING)
    await r.wait(S.IDLE)
    assert r.agent.utterances == []
    assert r.synth.texts == ["没听清。"]
    assert r.app.last_heard.level == "silence"


async def test_clipping_noise_does_not_crash(rig) -> None:
    noise = np.random.default_rng(1).choice([-32768, 32767], 16000).astype("<i2").tobytes()
    r = await rig(capture=FakeCapture(noise))
    await r.talk()
    await r.wait(S.IDLE)
    assert r.app.last_heard.level == "clipping"
    assert r.app.state == S.IDLE


async def test_busy_microphone_is_reported_once_and_spoken(rig, caplog) -> None:
    r = await rig(capture=FakeCapture(LOUD, fail_opens=1000))
    with caplog.at_level(logging.WARNING, logger="device.audio_in"):
        await r.talk(0.4)
        await r.wait(S.SPEAKING)
        await r.wait(S.IDLE)
        await r.talk(0.2)
        await r.wait(S.IDLE)
    assert r.synth.texts == ["麦克风不可用。", "麦克风不可用。"]
    assert len([x for x in caplog.records if "microphone unavailable" in x.getMessage()]) == 1
    assert r.capture.opens >= 2


async def test_held_past_max_utterance_ends_by_itself(rig) -> None:
    timings = Timings(
        tap_seconds=0.15, bounce_seconds=0.02, max_utterance_seconds=0.4, release_tail_seconds=0.0
    )
    r = await rig(timings=timings)
    r.button.press()
    await r.wait(S.LISTENING)
    await r.wait(S.THINKING, 2.0)  # still held
    await r.wait(S.IDLE, 3.0)
    r.button.release()  # the late release starts nothing
    await asyncio.sleep(0.2)
    assert r.app.state == S.IDLE
    assert r.agent.utterances == ["播放西游记"]


async def test_press_during_start_up_is_ignored(tmp_path) -> None:
    r = Rig(tmp_path)
    r.button.press()  # before the App is ready
    r.button.release()
    await r.start()
    await asyncio.sleep(0.2)
    assert r.app.history == [S.STARTING, S.IDLE]
    assert await r.stop() == 0


async def test_two_presses_20ms_apart_make_one_utterance(rig) -> None:
    r = await rig()
    t = time.monotonic()
    r.button.press(t)
    r.button.release(t + 0.01)
    r.button.press(t + 0.02)  # still held afterwards
    await r.wait(S.LISTENING)
    await asyncio.sleep(0.3)
    r.button.release()
    await r.wait(S.SPEAKING)
    await r.wait(S.IDLE)
    assert r.agent.utterances == ["播放西游记"]


@pytest.mark.parametrize("during", ["speech", "download"])
async def test_sigterm_stops_cleanly_within_5_seconds(rig, during) -> None:
    r = await rig(synth=FakeSynthesiser(5.0))
    install_signal_handlers(r.app)
    try:
        await r.player.play()
        if during == "speech":
            await r.talk()
            await r.wait(S.SPEAKING)
        else:
            r.player.start_download()
        started = time.monotonic()
        os.kill(os.getpid(), signal.SIGTERM)
        assert await asyncio.wait_for(r.task, 5.0) == 0
    finally:
        remove_signal_handlers()
    assert time.monotonic() - started < 5.0
    assert r.player.bookmarks_saved
    assert not r.output.is_open
    assert r.app.history[-1] == S.STOPPING
    if during == "download":
        assert r.player.download.cancelled()
    assert not r.socket.exists()


async def test_control_socket_ask_status_inject(rig) -> None:
    r = await rig()
    mode = stat.S_IMODE(os.stat(r.socket).st_mode)
    assert mode == 0o660
    status = await asyncio.wait_for(control_request(r.socket, {"cmd": "status"}), 3)
    assert status["ok"] and status["state"] == "idle"
    reply = await asyncio.wait_for(
        control_request(r.socket, {"cmd": "ask", "text": "现在在播什么"}), 5
    )
    assert reply["ok"] and reply["answer"] == "好的。正在播放西游记。"
    assert r.agent.utterances == ["现在在播什么"]
    assert r.synth.texts == ["好的。正在播放西游记。"]
    reply = await asyncio.wait_for(
        control_request(r.socket, {"cmd": "inject", "text": "不是这本"}), 3
    )
    assert reply == {"ok": True}
    assert r.agent.injected == ["不是这本"]
    bad = await asyncio.wait_for(control_request(r.socket, {"cmd": "dance"}), 3)
    assert bad["ok"] is False and "unknown command" in bad["error"]


async def test_systemd_ready_watchdog_and_status(rig, tmp_path) -> None:
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    try:
        r = await rig(notifier=Notifier(str(path), watchdog_usec=100_000))
        got: list[str] = []
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not (
            any("READY=1" in m for m in got) and sum("WATCHDOG=1" in m for m in got) >= 2
        ):
            got.append((await asyncio.wait_for(loop.sock_recv(sock, 4096), 3)).decode())
        assert any(m.startswith("READY=1") and "STATUS=idle" in m for m in got)
        assert sum(m == "WATCHDOG=1" for m in got) >= 2
        await r.stop()
        rest = []
        while True:
            try:
                rest.append(sock.recv(4096).decode())
            except BlockingIOError:
                break
        assert "STOPPING=1" in rest
    finally:
        sock.close()


async def test_voice_turn_trace_carries_its_stage_timings(rig, tmp_path, caplog) -> None:
    """Release, transcript, model and first audio sample of a real Agent turn, in order."""
    from agent import Agent, ToolRegistry
    from agent.models import ScriptedModel
    from agent.trace import TraceWriter, format_turns, read_last

    async def play_book(keyword: str, section: int = 1) -> str:
        """Play an album."""
        return f"正在播放{keyword}"

    model = ScriptedModel(["Thought: 播放。\nFinal Answer: 好的，正在播放西游记。"])
    agent = Agent(
        ToolRegistry([play_book]),
        model,
        fast_path=False,
        trace=TraceWriter(tmp_path / "state"),
    )
    r = await rig(agent=agent)
    assert agent.defer_trace  # the App writes the trace once the answer is heard
    with caplog.at_level(logging.INFO, logger="agent.loop"):
        await r.talk()
        await r.wait(S.SPEAKING)
        await r.wait(S.IDLE)
        for _ in range(100):
            if (tmp_path / "state" / "trace.jsonl").exists():
                break
            await asyncio.sleep(0.02)
    [turn] = read_last(tmp_path / "state", 5)
    stages = turn["stages"]
    assert list(stages)[:2] == ["release", "transcript"]
    assert stages["release"] == 0.0
    assert 0.0 < stages["transcript"] <= stages["agent"] <= stages["answer"]
    assert stages["answer"] <= stages["first_audio"] < 3.0
    assert "first audio" in format_turns([turn])
    lines = [rec.getMessage() for rec in caplog.records if rec.getMessage().startswith("turn ")]
    assert any(line.startswith("turn ") and "asr " in line and "tts " in line for line in lines)
