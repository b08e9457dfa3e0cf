"""`xiaoting doctor`: check what the assistant needs and say it plainly, one line each.

Each check gives a `Finding` with a level: ``ok``, ``warn`` (the assistant runs with less,
e.g. no GPIO means push-to-talk by keyboard or socket only) or ``fail`` (something required
is missing: the config, the language model, llama.cpp). `run` exits 1 when any check fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import glob
import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from device import model_files as models
from device.config import DEFAULT_CONFIG_PATH, Config, bedtime_minutes
from device.logs import quiet_stderr

OK, WARN, FAIL = "ok", "warn", "fail"
LOW_DISK_BYTES = 500 * 1024 * 1024


@dataclass(frozen=True)
class Finding:
    """One line of the report: what was checked, its level, and what was found."""

    name: str
    level: str
    detail: str

    def line(self) -> str:
        """``[ ok ] name: detail`` — no colours, so it reads the same in the journal."""
        return f"[{self.level:^4}] {self.name}: {self.detail}"


def check_config(cfg: Config) -> Finding:
    """The config loaded (it did, or the CLI would have stopped with the bad key); a policy
    that only asks the remote model fails without an API key."""
    detail = f"{cfg.source}, language {cfg.language}, policy {cfg.llm.policy}"
    if cfg.remote_enabled:
        return Finding("config", OK, f"{detail}, remote fallback on")
    if cfg.llm.policy == "remote":
        return Finding(
            "config",
            FAIL,
            f"{detail}, but no remote API key: set remote.api_key or DEEPSEEK_API_KEY, "
            'or llm.policy = "local-then-remote"',
        )
    return Finding("config", OK, f"{detail}, no remote API key (local model only)")


def config_key(cfg: Config, role: str) -> str:
    """The config key naming the model of `role` ("llm", "asr", "tts") for the configured
    language, e.g. ``llm.model``, ``asr.model_zh``, ``tts.voice_en``."""
    if role == "llm":
        return "llm.model"
    return f"asr.model_{cfg.language}" if role == "asr" else f"tts.voice_{cfg.language}"


def installed_instead(
    cfg: Config, role: str, name: str, manifest: dict[str, models.ModelSpec]
) -> str:
    """``; installed: <id> (set <key> = "<id>")`` for the models of `role` and the
    configured language found in models_dir other than `name`, or "" when there are none."""
    found = [
        model.id
        for model in models.installed_models(
            Path(cfg.models_dir), manifest, role=role, language=cfg.language
        )
        if name not in (model.id, *(spec.path for spec in model.files))
    ]
    if not found:
        return ""
    key = config_key(cfg, role)
    if len(found) == 1:
        return f'; installed: {found[0]} (set {key} = "{found[0]}")'
    return f'; installed: {", ".join(found)} (set {key} to one of them, e.g. "{found[0]}")'


def command(cfg: Config) -> str:
    """The `xiaoting` command as this config is used: with ``--config PATH`` unless the
    config is the service's own (/etc/xiaoting/config.toml) or none was read."""
    source = Path(cfg.source) if cfg.source and not cfg.source.startswith("<") else None
    if source is None or source == DEFAULT_CONFIG_PATH:
        return "xiaoting"
    return f"xiaoting --config {source}"


def check_model(cfg: Config, role: str, name: str, *, required: bool, full: bool) -> Finding:
    """A model file of the manifest is present in models_dir and matches its checksum.

    A missing or unknown model's line also names the installed models that could be set
    instead (same role and language; see `installed_instead`).
    """
    label = f"model ({role})"
    key = config_key(cfg, role)
    if not name:
        return Finding(label, WARN if not required else FAIL, "none configured")
    try:
        manifest = models.load_manifest()
    except models.ModelFileError as err:
        return Finding(label, FAIL if required else WARN, str(err))
    try:
        spec = models.find_file(name, manifest)
    except models.ModelFileError as err:
        detail = f"{key}: {err}{installed_instead(cfg, role, name, manifest)}"
        return Finding(label, FAIL if required else WARN, detail)
    path = Path(cfg.models_dir).expanduser() / spec.path
    if not path.exists():
        what = "required" if required else "that part will not work"
        return Finding(
            label,
            FAIL if required else WARN,
            f"{key} {name} missing at {path} ({what}; run `{command(cfg)} models fetch {name}`)"
            + installed_instead(cfg, role, name, manifest),
        )
    store = models.ModelStore.holding(Path(cfg.models_dir), spec)
    try:
        target = path.resolve()
        store.verify(spec, target, full=full)
    except (models.ModelFileError, OSError) as err:
        return Finding(
            label, FAIL if required else WARN, f"{err} (run `xiaoting models fetch --force {name}`)"
        )
    return Finding(label, OK, f"{name} present, checksum {'re-hashed' if full else 'verified'}")


def check_module(module: str, why: str, *, required: bool) -> Finding:
    """A Python package can be imported (found without importing heavy native code)."""
    if importlib.util.find_spec(module) is None:
        return Finding(
            f"python:{module}",
            FAIL if required else WARN,
            f"not installed ({why}); run ./install.sh",
        )
    return Finding(f"python:{module}", OK, "installed")


def check_audio(cfg: Config) -> list[Finding]:
    """ALSA cards and whether the configured capture and playback devices open."""
    try:
        import alsaaudio
    except ImportError:
        return [Finding("audio", WARN, "pyalsaaudio is not installed; no sound in or out")]
    with quiet_stderr():
        cards = alsaaudio.cards()
    findings = []
    if not cards:
        findings.append(Finding("audio cards", WARN, "ALSA lists no sound card on this machine"))
    else:
        findings.append(Finding("audio cards", OK, ", ".join(cards)))
    for kind, device, label in (
        (alsaaudio.PCM_CAPTURE, cfg.audio.capture_device, "microphone"),
        (alsaaudio.PCM_PLAYBACK, cfg.audio.playback_device, "speaker"),
    ):
        try:
            with quiet_stderr():
                pcm = alsaaudio.PCM(kind, alsaaudio.PCM_NONBLOCK, device=device)
            pcm.close()
            findings.append(Finding(label, OK, f"ALSA device {device!r} opens"))
        except alsaaudio.ALSAAudioError as err:
            if not cards:
                hint = "there is no sound card"
            elif "busy" in str(err).lower():
                hint = "device busy: another program holds it"
            else:
                hint = "is the user in the audio group? is the device name right (aplay -L)?"
            findings.append(
                Finding(label, WARN, f"ALSA device {device!r} does not open: {err} ({hint})")
            )
    return findings


def check_library(cfg: Config) -> list[Finding]:
    """The library folders: albums and episodes found, and each thing worth a word."""
    from device.library import survey

    found = survey(list(cfg.library.paths))
    level = OK if found.albums else WARN
    findings = [Finding("library", level, found.summary())]
    findings += [Finding("library", WARN, line) for line in found.problems()]
    return findings


def check_volume(cfg: Config) -> Finding:
    """The book volume's limits: the first volume, the minimum and maximum, and the bedtime
    window with its ceiling (whether it holds now, by this machine's clock)."""
    audio = cfg.audio
    detail = (
        f"{audio.volume_percent}% at the first start, held between "
        f"{audio.min_volume_percent}% and {audio.max_volume_percent}%"
    )
    window = bedtime_minutes(audio.bedtime) if audio.bedtime else None
    if window is None:
        return Finding("volume", OK, detail + "; no bedtime limit")
    moment = datetime.datetime.now()
    minute = moment.hour * 60 + moment.minute
    start, end = window
    night = start <= minute < end if start < end else minute >= start or minute < end
    ceiling = min(audio.bedtime_max_volume_percent, audio.max_volume_percent)
    return Finding(
        "volume",
        OK,
        f"{detail}; at most {ceiling}% from {audio.bedtime} "
        f"({'bedtime now' if night else 'not bedtime now'}, {moment:%H:%M})",
    )


def check_gpio(cfg: Config) -> Finding:
    """GPIO chips and the pin factory gpiozero would use."""
    if not cfg.button.gpio:
        return Finding("gpio", OK, "disabled in config (button.gpio = false)")
    factory = cfg.button.pin_factory or os.environ.get("GPIOZERO_PIN_FACTORY", "")
    if factory == "mock":
        return Finding("gpio", OK, "mock pin factory (testing)")
    chips = sorted(glob.glob("/dev/gpiochip*")) + glob.glob("/dev/gpiomem")
    if not chips:
        return Finding(
            "gpio",
            WARN,
            "no GPIO on this machine (no /dev/gpiochip*); "
            "push-to-talk by keyboard or `xiaoting ask` only",
        )
    access = [c for c in chips if os.access(c, os.R_OK | os.W_OK)]
    if not access:
        return Finding(
            "gpio", WARN, f"{', '.join(chips)} not accessible: add the user to the gpio group"
        )
    return Finding(
        "gpio",
        OK,
        f"pin {cfg.button.pin} via {factory or 'default pin factory'} ({', '.join(access)})",
    )


def check_disk(cfg: Config) -> list[Finding]:
    """Free space where state and models live."""
    findings = []
    for name in ("state_dir", "models_dir"):
        path = Path(getattr(cfg, name)).expanduser()
        probe = path
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        free = shutil.disk_usage(probe).free
        level = OK if free >= LOW_DISK_BYTES else WARN
        writable = os.access(probe, os.W_OK)
        detail = f"{path}: {free / 1e9:.1f} GB free" + (
            "" if writable else ", not writable by this user"
        )
        findings.append(Finding(f"disk ({name})", level if writable else WARN, detail))
    return findings


def check_state(cfg: Config) -> Finding:
    """The player's state database: writable directory, database that passes its check."""
    from player.store import diagnose

    ok, detail = diagnose(cfg.path("state_dir") / "player.sqlite3")
    return Finding("state (bookmarks)", OK if ok else WARN, detail)


async def check_network(cfg: Config, *, timeout: float = 3.0) -> Finding:
    """Whether the remote model's host accepts a TCP connection (only with an API key)."""
    if not cfg.remote_enabled:
        return Finding("network", OK, "no remote model configured; nothing to reach")
    parts = urlsplit(cfg.remote.base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), timeout)
        writer.close()
        return Finding("network", OK, f"{parts.hostname}:{port} reachable")
    except (OSError, TimeoutError) as err:
        return Finding(
            "network",
            WARN,
            f"{parts.hostname}:{port} unreachable ({err or 'timeout'}); "
            "the local model answers alone",
        )


def check_web(cfg: Config) -> Finding:
    """The household's page: its address, and whether a password lets anyone in yet."""
    if not cfg.web.enabled:
        return Finding("web page", OK, "off (web.enabled = false)")
    from device.web import page_url
    from device.web.auth import password_path

    url = page_url(cfg)
    if not password_path(cfg.path("state_dir")).exists():
        return Finding(
            "web page",
            WARN,
            f"{url} (no password yet: nobody can log in; run `{command(cfg)} web password`)",
        )
    return Finding("web page", OK, f"{url} (password set; local network only)")


async def collect(cfg: Config, *, full: bool = False) -> list[Finding]:
    """Every check, in report order."""
    findings = [check_config(cfg)]
    findings.append(check_module("llama_cpp", "the local language model", required=True))
    findings.append(
        check_model(cfg, "llm", cfg.llm.model, required=cfg.llm.policy != "remote", full=full)
    )
    findings.append(check_module("vosk", "speech recognition", required=False))
    if cfg.audio.capture_device == "null":  # typed requests only: no speech to recognise
        findings.append(Finding("model (asr)", OK, 'not needed: audio.capture_device = "null"'))
    else:
        findings.append(check_model(cfg, "asr", cfg.asr_model, required=False, full=full))
    findings.append(check_module("piper", "speech synthesis", required=False))
    findings.append(check_model(cfg, "tts", cfg.tts_voice, required=False, full=full))
    findings.extend(check_library(cfg))
    findings.extend(check_audio(cfg))
    findings.append(check_volume(cfg))
    findings.append(check_gpio(cfg))
    findings.extend(check_disk(cfg))
    findings.append(check_state(cfg))
    findings.append(await check_network(cfg))
    findings.extend(await check_mcp(cfg))
    findings.append(check_web(cfg))
    return findings


async def check_mcp(cfg: Config) -> list[Finding]:
    """MCP servers named in the config: connect briefly and list their tools."""
    if not cfg.mcp.servers:
        return [Finding("mcp", OK, "no MCP servers configured")]
    try:
        rows = await mcp_status(cfg)
    except Exception as err:
        return [Finding("mcp", WARN, f"cannot check MCP servers: {err}")]
    return [Finding(f"mcp:{s['name']}", OK if s["connected"] else WARN, s["detail"]) for s in rows]


async def run(cfg: Config, *, full: bool = False) -> int:
    """Print the report; 0 when nothing required is missing, else 1."""
    findings = await collect(cfg, full=full)
    for finding in findings:
        print(finding.line())
    failed = [f for f in findings if f.level == FAIL]
    warned = [f for f in findings if f.level == WARN]
    print(
        f"{len(findings)} checks: {len(findings) - len(failed) - len(warned)} ok, "
        f"{len(warned)} warnings, {len(failed)} failed"
    )
    sys.stdout.flush()
    return 1 if failed else 0


async def mcp_status(config: Config, *, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Connect briefly to each configured MCP server: name, connected, detail (tools)."""
    from agent.mcp_bridge import McpClientManager, ServerSpec
    from agent.tools import ToolRegistry

    registry = ToolRegistry()
    manager = McpClientManager(registry, [ServerSpec.from_config(s) for s in config.mcp.servers])
    try:
        await asyncio.wait_for(manager.start(), timeout)
        rows = []
        for s in manager.status():
            if s["connected"]:
                detail = f"{s['transport']} {s['target']}: tools {', '.join(s['tools']) or 'none'}"
                if s.get("refused"):
                    detail += f"; refused {', '.join(s['refused'])}"
            else:
                detail = f"{s['transport']} {s['target']}: not connected ({s.get('last_error') or 'no answer'})"
            rows.append({"name": s["name"], "connected": s["connected"], "detail": detail})
        return rows
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(manager.close(), 5)
