"""`xiaoting run`: build every part from the config, load the models once, serve.

Start-up checks log one clear line per missing part and keep the rest working: no GPIO →
keyboard and control socket; no microphone → text turns over the socket; no Vosk model →
no voice turns; no piper voice → answers are logged, not spoken.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import signal
import sys
import threading
import time
import tomllib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .app import App, BookPlayer, Timings, TurnAgent
from .asr import AsrError, Recogniser, VoskRecogniser, phrase_list
from .audio_in import AlsaCapture, Capture
from .audio_out import AlsaPlayback, Mixer, PcmOutput
from .button import ButtonError, ButtonSource, GpioButton, KeyboardButton
from .config import Config
from .control import ControlServer, socket_path
from .events import Event, EventType, Inbox
from .lock import ServiceLock
from .systemd import Notifier
from .texts import say
from .tts import CachedSynthesiser, PiperSynthesiser, Synthesiser, TtsError

_LOGGER = logging.getLogger(__name__)

AgentFactory = Callable[[Config, Any], Any]
"""(config, ToolRegistry) -> an `agent.Agent` (or an awaitable of one): `run` and `inject`."""

AgentWrapper = Callable[[Any], Any]
"""Wraps the agent that was built (e.g. to print each step), keeping `run` and `inject`."""


def vosk_model_path(config: Config) -> Path:
    """The Vosk model directory for the configured language."""
    return config.path("models_dir") / config.asr_model


def piper_voice_path(config: Config) -> Path:
    """The piper voice (.onnx) for the configured language."""
    name = config.tts_voice
    return config.path("models_dir") / (name if name.endswith(".onnx") else f"{name}.onnx")


def load_recogniser(config: Config, titles: Sequence[str] = ()) -> Recogniser | None:
    """The Vosk recogniser, or None (logged in one line) when the model is missing."""
    phrases = phrase_list(config.language, titles) if config.asr.phrase_list else None
    try:
        return VoskRecogniser(vosk_model_path(config), phrases=phrases)
    except AsrError as err:
        if config.audio.capture_device == "null":  # typed requests only, as doctor says
            _LOGGER.info(
                'speech recognition off: no microphone (audio.capture_device = "null"); '
                "typed requests only"
            )
        else:
            _LOGGER.warning("speech recognition off: %s", err)
        return None


def load_synthesiser(config: Config) -> Synthesiser | None:
    """The piper voice, or None (logged in one line) when it is missing."""
    path = piper_voice_path(config)
    try:
        voice = PiperSynthesiser(path, length_scale=config.tts.length_scale)
    except TtsError as err:
        _LOGGER.warning("speech output off: %s", err)
        return None
    # Recurring answers start at once: their audio is kept by text and voice.
    stat = path.stat()
    cached = CachedSynthesiser(
        voice,
        voice_id=f"{path.name}|{stat.st_size}|{stat.st_mtime_ns}|{config.tts.length_scale}",
        # Under state_dir: the player owns cache_dir and removes files it does not know.
        directory=config.path("state_dir") / "tts-cache",
    )
    phrases = [say(key, config.language) for key in ("not_heard", "no_mic", "error")]
    threading.Thread(target=_prepare, args=(cached, phrases), name="tts-cache", daemon=True).start()
    return cached


def _prepare(cached: CachedSynthesiser, phrases: list[str]) -> None:
    try:
        made = cached.prepare(phrases)
        if made:
            _LOGGER.info("speech: %d fixed phrases synthesised and kept", made)
    except Exception as err:  # a voice that fails here fails visibly at its first answer
        _LOGGER.debug("fixed phrases not prepared: %s", err)


def make_buttons(config: Config, inbox: Inbox, *, pin_factory: Any = None) -> list[ButtonSource]:
    """GPIO and/or keyboard push-to-talk; each one that cannot start is logged and skipped."""
    buttons: list[ButtonSource] = []
    if config.button.gpio:
        try:
            buttons.append(
                GpioButton(
                    inbox,
                    config.button.pin,
                    pull_up=config.button.pull_up,
                    bounce_time=config.button.bounce_time,
                    pin_factory=pin_factory or config.button.pin_factory or None,
                )
            )
        except ButtonError as err:
            _LOGGER.warning("GPIO button off (keyboard and control socket still work): %s", err)
    if config.button.keyboard:
        try:
            buttons.append(KeyboardButton(inbox))
        except ButtonError as err:
            _LOGGER.info("%s", err)
    return buttons


def llm_model_path(config: Config) -> Path:
    """The local GGUF model for `llm.model` (an id from models/manifest.toml)."""
    name = config.llm.model
    return config.path("models_dir") / (name if name.endswith(".gguf") else f"{name}.gguf")


class UnavailableModel:
    """A chat model that is not there: every `complete` raises ModelUnavailable."""

    name = "none"
    supports_grammar = False
    n_ctx: int | None = None

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def complete(self, messages: Any, **_: Any) -> Any:
        """Raise ModelUnavailable with the reason (no model file, no key)."""
        from agent.errors import ModelUnavailable

        raise ModelUnavailable(self.reason)


class NoModelAgent:
    """Stands in when neither a local model file nor a remote key exists.

    With a `registry`, short commands still work through the fast path ("暂停", "大声点",
    "下一集"); anything else is answered with one sentence saying the model is missing.
    """

    def __init__(self, language: str, reason: str, registry: Any = None, **options: Any) -> None:
        self.answer = (
            "语言模型不可用。" if language == "zh" else "The language model is not available."
        )
        self.reason = reason
        self.registry = registry
        self._agent = None
        if registry is not None:
            from agent.loop import Agent

            self._agent = Agent(
                registry, UnavailableModel(reason), language=language, grammar=False, **options
            )
        self.trace = getattr(self._agent, "trace", None)

    async def run(self, utterance: str, *, cancel: Any = None, on_step: Any = None) -> Any:
        """The fast path's answer, or one saying no model is available."""
        if self._agent is not None:
            return await self._agent.run(utterance, cancel=cancel, on_step=on_step)
        from types import SimpleNamespace

        return SimpleNamespace(
            utterance=utterance,
            answer=self.answer,
            steps=[],
            backend="none",
            elapsed_ms=0.0,
            error=self.reason,
            cancelled=False,
        )

    def inject(self, text: str) -> None:
        """Nothing to correct without a model."""


def make_trace(config: Config) -> Any:
    """The turn trace under the state directory (`xiaoting trace` reads it)."""
    from agent.trace import TraceWriter

    return TraceWriter(config.path("state_dir"), config.trace_max_mb << 20)


async def default_agent(
    config: Config, registry: Any, *, warm: bool = True, trace: Any = None
) -> tuple[TurnAgent, list[Any]]:
    """`agent.Agent` over the configured chat model(s): local llama.cpp and/or DeepSeek.

    Returns the agent and the chat models it uses (for their owner to close). The local
    model is loaded here, once. A missing or unloadable local file without a remote key is
    logged in one line and gives a `NoModelAgent`; no remote key means local only.
    """
    from agent.errors import ModelUnavailable
    from agent.local import LocalModel
    from agent.loop import Agent
    from agent.models import build_model
    from agent.remote import RemoteModel

    llm = config.llm
    local = None
    path = llm_model_path(config)
    if config.llm.policy != "remote":
        if path.is_file():
            for old in (config.path("state_dir") / "llm-state").glob("*.llama-state"):
                old.unlink(missing_ok=True)  # saved before there was one per language
            local = LocalModel(
                path,
                n_ctx=llm.n_ctx,
                n_threads=llm.n_threads,
                max_tokens=llm.max_tokens,
                temperature=llm.temperature,
                grammar=llm.grammar,
                jump_forward=llm.jump_forward,
                thought_tokens=llm.thought_tokens,
                # one saved prompt per language: the prompts differ from their first
                # tokens, and a service switched between zh and en keeps both
                state_dir=config.path("state_dir") / "llm-state" / config.language,
            )
            try:
                await local.load()
                # The configured step timeout is the floor; a slow board's measured rate
                # raises the budget above it (max_tokens at the rate, twice over).
                local.budget_floor = llm.step_timeout
                speed = await local.probe(steps=8)
                _LOGGER.info(
                    "llama.cpp here: %.1f decode steps/s, %.0f prompt tokens/s (%d threads); "
                    "step budget %.0f s",
                    speed["decode_tps"],
                    speed["prefill_tps"],
                    speed["threads"],
                    local.budget or llm.step_timeout,
                )
            except ModelUnavailable as err:
                _LOGGER.warning("local model unusable: %s", err)
                local = None
        else:
            _LOGGER.warning("local model missing: %s", path)
    remote = None
    if config.remote_enabled and config.llm.policy != "local":
        r = config.remote
        remote = RemoteModel(
            base_url=r.base_url,
            api_key=r.api_key,
            model=r.model,
            connect_timeout=r.connect_timeout,
            first_token_timeout=r.first_token_timeout,
            total_timeout=r.total_timeout,
            max_retries=r.max_retries,
            temperature=llm.temperature,
            max_tokens=llm.max_tokens,
            max_tokens_ceiling=r.max_tokens_ceiling,
            reasoning=r.flag(r.reasoning),
            tool_calls=r.flag(r.tool_calls),
        )
    elif config.llm.policy != "local":
        _LOGGER.info("no remote API key: local model only")
    backends = [m for m in (local, remote) if m is not None]
    try:
        model = build_model(
            llm.policy,
            local,
            remote,
            step_timeout=llm.step_timeout,
            breaker_failures=config.remote.breaker_failures,
            breaker_seconds=config.remote.breaker_seconds,
        )
    except ValueError as err:
        _LOGGER.warning("no language model (short commands still work): %s", err)
        agent = NoModelAgent(
            config.language,
            str(err),
            registry,
            fast_path=llm.fast_path,
            trace=trace or make_trace(config),
        )
        return agent, backends
    agent = Agent(
        registry,
        model,
        language=config.language,
        max_rounds=llm.max_rounds,
        grammar=llm.grammar,
        fast_path=llm.fast_path,
        max_tokens=llm.max_tokens,
        n_ctx=llm.n_ctx,
        step_timeout=llm.step_timeout,
        trace=trace or make_trace(config),
    )
    if local is not None and warm:
        # The system prompt into the KV cache now, so the first turn does not pay for it.
        started = time.perf_counter()
        _LOGGER.info(
            "caching the system prompt (with no saved state, minutes on a Pi: requests wait)"
        )
        try:
            await agent.warm()
            _LOGGER.info("system prompt cached in %.1f s", time.perf_counter() - started)
        except Exception as err:
            _LOGGER.warning("could not pre-fill the system prompt: %s", err)
    return agent, [model, *backends]


@dataclass(eq=False)
class Runtime:
    """Everything `xiaoting run` builds at start, owned in one place and closed by `close`.

    `app` is the state machine; `agent`, `registry`, `player`, `mixer` and the chat
    `models` are the parts it drives; `control` is the control socket (None for an
    in-process command, which calls the App's methods directly); `closers` end what
    `start_mcp` started. `close` is safe to call twice and after a failed start.
    """

    config: Config
    app: App
    agent: TurnAgent
    registry: Any
    player: BookPlayer | None
    mixer: Mixer
    models: list[Any] = field(default_factory=list)
    trace: Any = None
    control: ControlServer | None = None
    closers: list[Callable[[], Awaitable[Any]]] = field(default_factory=list)
    closed: bool = False

    async def start_control(self) -> None:
        """Listen on the control socket; a failure is one warning and the App runs on."""
        if self.control is None:
            return
        try:
            await self.control.start()
        except OSError as err:
            _LOGGER.warning("control socket unavailable: %s", err)
            self.control = None

    async def serve(self) -> int:
        """Run the App until a STOP event, then close everything; the exit status."""
        try:
            return await self.app.run()
        finally:
            await self.close()

    async def close(self) -> None:
        """Close the control socket, MCP, player, mixer and chat models (each bounded)."""
        if self.closed:
            return
        self.closed = True
        if self.control is not None:
            await self.control.close()
        for close in self.closers:
            try:
                await asyncio.wait_for(close(), 5)
            except Exception as err:
                _LOGGER.warning("shutdown of %s: %s", getattr(close, "__qualname__", close), err)
        if self.player is not None:  # already closed by the App's shutdown when it ran
            try:
                await asyncio.wait_for(self.player.close(), 3.0)
            except Exception as err:
                _LOGGER.warning("player close: %s", err)
        await asyncio.to_thread(self.mixer.close, 1.0)
        seen: set[int] = set()
        for model in self.models:
            if id(model) in seen or not hasattr(model, "close"):
                continue
            seen.add(id(model))
            try:
                if inspect.iscoroutinefunction(model.close):
                    await asyncio.wait_for(model.close(), 5)
                else:
                    await asyncio.to_thread(model.close)
            except Exception as err:
                _LOGGER.warning("closing the chat model %s: %s", type(model).__name__, err)


async def build(
    config: Config,
    *,
    agent: TurnAgent | None = None,
    agent_factory: AgentFactory | None = None,
    wrap_agent: AgentWrapper | None = None,
    load_model: bool = True,
    warm: bool = True,
    player: BookPlayer | None = None,
    output: PcmOutput | None = None,
    capture: Capture | None = None,
    recogniser: Recogniser | bool | None = True,
    synthesiser: Synthesiser | bool | None = True,
    buttons: Sequence[ButtonSource] | None = None,
    inbox: Inbox | None = None,
    notifier: Notifier | None = None,
    control: bool = True,
) -> Runtime:
    """Every part from `config`, as a `Runtime`; any part may be passed in instead (tests).

    `recogniser`/`synthesiser` True means "load from models_dir", None means "none".
    `load_model=False` gives a `NoModelAgent` (commands that only call tools); `warm`
    pre-fills the system prompt; `control=False` opens no control socket.
    Raises only on programming errors; missing hardware and models are logged.
    """
    inbox = inbox or Inbox()
    if buttons is None:
        buttons = make_buttons(config, inbox)  # early, so presses during start-up are seen
    audio = config.audio
    mixer = Mixer(
        output
        or AlsaPlayback(
            audio.playback_device,
            sample_rate=audio.playback_rate,
            channels=2,
            period_frames=audio.period_frames,
        ),
        period_frames=audio.period_frames,
        duck_volume=audio.duck_volume,
    )
    mixer.start()
    if capture is None:
        capture = AlsaCapture(
            audio.capture_device, period_frames=audio.period_frames, gain=audio.capture_gain
        )
    if player is None:
        from .library import log_survey

        player = await _make_player(config, mixer)
        await asyncio.to_thread(log_survey, list(config.library.paths))
    titles: list[str] = []
    if player is not None and hasattr(player, "titles"):
        try:
            titles = list(player.titles())
        except Exception as err:
            _LOGGER.warning("album titles unavailable for the phrase list: %s", err)
    loads = []
    if recogniser is True:
        loads.append(asyncio.to_thread(load_recogniser, config, titles))
    if synthesiser is True:
        loads.append(asyncio.to_thread(load_synthesiser, config))
    loaded = list(await asyncio.gather(*loads))
    if recogniser is True:
        recogniser = loaded.pop(0)
    if synthesiser is True:
        synthesiser = loaded.pop(0)
    registry = _make_registry(config, player)
    trace = make_trace(config)
    models: list[Any] = []
    if agent is None:
        if agent_factory is not None:
            made = agent_factory(config, registry)
            agent = await made if inspect.isawaitable(made) else made
        elif load_model:
            agent, models = await default_agent(config, registry, warm=warm, trace=trace)
        else:
            agent = NoModelAgent(config.language, "no model loaded for this command")
    if wrap_agent is not None:
        agent = wrap_agent(agent)
    if player is not None and hasattr(player, "subscribe"):
        player.subscribe(lambda state: inbox.post(Event(EventType.PLAYER_STATE, data=state)))
    app = App(
        inbox,
        mixer,
        agent,
        player=player,
        capture=capture,
        recogniser=recogniser or None,
        synthesiser=synthesiser or None,
        buttons=buttons,
        notifier=notifier or Notifier(),
        registry=registry,
        trace=trace,
        language=config.language,
        speculate=config.llm.speculate,
        timings=Timings(
            tap_seconds=config.button.tap_seconds,
            bounce_seconds=config.button.bounce_time,
            max_utterance_seconds=config.button.max_utterance_seconds,
            release_tail_seconds=config.button.release_tail_seconds,
        ),
    )
    return Runtime(
        config=config,
        app=app,
        agent=agent,
        registry=registry,
        player=player,
        mixer=mixer,
        models=models,
        trace=trace,
        control=ControlServer(socket_path(config.runtime_dir), app) if control else None,
    )


async def _make_player(config: Config, mixer: Mixer) -> BookPlayer | None:
    try:
        from player import Player
    except ImportError as err:
        _LOGGER.warning("book player unavailable: %s", err)
        return None
    lib = config.library
    try:
        player = Player(
            library_paths=list(lib.paths),
            cache_dir=config.path("cache_dir"),
            state_dir=config.path("state_dir"),
            sink=mixer.book,
            feeds=lib.feeds,
            librivox_url=lib.librivox_url if lib.librivox else None,
            json_sources=lib.json_sources,
            source_timeout=lib.source_timeout,
            cache_max_bytes=lib.cache_max_mb << 20,
            bookmark_interval=lib.bookmark_interval,
            prefetch_next=lib.prefetch_next,
            language=config.language,
            volume_percent=config.audio.volume_percent,
            max_volume_percent=config.audio.max_volume_percent,
            min_volume_percent=config.audio.min_volume_percent,
            bedtime=config.audio.bedtime,
            bedtime_max_volume_percent=config.audio.bedtime_max_volume_percent,
        )
        await player.start()
    except Exception as err:
        _LOGGER.warning("book player unavailable: %s", err)
        return None
    return player


def _make_registry(config: Config, player: Any) -> Any:
    from agent.tools import ToolRegistry
    from player.errors import BadInputError, NotFoundError

    registry = ToolRegistry(
        default_timeout=config.llm.tool_timeout,
        max_observation_chars=config.llm.observation_max_chars,
        # a book not held, a chapter past the end: answers the listener hears, not faults
        answers=(NotFoundError, BadInputError),
    )
    if player is not None and hasattr(player, "tools"):
        for func in player.tools():
            registry.add(func)  # return-direct, hints and roles travel with the function
    # The agent lists these album titles in its prompt and admits them as keywords; the
    # listener's context (what plays, bookmarks of named albums) comes with every turn.
    registry.catalog = getattr(player, "titles", None)
    registry.context = getattr(player, "listener_context", None)
    registry.fold = getattr(player, "fold", None)
    registry.index = getattr(player, "title_index", None)
    # the answers the agent composes itself name a book as the tools do, in the language
    registry.spoken = getattr(player, "spoken_title", None)
    return registry


def install_signal_handlers(app: App, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """SIGTERM/SIGINT post STOP into the inbox: turn cancelled, bookmarks saved, exit 0."""
    loop = loop or asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, app.request_stop, signal.Signals(sig).name)


def remove_signal_handlers(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Undo `install_signal_handlers`."""
    loop = loop or asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.remove_signal_handler(sig)


def trace_tool_call(trace: Any) -> Callable[[str, Any], None] | None:
    """A hook writing each call that arrives over MCP (or from the page) to the trace, as a
    one-step turn: ``hook(caller, ToolResult)``; None without a trace."""
    if trace is None:
        return None

    def record(caller: str, result: Any) -> None:
        import time

        trace.write(
            {
                "time": time.time(),
                "utterance": f"[{caller}] {result.name}",
                "answer": result.text,
                "backend": caller,
                "elapsed_ms": round(result.elapsed_ms, 1),
                "tokens": 0,
                "error": None if result.ok else result.text,
                "cancelled": False,
                "steps": [
                    {
                        "index": 1,
                        "kind": "action",
                        "backend": caller,
                        "action": result.name,
                        "arguments": result.arguments,
                        "observation": result.text,
                        "ok": result.ok,
                        "ms": {"tool": round(result.elapsed_ms, 1)},
                    }
                ],
            }
        )

    return record


def mcp_aliases() -> list[Any]:
    """The design note's tool names (`player.tools.NOTE_NAMES`) as MCP-only `ToolAlias`es."""
    from agent.mcp_bridge import ToolAlias
    from player.tools import NOTE_NAMES

    return [
        ToolAlias(note, ours, f"The design note's name for {ours}.")
        for note, ours in NOTE_NAMES.items()
    ]


async def start_mcp(config: Config, rt: Runtime) -> list[Callable[[], Any]]:
    """Connect the configured MCP servers and start the MCP server; returns closers.

    A server that cannot start (a non-loopback address without a token, a port in use) is
    logged in one line and the assistant runs without it.
    """
    registry = rt.registry
    if registry is None or not (config.mcp.servers or config.mcp.serve):
        return []
    from agent.mcp_bridge import McpBridgeError, McpClientManager, McpHttpServer, ServerSpec

    closers: list[Callable[[], Any]] = []
    if config.mcp.servers:
        try:
            specs = [ServerSpec.from_config(s) for s in config.mcp.servers]
        except ValueError as err:
            _LOGGER.error("MCP servers in the config ignored: %s", err)
        else:
            manager = McpClientManager(registry, specs)
            await manager.start()
            closers.append(manager.close)
    if config.mcp.serve:
        try:
            server = McpHttpServer(
                registry,
                host=config.mcp.host,
                port=config.mcp.port,
                token=config.mcp.token,
                on_call=trace_tool_call(rt.trace),
                aliases=mcp_aliases(),
            )
            url = await server.start()
        except McpBridgeError as err:
            _LOGGER.error("MCP server not started: %s", err)
        else:
            _LOGGER.info("MCP server at %s", url)
            closers.append(server.close)
    return closers


async def start_web(config: Config, rt: Runtime) -> list[Callable[[], Any]]:
    """Start the household's page (`device.web`) when ``web.enabled``; returns its closer.

    A page that cannot start (the port in use, aiohttp missing) is logged in one line and
    the assistant runs without it.
    """
    if not config.web.enabled:
        return []
    try:
        from .web.server import WebServer
    except ImportError as err:
        _LOGGER.error("web page not started: %s", err)
        return []
    server = WebServer(
        config,
        app=rt.app,
        player=rt.player,
        registry=rt.registry,
        on_call=trace_tool_call(rt.trace),
    )
    try:
        await server.start()
    except OSError as err:
        _LOGGER.error(
            "web page not started: cannot listen on %s:%d: %s",
            config.web.bind,
            config.web.port,
            err.strerror or err,
        )
        return []
    return [server.close]


async def run(config: Config, *, agent_factory: AgentFactory | None = None) -> int:
    """What ``xiaoting run`` calls: build, load models, serve until SIGTERM; exit status.

    Raises `lock.AlreadyRunning` when another service has the same state directory.
    """
    from .logs import NativeStderr

    with ServiceLock(config.path("state_dir")), NativeStderr():
        warn_readable_secret(config)
        return await _run_locked(config, agent_factory=agent_factory)


def warn_readable_secret(config: Config) -> bool:
    """One warning line when the config file holds an API key and others can read it."""
    source = Path(config.source)
    if not config.remote.api_key or not source.is_file():
        return False
    try:
        mode = source.stat().st_mode
        with source.open("rb") as fh:
            holds_key = bool(tomllib.load(fh).get("remote", {}).get("api_key"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    if holds_key and mode & 0o004:
        _LOGGER.warning(
            "%s holds the remote API key and every user can read it (mode %04o): "
            "chmod 600 it, or set DEEPSEEK_API_KEY in the service environment instead",
            source,
            mode & 0o777,
        )
        return True
    return False


async def _run_locked(config: Config, *, agent_factory: AgentFactory | None) -> int:
    notifier = Notifier()
    notifier.status("loading models")
    # Loading a model on a Pi can outlast WatchdogSec: keep pinging while it loads.
    loading = asyncio.create_task(notifier.watchdog(lambda: True), name="watchdog-loading")
    try:
        rt = await build(config, agent_factory=agent_factory, notifier=notifier)
    finally:
        loading.cancel()
    try:
        rt.closers.extend(await start_mcp(config, rt))
        rt.closers.extend(await start_web(config, rt))
        await rt.start_control()
        install_signal_handlers(rt.app)
    except BaseException:
        await rt.close()
        raise
    try:
        return await rt.serve()
    finally:
        remove_signal_handlers()


def main(config: Config) -> int:
    """Blocking entry for a CLI: `asyncio.run(run(config))`."""
    try:
        return asyncio.run(run(config))
    except KeyboardInterrupt:
        return 130
    finally:
        sys.stdout.flush()
