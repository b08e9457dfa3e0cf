"""What the CLI's `ask`, `tool`, `status`, `inject` and `mcp` commands do.

`ask` and `tool` talk to the running service through its control socket when it answers
(so they never fight it for the sound card); otherwise, or with ``--local``, they start the
same App in this process for the one request, with audio going to the sound card, or to a
WAV file under the state directory when there is none.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from . import control
from .audio_out import AlsaPlayback, PcmOutput, PlaybackError
from .config import Config
from .logs import quiet_stderr
from .texts import say, state_name
from .wav_output import WavFileOutput

_LOGGER = logging.getLogger(__name__)

Printer = Callable[[str], None]


def _print(line: str) -> None:
    print(line, flush=True)


def choose_output(
    config: Config, out: Path | None = None, *, realtime: bool = True, fallback: str = "out.wav"
) -> PcmOutput:
    """The configured ALSA playback device if it opens, else a WAV file (named in the log).

    `out` forces a WAV file; `fallback` names the file under the state directory used when
    there is no sound card. Sample rate and channels follow ``[audio]`` (stereo).
    """
    rate = config.audio.playback_rate
    if out is not None:
        return WavFileOutput(out, sample_rate=rate, channels=2, realtime=realtime)
    alsa = AlsaPlayback(
        config.audio.playback_device,
        sample_rate=rate,
        channels=2,
        period_frames=config.audio.period_frames,
    )
    try:
        with quiet_stderr():
            alsa.open()
        alsa.close()
        return alsa
    except PlaybackError as err:
        path = config.path("state_dir") / fallback
        _LOGGER.warning("no usable sound card (%s); audio goes to %s", err, path)
        return WavFileOutput(path, sample_rate=rate, channels=2, realtime=realtime)


def format_step(step: Any) -> str:
    """One ReAct step as printed by `ask` and `demo`: labels as in the trace, with timings."""
    d = step.to_dict() if hasattr(step, "to_dict") else dict(step)
    ms = d.get("ms", {})
    timing = ", ".join(f"{k} {v:.0f} ms" for k, v in ms.items())
    head = f"  step {d.get('index', '?')} [{d.get('backend', '?')}]" + (
        f" {timing}" if timing else ""
    )
    if d.get("tokens"):
        head += f", {d['tokens']} tokens"
    lines = [head]
    if d.get("thought"):
        lines.append(f"    Thought: {d['thought']}")
    if d.get("action"):
        lines.append(f"    Action: {d['action']}")
        lines.append(
            f"    Action Input: {json.dumps(d.get('arguments') or {}, ensure_ascii=False)}"
        )
    if "observation" in d:
        lines.append(f"    Observation: {d['observation']}")
    if d.get("error"):
        lines.append(f"    Error: {d['error']}")
    if d.get("answer"):
        lines.append(f"    Final Answer: {d['answer']}")
    return "\n".join(lines)


class PrintingAgent:
    """Wraps an agent so that each step is printed as it completes (for `ask` and `demo`)."""

    def __init__(self, agent: Any, printer: Printer = _print) -> None:
        self.agent = agent
        self.printer = printer

    async def run(self, utterance: str, *, cancel: Any = None, on_step: Any = None) -> Any:
        """Run the wrapped agent's turn, printing every step."""

        def show(step: Any) -> None:
            self.printer(format_step(step))
            if on_step is not None:
                on_step(step)

        return await self.agent.run(utterance, cancel=cancel, on_step=show)

    @property
    def trace(self) -> Any:
        """The wrapped agent's trace writer (None when it has none)."""
        return getattr(self.agent, "trace", None)

    def inject(self, text: str) -> None:
        """Pass a correction on."""
        self.agent.inject(text)


@contextlib.asynccontextmanager
async def local_app(
    config: Config,
    *,
    output: PcmOutput | None = None,
    printer: Printer | None = _print,
    speak: bool = True,
    load_agent: bool = True,
    recogniser: Any = None,
    warm: bool = False,
) -> AsyncIterator[Any]:
    """The real App in this process, running, without a control socket.

    `load_agent=False` skips the language model (for `tool`); `speak=False` loads no voice;
    `warm` pre-fills the system prompt (worth it for several turns, not for one).
    Yields the `runtime.Runtime`; on exit it stops like the service does (bookmarks saved).
    """
    from . import runtime
    from .app import AppState

    rt = await runtime.build(
        config,
        load_model=load_agent,
        warm=warm,
        wrap_agent=(lambda agent: PrintingAgent(agent, printer))
        if printer and load_agent
        else None,
        output=output or choose_output(config),
        recogniser=recogniser,
        synthesiser=True if speak else None,
        buttons=[],
        control=False,
    )
    task = asyncio.create_task(rt.serve(), name="app")
    try:
        await asyncio.wait_for(rt.app.wait_state(AppState.IDLE), 60)
        yield rt
    finally:
        rt.app.request_stop("command done")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10)
        await rt.close()


async def _wait_playing(rt: Any, seconds: float) -> None:
    """Keep the process (and the book) going for `seconds`, or until playback stops."""
    if seconds <= 0 or rt.player is None:
        return
    active = ("playing", "loading")
    ended = asyncio.Event()
    rt.player.subscribe(lambda state: ended.set() if str(state) not in active else None)
    if str(getattr(rt.player, "state", "")) not in active:
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ended.wait(), seconds)


def _print_turn(reply: dict[str, Any], printer: Printer, *, steps: bool) -> None:
    if steps:
        for step in reply.get("steps", []):
            printer(format_step(step))
    if reply.get("error"):
        printer(f"  (error: {reply['error']})")
    printer(f"Final Answer: {reply.get('answer', '')}  [{reply.get('elapsed_ms', 0):.0f} ms]")


START_WAIT_SECONDS = 300.0
"""How long `ask` and `tool` wait for a service that holds the lock but is still loading
(as long as systemd's TimeoutStartSec)."""


async def _service_request(
    config: Config, request: dict[str, Any], *, wait: float = 120.0
) -> dict[str, Any] | None:
    """Send `request` to the service of `config`: its reply, or None when no service runs.

    A service that holds the lock but whose socket does not answer yet is starting: wait
    for it (up to `START_WAIT_SECONDS`, saying so once) instead of starting a second copy.
    Raises ControlError when a starting service never answers.
    """
    from .lock import holder

    path = control.socket_path(config.runtime_dir)
    deadline = asyncio.get_running_loop().time() + START_WAIT_SECONDS
    said = False
    while True:
        pid = holder(config.path("state_dir"))
        if path.exists() or pid is not None:
            try:
                return await control.control_request(path, request, wait=wait)
            except control.ControlError as err:
                if pid is None:
                    _LOGGER.warning("service not answering (%s)", err)
                    return None
                if asyncio.get_running_loop().time() > deadline:
                    raise control.ControlError(
                        say("start_timeout", config.language, pid=pid, seconds=START_WAIT_SECONDS)
                    ) from None
                if not said:
                    print(
                        say("waiting_start", config.language, pid=pid, seconds=START_WAIT_SECONDS),
                        file=sys.stderr,
                        flush=True,
                    )
                    said = True
                await asyncio.sleep(0.5)
                continue
        return None


async def ask(
    config: Config,
    text: str,
    *,
    local: bool = False,
    wait: float = 0.0,
    language: str | None = None,
) -> int:
    """One text turn; prints each step and the answer. 0 on an answer, 1 on failure, 2 when
    `text` is empty.

    `language` (from ``--language``) is passed to the service, which refuses a turn in a
    language it is not running in (one line, exit 1).
    """
    if not text.strip():
        print("xiaoting ask: nothing to ask (give the request as text)", file=sys.stderr)
        return 2
    if not local:
        request: dict[str, Any] = {"cmd": "ask", "text": text, "speak": True}
        if language:
            request["language"] = language
        try:
            reply = await _service_request(config, request)
        except control.ControlError as err:
            print(f"xiaoting ask: {err}", file=sys.stderr)
            return 1
        if reply is not None:
            if not reply.get("ok"):
                print(f"xiaoting ask: {reply.get('error')}", file=sys.stderr)
                return 1
            _print_turn(reply, _print, steps=True)
            return 0
    print(say("own_process", config.language), file=sys.stderr, flush=True)
    async with local_app(config, warm=True) as rt:
        reply = await rt.app.ask(text)
        if not reply.get("ok"):
            print(f"xiaoting ask: {reply.get('error')}", file=sys.stderr)
            return 1
        _print_turn(reply, _print, steps=False)
        await _wait_playing(rt, wait)
    return 0


def _print_result(reply: dict[str, Any], as_json: bool) -> None:
    """The spoken message (or the error), or with `as_json` the structured result."""
    if as_json:
        data = reply.get("data")
        if data is None:
            data = {"ok": bool(reply.get("ok")), "message": reply.get("message") or "",
                    "text": reply.get("text") or reply.get("error", "")}  # fmt: skip
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(reply.get("message") or reply.get("text") or reply.get("error", ""))


async def call_tool(
    config: Config,
    name: str,
    arguments: dict[str, Any],
    *,
    wait: float = 0.0,
    as_json: bool = False,
) -> int:
    """Call one tool (on the service if it runs); prints its message, or with `as_json`
    its structured result. 0 when ok."""
    try:
        reply = await _service_request(
            config, {"cmd": "tool", "name": name, "arguments": arguments}
        )
    except control.ControlError as err:
        print(f"xiaoting tool: {err}", file=sys.stderr)
        return 1
    if reply is not None:
        _print_result(reply, as_json)
        return 0 if reply.get("ok") else 1
    async with local_app(config, load_agent=False, speak=False, printer=None) as rt:
        registry = rt.registry
        if registry is None or registry.get(name) is None:
            known = ", ".join(registry.names()) if registry is not None else "-"
            print(
                f"xiaoting tool: {say('no_tool', config.language, name=name, known=known)}",
                file=sys.stderr,
            )
            return 2
        result = await registry.call(name, arguments, caller="cli")
        _print_result(
            {"ok": result.ok, "text": result.text, "data": result.data, "message": result.message},
            as_json,
        )
        await _wait_playing(rt, wait)
    return 0 if result.ok else 1


async def list_tools(config: Config) -> int:
    """`xiaoting tool --list`: every tool with its parameters and first docstring line."""
    async with local_app(config, load_agent=False, speak=False, printer=None) as rt:
        registry = rt.registry
        for tool in registry.tools() if registry is not None else []:
            props = (tool.parameters or {}).get("properties", {})
            required = set((tool.parameters or {}).get("required", []))
            params = ", ".join(
                f"{p}{'' if p in required else '?'}: {spec.get('type', 'any')}"
                for p, spec in props.items()
            )
            first = (tool.description or "").strip().splitlines()
            print(f"{tool.name}({params})")
            if first:
                print(f"    {first[0]}")
    return 0


def format_status(reply: dict[str, Any], language: str) -> list[str]:
    """The readable lines of `xiaoting status`: the voice's state (idle, listening…),
    playback's (playing, paused…), album, episode or chapter, position,
    speed, skips, volume, sleep timer, downloads, underruns, speaker, turns, last turn."""
    lang = reply.get("language") or language
    none = say("none", lang)
    lines = [say("st_state", lang, value=state_name(reply.get("state", "?"), lang))]
    lines.append(say("st_book", lang, value=state_name(reply.get("player") or "", lang) or none))
    if reply.get("album"):
        album = reply["album"]
        if reply.get("album_name"):  # the name the answers speak it by
            album = f"{reply['album_name']} ({album})"
        lines.append(say("st_album", lang, value=album))
        title = reply.get("episode_title") or ""
        label = "st_chapter" if reply.get("chapter") else "st_episode"
        lines.append(say(label, lang, value=f"{reply.get('episode', '?')} {title}".strip()))
        pos = float(reply.get("position_s") or 0)
        lines.append(say("st_position", lang, value=f"{int(pos // 60)}:{int(pos % 60):02d}"))
        if reply.get("speed") is not None:
            lines.append(say("st_speed", lang, value=f"{reply['speed']:g}"))
        if reply.get("intro_s") is not None:
            lines.append(say("st_skips", lang, intro=f"{reply['intro_s']:g}",
                             outro=f"{reply.get('outro_s') or 0:g}"))  # fmt: skip
    if reply.get("volume_percent") is not None:
        lines.append(say("st_volume", lang, value=reply["volume_percent"]))
    if reply.get("sleep") == "end_of_episode":
        lines.append(say("st_sleep", lang, value=say("st_sleep_episode", lang)))
    elif reply.get("sleep_minutes") is not None:
        lines.append(say("st_sleep", lang, value=say("st_sleep_minutes", lang,
                                                     minutes=reply["sleep_minutes"])))  # fmt: skip
    else:
        lines.append(say("st_sleep", lang, value=none))
    downloads = reply.get("downloads") or []
    shown = ", ".join(
        f"{d.get('album')} #{d.get('episode')} "
        + (f"{d['percent']}%" if d.get("percent") is not None else f"{d.get('mb', 0)} MB")
        for d in downloads
    )
    lines.append(say("st_downloads", lang, value=shown or none))
    lines.append(say("st_underruns", lang, value=reply.get("underruns", 0)))
    speaker = say("ok", lang) if reply.get("speaker_ok", True) else reply.get("speaker_error")
    lines.append(say("st_speaker", lang, value=speaker or "?"))
    lines.append(
        say("st_turns", lang, value=reply.get("turns", 0), barge_ins=reply.get("barge_ins", 0))
    )
    last = reply.get("last_turn") or {}
    if last.get("utterance"):
        lines.append(
            say("st_last", lang, utterance=last["utterance"], answer=last.get("answer", ""))
        )
    return lines


def _with_config(err: Exception, config: Config) -> str:
    """`err`'s message; for a service not running, its hint to start it as this config is
    used (``xiaoting --config PATH run``)."""
    from .doctor import command

    return err.hint(command(config)) if isinstance(err, control.NotRunningError) else str(err)


async def status(config: Config, *, as_json: bool = False) -> int:
    """Print the running service's state (readable lines, or JSON); 1 when it does not
    answer.

    A service that holds the state directory's lock (`lock.holder`) but does not listen on
    its control socket yet is loading its models: "starting (pid N)", in JSON
    ``{"state": "starting", "pid": N}``, exit 0.
    """
    from .lock import holder

    try:
        reply = await control.status(control.socket_path(config.runtime_dir))
    except control.NotListeningError as err:
        pid = holder(config.path("state_dir"))
        if pid is None:
            print(f"xiaoting status: {_with_config(err, config)}", file=sys.stderr)
            return 1
        if as_json:  # pid 0: the lock is held but its file does not name a pid yet
            print(json.dumps({"state": "starting", "pid": pid or None}))
        else:
            value = state_name("starting", config.language)
            print(say("st_starting", config.language, value=value, pid=pid or "?"))
        return 0
    except control.ControlError as err:
        print(f"xiaoting status: {err}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(reply, ensure_ascii=False, indent=2))
    else:
        print("\n".join(format_status(reply, config.language)))
    return 0


async def inject(config: Config, text: str) -> int:
    """Queue a correction into the running service's current or next turn."""
    try:
        reply = await control.inject(control.socket_path(config.runtime_dir), text)
    except control.ControlError as err:
        print(f"xiaoting inject: {_with_config(err, config)}", file=sys.stderr)
        return 1
    if not reply.get("ok"):
        print(f"xiaoting inject: {reply.get('error')}", file=sys.stderr)
        return 1
    print(say("injected", config.language))
    return 0


async def serve_mcp_stdio(config: Config) -> int:
    """`xiaoting mcp`: the player's tools over MCP on stdin/stdout (logs on stderr)."""
    from agent.mcp_bridge import serve_stdio

    from . import runtime

    async with local_app(config, load_agent=False, speak=False, printer=None) as rt:
        await serve_stdio(rt.registry, aliases=runtime.mcp_aliases())
    return 0
