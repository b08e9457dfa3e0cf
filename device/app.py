"""The single asyncio process: states IDLE → LISTENING → THINKING → SPEAKING → IDLE.

One inbox of `Event`s (GPIO threads, keyboard, book player, signals); the `App` is its
only consumer. Text turns, corrections and tool calls from the control socket reach it
through its public methods `ask`, `inject`, `call_tool` and `status`. A press while THINKING or SPEAKING is a barge-in: the turn is cancelled
(`Agent.run` gets a cancel event) and LISTENING starts. The book is held while the person
talks and ducked (or held) while the assistant speaks, then let go; a pause the turn asked
for stays, because holding acts on the mixer's book channel, not on the player.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from .asr import Recogniser
from .audio_in import Capture, CaptureGuard
from .audio_out import BookMode, Mixer
from .button import ButtonSource, Gesture, PushToTalk
from .events import Event, EventType, Inbox
from .listening import Heard, Listening
from .systemd import Notifier
from .texts import say
from .tts import Synthesiser

_LOGGER = logging.getLogger(__name__)

SPECULATE_AFTER_SECONDS = 0.4
"""A partial transcript unchanged this long while the button is held starts the first model
step on it (the person has most likely stopped speaking; a change stops that step)."""


class AppState(StrEnum):
    """The App's state; the book player keeps its own."""

    STARTING = "starting"
    IDLE = "idle"
    LISTENING = "listening"
    THINKING = "thinking"
    SPEAKING = "speaking"
    STOPPING = "stopping"


class TurnAgent(Protocol):
    """What the App needs of `agent.Agent`."""

    async def run(
        self, utterance: str, *, cancel: asyncio.Event | None = None, on_step: Any = None
    ) -> Any:
        """Run one ReAct turn; returns a TurnResult (answer, steps, error, cancelled...)."""
        ...

    def inject(self, text: str) -> None:
        """Queue a human correction into the running or next turn."""
        ...


class BookPlayer(Protocol):
    """What the App needs of `player.Player`."""

    state: Any

    async def pause(self) -> Any:
        """Pause the book."""
        ...

    async def resume(self) -> Any:
        """Resume the book."""
        ...

    async def close(self) -> None:
        """Stop, save bookmarks, cancel downloads."""
        ...


@dataclass(frozen=True)
class Timings:
    """Push-to-talk timings in seconds (from `ButtonConfig`)."""

    tap_seconds: float = 0.35
    bounce_seconds: float = 0.05
    max_utterance_seconds: float = 20.0
    release_tail_seconds: float = 0.3
    speech_timeout: float = 120.0


def earcon(sample_rate: int = 16000, *, seconds: float = 0.08, hz: float = 880.0) -> bytes:
    """A short soft beep confirming that the microphone is open (mono S16_LE)."""
    t = np.arange(int(sample_rate * seconds)) / sample_rate
    envelope = np.minimum(1.0, np.minimum(t, seconds - t) / 0.01)
    return (np.sin(2 * np.pi * hz * t) * envelope * 6000).astype("<i2").tobytes()


class App:
    """The device runtime's state machine; every part is injected (fakes in tests)."""

    def __init__(
        self,
        inbox: Inbox,
        mixer: Mixer,
        agent: TurnAgent,
        *,
        player: BookPlayer | None = None,
        capture: Capture | None = None,
        recogniser: Recogniser | None = None,
        synthesiser: Synthesiser | None = None,
        buttons: Sequence[ButtonSource] = (),
        notifier: Notifier | None = None,
        registry: Any = None,
        trace: Any = None,
        language: str = "zh",
        timings: Timings = Timings(),
        earcon_enabled: bool = True,
        speculate: bool = True,
    ) -> None:
        self.inbox = inbox
        self.mixer = mixer
        self.agent = agent
        if hasattr(agent, "defer_trace"):
            # The trace waits for the first audio sample: this App calls agent.finish.
            agent.defer_trace = True
        self.player = player
        self.capture = capture
        self.guard = CaptureGuard(capture) if capture is not None else None
        self.recogniser = recogniser
        self.synthesiser = synthesiser
        self.buttons = {b.name: b for b in buttons}
        self.notifier = notifier or Notifier("")
        self.registry = registry
        self.trace = trace
        # An agent with a trace of its own records every turn it finishes (cancelled too);
        # the App records what it cannot: a task cancelled mid-turn, a raised error.
        self._agent_traces = getattr(agent, "trace", None) is not None
        self._cancel_reason = ""
        self.language = language
        self.timings = timings
        self.earcon_enabled = earcon_enabled
        self.speculate = speculate
        """Start the agent's first model step on the partial transcript while the release
        tail is recorded (`agent.speculate`)."""
        self.ptt = PushToTalk(
            tap_seconds=timings.tap_seconds,
            bounce_seconds=timings.bounce_seconds,
            max_utterance_seconds=timings.max_utterance_seconds,
        )
        self.state = AppState.STARTING
        self.history: list[AppState] = [self.state]
        self.state_changed = asyncio.Event()
        self.ready_at = math.inf
        self.turns = 0
        self.barge_ins = 0
        self.last_turn: dict[str, Any] = {}
        self.last_heard: Heard | None = None
        self._listening: Listening | None = None
        self._turn: asyncio.Task[Any] | None = None
        self._cancel: asyncio.Event | None = None
        self._speech_cancel = threading.Event()
        self._startup_ignored = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        mixer.on_change = self._speaker_changed

    # -- state ---------------------------------------------------------------------------

    def _set_state(self, state: AppState) -> None:
        if state == self.state:
            return
        _LOGGER.info("%s → %s", self.state, state)
        self.state = state
        self.history.append(state)
        self.state_changed.set()
        self.state_changed = asyncio.Event()
        self.notifier.status(self.status_line())

    def status_line(self) -> str:
        """One line for ``systemctl status``."""
        book = getattr(self.player, "state", None) if self.player else None
        line = f"{self.state}; book {book or 'none'}"
        if not self.mixer.output_ok and self.mixer.last_error:
            line += "; speaker unavailable"
        return line

    def _speaker_changed(self, ok: bool, error: str) -> None:
        """From the mixer thread: the speaker failed or came back; refresh STATUS."""
        loop = self.inbox.loop
        if not loop.is_closed():
            loop.call_soon_threadsafe(lambda: self.notifier.status(self.status_line()))

    def status(self) -> dict[str, Any]:
        """Facts for ``xiaoting status``."""
        return {
            "ok": True,
            "state": str(self.state),
            "player": str(getattr(self.player, "state", "")) if self.player else None,
            "book_mode": str(self.mixer.mode),
            "turns": self.turns,
            "barge_ins": self.barge_ins,
            "underruns": self.mixer.underruns,
            "speaker_ok": self.mixer.output_ok,
            "speaker_error": self.mixer.last_error,
            "speaker": "ok" if self.mixer.output_ok else "unavailable",
            "audio": _audio_facts(self.mixer),
            "player_health": _book_facts(self.player),
            "microphone_error": self.guard.last_error if self.guard and self.guard.failing else "",
            "buttons": sorted(self.buttons),
            "language": self.language,
            **book_facts(self.player),
            "last_turn": self.last_turn,
        }

    async def wait_state(self, state: AppState) -> None:
        """Return once the App is in `state` (tests bound this with `asyncio.wait_for`)."""
        while self.state != state:
            await self.state_changed.wait()

    # -- main loop -----------------------------------------------------------------------

    async def run(self) -> int:
        """Serve until a STOP event; returns the exit status (0)."""
        watchdog = asyncio.create_task(self.notifier.watchdog(self.healthy), name="watchdog")
        self.ready_at = time.monotonic()
        self._set_state(AppState.IDLE)
        self.notifier.ready(self.status_line())
        try:
            while True:
                event = await self._next_event()
                if event is None:
                    continue
                if event.type == EventType.STOP:
                    _LOGGER.info("stopping (%s)", event.source or "request")
                    break
                await self._dispatch(event)
        finally:
            watchdog.cancel()
            await self._shutdown()
        return 0

    def healthy(self) -> bool:
        """True while the mixer's writer thread is alive (the loop itself is pinging)."""
        thread = self.mixer._thread
        return thread is None or thread.is_alive()

    def request_stop(self, source: str = "request") -> None:
        """Ask the loop to stop (thread-safe; used by signal handlers)."""
        self.inbox.post(Event(EventType.STOP, source=source))

    async def _next_event(self) -> Event | None:
        timers = [t for t in (self.ptt.deadline, self.ptt.check_at) if t is not None]
        wait = None if not timers else max(0.0, min(timers) - time.monotonic())
        try:
            return await asyncio.wait_for(self.inbox.get(), wait)
        except TimeoutError:
            now = time.monotonic()
            if self.ptt.check_at is not None and now >= self.ptt.check_at:
                await self._settle(now)
            gesture = self.ptt.expire(now)
            if gesture is not None:
                _LOGGER.info(
                    "button held past %.0f s: utterance ended", self.timings.max_utterance_seconds
                )
                await self._gesture(gesture, now)
            return None

    async def _settle(self, now: float) -> None:
        levels = [b.is_pressed() for b in self.buttons.values()]
        gesture = self.ptt.settle(any(levels), now)
        if gesture is not None:
            _LOGGER.debug("button level settled: %s", gesture)
            await self._gesture(gesture, now)

    async def _dispatch(self, event: Event) -> None:
        if event.type in (EventType.BUTTON_DOWN, EventType.BUTTON_UP):
            if event.time < self.ready_at:
                self._startup_ignored += 1
                if self._startup_ignored == 1:
                    _LOGGER.info("button pressed during start-up: ignored")
                return
            gesture = self.ptt.edge(event.type == EventType.BUTTON_DOWN, event.time)
            if gesture is None:
                if self.ptt.bounces:
                    _LOGGER.debug("button edge ignored (bounce #%d)", self.ptt.bounces)
                return
            await self._gesture(gesture, event.time)
        elif event.type == EventType.PLAYER_STATE:
            _LOGGER.info("book: %s", event.data)
            self.notifier.status(self.status_line())

    async def _gesture(self, gesture: Gesture, t: float) -> None:
        if gesture == Gesture.TALK:
            await self._start_listening()
        elif gesture == Gesture.TAP:
            await self._tap()
        elif gesture in (Gesture.END, Gesture.TIMEOUT):
            self._end_listening(t if gesture == Gesture.END else time.monotonic())

    # -- listening -----------------------------------------------------------------------

    async def _start_listening(self) -> None:
        if self.state in (AppState.THINKING, AppState.SPEAKING):
            self.barge_ins += 1
            _LOGGER.info("barge-in during %s: turn cancelled", self.state)
            await self._cancel_turn()
        if self._listening is not None:
            self._listening.abort()
        self.mixer.voice.stop()
        self.mixer.set_book_mode(BookMode.HOLD)
        if self.earcon_enabled:
            self.mixer.voice.write(earcon(), 16000)
        self._listening = Listening(self.guard, self.recogniser)
        self._watch_partials(self._listening)
        self._set_state(AppState.LISTENING)

    def _watch_partials(self, listening: Listening) -> None:
        """Start the agent's first step on the partial transcript (`agent.speculate`): once
        it has not changed for `SPECULATE_AFTER_SECONDS` while the button is still held
        (the person has stopped speaking), and at once on every change after release."""
        speculation = self._speculation()
        if speculation is None:
            return
        listening.speculation = speculation
        loop = asyncio.get_running_loop()
        timer: asyncio.TimerHandle | None = None

        def settled() -> None:
            if listening.on_partial is changed and listening.released_at is None:
                speculation.guess(listening.partial)

        def changed(text: str) -> None:
            nonlocal timer
            if timer is not None:
                timer.cancel()
            if listening.released_at is not None:
                speculation.guess(text)
            else:
                timer = loop.call_later(SPECULATE_AFTER_SECONDS, settled)

        listening.on_partial = changed

    async def _tap(self) -> None:
        if self._listening is not None:
            self._listening.abort()
            self._listening = None
        self.mixer.voice.stop()
        book = str(getattr(self.player, "state", "")) if self.player else ""
        try:
            if book == "playing":
                _LOGGER.info("tap: pausing the book")
                await self.player.pause()  # type: ignore[union-attr]
            elif book == "paused":
                _LOGGER.info("tap: resuming the book")
                await self.player.resume()  # type: ignore[union-attr]
            else:
                _LOGGER.info("tap: no book to pause or resume (%s)", book or "no player")
        except Exception as err:
            _LOGGER.warning("tap: %s", err)
        self.mixer.set_book_mode(BookMode.PLAY)
        self._set_state(AppState.IDLE)

    def _end_listening(self, released_at: float) -> None:
        listening, self._listening = self._listening, None
        if listening is None or self.state != AppState.LISTENING:
            if listening is not None and listening.speculation is not None:
                listening.speculation.close()
                listening.speculation = None
            return
        self._cancel = asyncio.Event()
        self._speech_cancel = threading.Event()
        self._set_state(AppState.THINKING)
        self._turn = asyncio.create_task(self._voice_turn(listening, released_at), name="turn")

    async def _voice_turn(self, listening: Listening, released_at: float) -> None:
        speculation = listening.speculation
        listening.speculation = None  # this turn closes it
        if speculation is not None:
            listening.released_at = released_at
            speculation.guess(listening.partial)
        try:
            heard = await listening.finish(
                self.timings.release_tail_seconds, released_at=released_at
            )
        except asyncio.CancelledError:
            listening.abort()
            if speculation is not None:
                speculation.close()
            raise
        finally:
            listening.on_partial = None
        if speculation is not None:
            try:
                if not speculation.settle(heard.transcript):
                    speculation = None
                await self._heard(heard, released_at)
            finally:
                if speculation is not None:
                    speculation.close()
            return
        await self._heard(heard, released_at)

    def _speculation(self) -> Any:
        """A `Speculation` for this turn's agent, or None (off, or no local model)."""
        if not self.speculate or not hasattr(self.agent, "registry"):
            return None
        from agent.speculate import Speculation

        speculation = Speculation(self.agent)
        return speculation if speculation.enabled else None

    async def _heard(self, heard: Heard, released_at: float) -> None:
        self.last_heard = heard
        _LOGGER.info(
            "heard %.1f s (%s, peak %d): %r",
            heard.seconds,
            heard.level,
            heard.peak,
            heard.transcript,
        )
        if not heard.transcript:
            await self._say(say("no_mic" if not heard.mic_ok else "not_heard", self.language))
            self._finish_turn()
            return
        marks = {"release": released_at, "transcript": heard.finished_at or time.monotonic()}
        await self._agent_turn(heard.transcript, marks=marks)

    # -- the turn ------------------------------------------------------------------------

    def _trace_unfinished(
        self, utterance: str, started: float, *, error: str, cancelled: bool, answer: str = ""
    ) -> None:
        """Write a turn the agent could not record itself (cancelled, failed, no model)."""
        if self.trace is None:
            return
        try:
            self.trace.write(
                {
                    "time": time.time(),
                    "utterance": utterance,
                    "answer": answer,
                    "backend": "none",
                    "elapsed_ms": round((time.monotonic() - started) * 1000, 1),
                    "tokens": 0,
                    "error": error,
                    "cancelled": cancelled,
                    "steps": [],
                }
            )
        except Exception:
            _LOGGER.exception("could not write the trace")

    async def _agent_turn(
        self, utterance: str, *, speak: bool = True, marks: dict[str, float] | None = None
    ) -> dict[str, Any]:
        """One turn. `marks` (stage -> time.monotonic(): release, transcript) go on the
        agent's TurnResult with the first audio sample; the agent then logs the timing
        line and writes the trace (`Agent.finish`), also when the turn is cut short."""
        holder: list[Any] = []
        try:
            return await self._turn_body(utterance, speak, holder)
        finally:
            self._finish_trace(holder[0] if holder else None, marks or {})

    def _finish_trace(self, result: Any, marks: dict[str, float]) -> None:
        finish = getattr(self.agent, "finish", None)
        if finish is None or not hasattr(result, "mark"):
            return
        for stage, at in marks.items():
            result.mark(stage, at)
        voice = self.mixer.voice
        first = getattr(voice, "first_sample_at", None)
        if first is not None and first >= result.marks.get("answer", first):
            result.mark("first_audio", first)
        try:
            finish(result)
        except Exception:
            _LOGGER.exception("could not record the turn")

    async def _turn_body(self, utterance: str, speak: bool, holder: list[Any]) -> dict[str, Any]:
        self.turns += 1
        _LOGGER.info("turn %d: %r", self.turns, utterance)
        self._set_state(AppState.THINKING)
        started = time.monotonic()
        cancel = self._cancel or asyncio.Event()
        try:
            result = await self.agent.run(utterance, cancel=cancel)
            holder.append(result)
        except asyncio.CancelledError:
            reason = self._cancel_reason or "cancelled"
            _LOGGER.info("turn %d cancelled (%s)", self.turns, reason)
            self._trace_unfinished(utterance, started, error=f"cancelled: {reason}", cancelled=True)
            raise
        except Exception as err:
            _LOGGER.exception("agent turn failed")
            self._trace_unfinished(
                utterance, started, error=f"failed: {type(err).__name__}: {err}", cancelled=False
            )
            result = None
            answer, error, cancelled = (
                say("error", self.language),
                f"{type(err).__name__}: {err}",
                False,
            )
        else:
            answer = getattr(result, "answer", "") or ""
            error = getattr(result, "error", None)
            cancelled = bool(getattr(result, "cancelled", False))
            if not answer and not cancelled:
                answer = say("error", self.language)
            if not self._agent_traces and not cancelled:  # e.g. no model: nobody else writes
                self._trace_unfinished(
                    utterance, started, error=error or "", cancelled=False, answer=answer
                )
        self.last_turn = {
            "utterance": utterance,
            "answer": answer,
            "error": error,
            "cancelled": cancelled,
            "backend": getattr(result, "backend", None),
            "steps": [_step_dict(s) for s in getattr(result, "steps", []) or []],
            "elapsed_ms": round((time.monotonic() - started) * 1000, 1),
        }
        if cancelled:  # a barge-in or shutdown owns the state from here
            reason = self._cancel_reason or "cancelled"
            _LOGGER.info("turn %d cancelled (%s)", self.turns, reason)
            if not self._agent_traces:
                self._trace_unfinished(
                    utterance, started, error=f"cancelled: {reason}", cancelled=True
                )
            return self.last_turn
        if speak:
            await self._say(answer)
        self._finish_turn()
        return self.last_turn

    async def _say(self, text: str) -> None:
        self._set_state(AppState.SPEAKING)
        self.mixer.set_book_mode(BookMode.DUCK)
        if self.synthesiser is None:
            _LOGGER.info("no voice loaded; answer not spoken: %s", text)
            return
        cancel = self._speech_cancel
        voice, synthesiser = self.mixer.voice, self.synthesiser
        voice.begin()

        def work() -> None:
            for speech in synthesiser.sentences(text):
                if cancel.is_set():
                    return
                voice.write(speech.pcm, speech.sample_rate)

        try:
            await asyncio.to_thread(work)
            if not await asyncio.to_thread(voice.wait_idle, self.timings.speech_timeout):
                _LOGGER.warning("speech did not finish within %.0f s", self.timings.speech_timeout)
        except asyncio.CancelledError:
            cancel.set()
            voice.stop()
            raise
        except Exception:
            _LOGGER.exception("speech failed for %r", text)

    def _finish_turn(self) -> None:
        self.mixer.set_book_mode(BookMode.PLAY)
        self._cancel = None
        self._set_state(AppState.IDLE)

    async def _cancel_turn(self, reason: str = "barge-in") -> None:
        self._cancel_reason = reason
        if self._cancel is not None:
            self._cancel.set()
        self._speech_cancel.set()
        self.mixer.voice.stop()
        turn, self._turn = self._turn, None
        if turn is not None and not turn.done():
            turn.cancel()
            with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
                await asyncio.wait_for(turn, 1.0)
        self._cancel = None

    # -- requests from the control socket -----------------------------------------------

    async def ask(
        self, text: str, *, speak: bool = True, language: str | None = None
    ) -> dict[str, Any]:
        """Run a text turn as if `text` had been heard; waits for it to end.

        Returns ``{"ok": True, "utterance", "answer", "error", "cancelled", "backend",
        "steps", "elapsed_ms"}``, or ``{"ok": False, "error"}`` when the App is not idle
        (another turn, listening, starting), the turn was cancelled, or `language` is not
        the one the App speaks (its prompts, voice and recogniser are loaded for one).
        """
        if language is not None and language != self.language:
            return {
                "ok": False,
                "error": say(
                    "other_language", self.language, service=self.language, asked=language
                ),
            }
        if self.state != AppState.IDLE:
            return {"ok": False, "error": say("busy", self.language, state=self.state)}
        self._cancel = asyncio.Event()
        self._speech_cancel = threading.Event()
        self._turn = asyncio.create_task(self._agent_turn(text, speak=speak), name="turn")
        try:
            turn = await asyncio.shield(self._turn)
        except asyncio.CancelledError:
            return {"ok": False, "error": say("turn_cancelled", self.language)}
        return {"ok": True, **turn}

    def inject(self, text: str) -> dict[str, Any]:
        """Queue a human correction into the running or next turn; ``{"ok": True}``."""
        self.agent.inject(text)
        _LOGGER.info("correction injected: %s", text)
        return {"ok": True}

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call one tool of the registry: ``{"ok", "text", "elapsed_ms", "message", "data"}``, or ``{"ok":
        False, "error"}`` when there is no such tool."""
        registry = self.registry
        if registry is None or registry.get(name) is None:
            known = ", ".join(registry.names()) if registry is not None else "-"
            return {"ok": False, "error": say("no_tool", self.language, name=name, known=known)}
        result = await registry.call(name, arguments, caller="control")
        return {"ok": result.ok, "text": result.text, "elapsed_ms": result.elapsed_ms,
                "message": result.message, "data": result.data}  # fmt: skip

    # -- shutdown ------------------------------------------------------------------------

    async def _shutdown(self) -> None:
        self._set_state(AppState.STOPPING)
        self.notifier.stopping()
        self.inbox.close()
        if self._listening is not None:
            self._listening.abort()
            await asyncio.to_thread(self._listening.join, 1.0)
        await self._cancel_turn("shutdown")
        for button in self.buttons.values():
            with contextlib.suppress(Exception):
                button.close()
        if self.player is not None:
            try:
                await asyncio.wait_for(self.player.close(), 3.0)
                _LOGGER.info("bookmarks saved")
            except TimeoutError:
                _LOGGER.error("player did not close within 3 s; bookmarks may be stale")
            except Exception:
                _LOGGER.exception("player close failed")
        await asyncio.to_thread(self.mixer.close, 1.0)
        if self.capture is not None:
            with contextlib.suppress(Exception):
                self.capture.close()
        self.notifier.close()
        _LOGGER.info("stopped")


def book_facts(player: Any) -> dict[str, Any]:
    """What `xiaoting status` shows of the book: album (its title, and `album_name`, the
    name the answers speak it by in the configured language, when that differs), episode,
    `chapter` (true when the episode is a chapter of a file), its title when it is words
    worth speaking (`player.texts.episode_title`: "" for "第02集" or a file name's slug),
    position (s), the book's speed and intro/outro skips (s), volume (%), the sleep timer
    (minutes left, or at the end of the episode), downloads. Keys whose facts the player
    does not have are left out."""
    facts: dict[str, Any] = {}
    now = getattr(player, "now", None)
    if now is not None:
        from player.texts import episode_title

        with contextlib.suppress(AttributeError):
            facts["album"] = now.detail.album.title
            spoken_title = getattr(player, "spoken_title", None)
            spoken = spoken_title(facts["album"]) if spoken_title else facts["album"]
            if spoken != facts["album"]:
                facts["album_name"] = spoken
            facts["episode"] = now.episode.section
            facts["chapter"] = bool(now.episode.is_chapter)
            facts["episode_title"] = episode_title(now.episode, now.detail.album.title)
            facts["position_s"] = round(float(getattr(now, "position", now.playback.position)), 1)
            speed, intro, outro = player.book_settings(now.detail.album)
            facts.update(speed=speed, intro_s=intro, outro_s=outro)
    if getattr(player, "sleep_at_end", False):
        facts["sleep"] = "end_of_episode"
    elif isinstance(left := getattr(player, "sleep_left", None), int | float):
        facts["sleep_minutes"] = max(1, round(left / 60))
    volume = getattr(player, "volume", None)
    if isinstance(volume, int | float):
        facts["volume_percent"] = round(volume * 100)
    downloader = getattr(player, "downloader", None)
    if downloader is not None and hasattr(downloader, "active"):
        with contextlib.suppress(Exception):
            facts["downloads"] = [
                {
                    "album": job.title.rsplit(" #", 1)[0],
                    "episode": job.episode.section,
                    "percent": job.percent if job.total else None,
                    "mb": round(job.done / 1e6, 1),
                }
                for job in downloader.active()
            ]
    return facts


def _step_dict(step: Any) -> dict[str, Any]:
    if isinstance(step, dict):
        return step
    if hasattr(step, "to_dict"):
        return step.to_dict()
    fields = ("thought", "action", "action_input", "observation", "elapsed_ms")
    return {f: getattr(step, f) for f in fields if hasattr(step, f)}


def _audio_facts(mixer: Mixer) -> dict[str, Any]:
    """Period, buffer and underrun figures of the playback device for ``xiaoting status``."""
    output = mixer.output
    rate = mixer.sample_rate or 1
    period = int(getattr(output, "period_frames", mixer.period_frames))
    buffer = int(getattr(output, "buffer_frames", 0))
    return {
        "underruns": mixer.underruns,
        "short_writes": int(getattr(output, "short_writes", 0)),
        "period_ms": round(1000 * period / rate, 1),
        "buffer_ms": round(1000 * buffer / rate, 1) if buffer else None,
        "book_queued_ms": round(1000 * mixer.book.queued_seconds, 1),
        "longest_write_gap_ms": round(1000 * mixer.longest_gap, 1),
    }


def _book_facts(player: Any) -> dict[str, Any] | None:
    health = getattr(player, "health", None)
    if not callable(health):
        return None
    try:
        return health()
    except Exception as err:  # status must answer even when the player is in trouble
        return {"error": str(err)}
