"""Configuration: one TOML file read into frozen dataclasses that check their own ranges.

Every value has a default that suits a Raspberry Pi. A wrong type, an out-of-range value or
an unknown key raises `ConfigError` naming the file and the dotted key, e.g.
``/etc/xiaoting/config.toml: audio.playback_rate: must be between 8000 and 192000, got 5``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import os
import re
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_LOGGER = logging.getLogger(__name__)

DEFAULT_CONFIG_PATH = Path("/etc/xiaoting/config.toml")
LANGUAGES = ("zh", "en")
LLM_POLICIES = ("local", "local-then-remote", "remote-then-local", "remote")


class ConfigError(ValueError):
    """A configuration value is missing, of the wrong type or out of range."""


def _range(lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    return {"lo": lo, "hi": hi}


def _choice(*values: str) -> dict[str, Any]:
    return {"choices": values}


@dataclass(frozen=True)
class AudioConfig:
    """ALSA devices and formats. Capture is 16 kHz mono S16_LE, as Vosk requires."""

    capture_device: str = "default"
    playback_device: str = "default"
    playback_rate: int = field(default=48000, metadata=_range(8000, 192000))
    period_frames: int = field(default=1024, metadata=_range(64, 65536))
    capture_gain: float = field(default=1.0, metadata=_range(0.0, 32.0))
    duck_volume: float = field(default=0.0, metadata=_range(0.0, 1.0))
    volume_percent: int = field(default=80, metadata=_range(0, 100))
    max_volume_percent: int = field(default=100, metadata=_range(0, 100))
    min_volume_percent: int = field(default=0, metadata=_range(0, 100))
    bedtime: str = ""
    bedtime_max_volume_percent: int = field(default=100, metadata=_range(0, 100))

    def __post_init__(self) -> None:
        if self.bedtime and bedtime_minutes(self.bedtime) is None:
            raise ConfigError(
                f'audio.bedtime: must look like "20:00-07:00" (local time; "" for none), '
                f"got {self.bedtime!r}"
            )
        if self.min_volume_percent > self.max_volume_percent:
            raise ConfigError(
                f"audio.min_volume_percent: must not be above audio.max_volume_percent "
                f"({self.max_volume_percent}), got {self.min_volume_percent}"
            )
        if self.bedtime_max_volume_percent < self.min_volume_percent:
            raise ConfigError(
                f"audio.bedtime_max_volume_percent: must not be below "
                f"audio.min_volume_percent ({self.min_volume_percent}), "
                f"got {self.bedtime_max_volume_percent}"
            )


_BEDTIME = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


def bedtime_minutes(text: str) -> tuple[int, int] | None:
    """A bedtime window "20:00-07:00" as (start, end) minutes after midnight (it may pass
    midnight); None when `text` is not such a window (as `player.player.bedtime_window`
    reads it, without importing the player)."""
    match = _BEDTIME.match(text)
    if match is None:
        return None
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if h1 > 23 or h2 > 24 or m1 > 59 or m2 > 59 or (h2 == 24 and m2):
        return None
    start, end = h1 * 60 + m1, h2 * 60 + m2
    return None if start == end else (start, end)


@dataclass(frozen=True)
class ButtonConfig:
    """Push-to-talk: a GPIO button (BCM numbering) and/or a keyboard key."""

    gpio: bool = True
    pin: int = field(default=17, metadata=_range(0, 53))
    pull_up: bool = True
    bounce_time: float = field(default=0.05, metadata=_range(0.0, 1.0))
    pin_factory: str = ""
    keyboard: bool = True
    tap_seconds: float = field(default=0.35, metadata=_range(0.0, 5.0))
    release_tail_seconds: float = field(default=0.3, metadata=_range(0.0, 2.0))
    max_utterance_seconds: float = field(default=20.0, metadata=_range(1.0, 120.0))


@dataclass(frozen=True)
class AsrConfig:
    """Vosk speech recognition; model ids refer to models/manifest.toml."""

    model_zh: str = "vosk-model-small-cn-0.22"
    model_en: str = "vosk-model-small-en-us-0.15"
    phrase_list: bool = False


@dataclass(frozen=True)
class TtsConfig:
    """piper voices per language; ids refer to models/manifest.toml."""

    voice_zh: str = "zh_CN-huayan-medium"
    voice_en: str = "en_US-lessac-medium"
    length_scale: float = field(default=1.0, metadata=_range(0.3, 3.0))


@dataclass(frozen=True)
class LlmConfig:
    """Local llama.cpp model and the ReAct loop's limits."""

    model: str = "qwen2.5-1.5b-instruct-q4_k_m"
    policy: str = field(default="local-then-remote", metadata=_choice(*LLM_POLICIES))
    n_ctx: int = field(default=4096, metadata=_range(512, 32768))
    n_threads: int = field(default=0, metadata=_range(0, 64))
    max_tokens: int = field(default=256, metadata=_range(16, 4096))
    temperature: float = field(default=0.0, metadata=_range(0.0, 2.0))
    grammar: bool = True
    fast_path: bool = True
    max_rounds: int = field(default=6, metadata=_range(1, 20))
    tool_timeout: float = field(default=10.0, metadata=_range(0.1, 600.0))
    observation_max_chars: int = field(default=600, metadata=_range(50, 20000))
    step_timeout: float = field(default=60.0, metadata=_range(1.0, 600.0))
    jump_forward: bool = True
    thought_tokens: int = field(default=24, metadata=_range(0, 256))
    speculate: bool = True


@dataclass(frozen=True)
class RemoteConfig:
    """An OpenAI-compatible remote chat model (DeepSeek by default), used as a fallback."""

    base_url: str = "https://api.deepseek.com"
    model: str = "deepseek-chat"
    api_key: str = field(default="", repr=False)
    connect_timeout: float = field(default=5.0, metadata=_range(0.1, 120.0))
    first_token_timeout: float = field(default=15.0, metadata=_range(0.5, 600.0))
    total_timeout: float = field(default=30.0, metadata=_range(1.0, 600.0))
    max_retries: int = field(default=2, metadata=_range(0, 10))
    max_tokens_ceiling: int = field(default=4096, metadata=_range(16, 65536))
    reasoning: bool | str = "auto"
    tool_calls: bool | str = "auto"
    breaker_failures: int = field(default=2, metadata=_range(1, 100))
    breaker_seconds: float = field(default=60.0, metadata=_range(1.0, 86400.0))

    def __post_init__(self) -> None:
        for name in ("reasoning", "tool_calls"):
            if getattr(self, name) not in (True, False, "auto"):
                raise ConfigError(f'remote.{name}: must be true, false or "auto"')

    @staticmethod
    def flag(value: bool | str) -> bool | None:
        """A `reasoning`/`tool_calls` value as the remote model takes it (None = auto)."""
        return None if value == "auto" else bool(value)


@dataclass(frozen=True)
class JsonSourceConfig:
    """A catalog served as JSON over HTTP, described by URL templates and field paths.

    The same fields as `player.sources.JsonSourceSpec`; each is documented in
    config.example.toml.
    """

    name: str = "json"
    label: str = ""
    method: str = field(default="GET", metadata=_choice("GET", "POST"))
    search_url: str = ""
    detail_url: str = ""
    play_url: str = ""
    results_path: str = "data"
    total_path: str = ""
    album_id_field: str = "id"
    album_title_field: str = "title"
    album_author_field: str = "author"
    album_count_field: str = "count"
    album_description_field: str = ""
    detail_title_path: str = ""
    episodes_path: str = "data.episodes"
    detail_total_path: str = ""
    detail_max_pages: int = field(default=50, metadata=_range(1, 1000))
    episode_id_field: str = "id"
    episode_title_field: str = "title"
    episode_url_field: str = "url"
    episode_number_field: str = ""
    episode_duration_field: str = ""
    play_url_path: str = "data.url"
    error_code_path: str = "code"
    error_message_path: str = "msg"
    ok_codes: tuple[str, ...] = ("0", "200")
    max_search_pages: int = field(default=3, metadata=_range(1, 50))
    api_key: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", self.name):
            raise ConfigError(
                f"library.json_sources.name: letters, digits, '-' or '_' (it starts every album "
                f"id), got {self.name!r}"
            )


@dataclass(frozen=True)
class LibraryConfig:
    """Where books come from: local folders (offline default), podcast feeds, LibriVox."""

    paths: tuple[str, ...] = ("/var/lib/xiaoting/library",)
    feeds: tuple[str, ...] = ()
    librivox: bool = False
    librivox_url: str = "https://librivox.org/api/feed"
    json_sources: tuple[JsonSourceConfig, ...] = ()
    cache_max_mb: int = field(default=2048, metadata=_range(16, 1_000_000))
    source_timeout: float = field(default=8.0, metadata=_range(0.5, 120.0))
    bookmark_interval: float = field(default=5.0, metadata=_range(0.5, 120.0))
    prefetch_next: bool = True


@dataclass(frozen=True)
class McpServerConfig:
    """Another MCP server whose tools join the agent's registry under `name.` prefix."""

    name: str = ""
    command: tuple[str, ...] = ()
    url: str = ""
    timeout: float = field(default=10.0, metadata=_range(0.1, 600.0))


@dataclass(frozen=True)
class McpConfig:
    """The MCP server that offers xiaoting's tools, and the MCP servers it uses."""

    serve: bool = False
    host: str = "127.0.0.1"
    port: int = field(default=8765, metadata=_range(1, 65535))
    token: str = field(default="", repr=False)
    servers: tuple[McpServerConfig, ...] = ()


@dataclass(frozen=True)
class WebConfig:
    """The household's page (`device.web`): served by the service itself, on the local
    network only, behind a password (`xiaoting web password`)."""

    enabled: bool = True
    bind: str = "0.0.0.0"
    port: int = field(default=8080, metadata=_range(1, 65535))
    hosts: tuple[str, ...] = ()
    upload_max_mb: int = field(default=1024, metadata=_range(1, 65536))
    upload_max_files: int = field(default=300, metadata=_range(1, 5000))

    def __post_init__(self) -> None:
        try:
            ipaddress.ip_address(self.bind)
        except ValueError:
            raise ConfigError(
                f'web.bind: an IP address ("0.0.0.0": every one; "127.0.0.1": this machine '
                f"only), got {self.bind!r}"
            ) from None
        for host in self.hosts:
            if not re.fullmatch(r"[A-Za-z0-9.-]{1,253}", host):
                raise ConfigError(f"web.hosts: a host name such as box.lan, got {host!r}")


@dataclass(frozen=True)
class Config:
    """The whole configuration of one xiaoting process."""

    language: str = field(default="zh", metadata=_choice(*LANGUAGES))
    state_dir: str = "/var/lib/xiaoting"
    cache_dir: str = "/var/cache/xiaoting"
    models_dir: str = "/var/lib/xiaoting/models"
    runtime_dir: str = "/run/xiaoting"
    log_level: str = field(default="INFO", metadata=_choice("DEBUG", "INFO", "WARNING", "ERROR"))
    trace_max_mb: int = field(default=8, metadata=_range(1, 1024))
    audio: AudioConfig = AudioConfig()
    button: ButtonConfig = ButtonConfig()
    asr: AsrConfig = AsrConfig()
    tts: TtsConfig = TtsConfig()
    llm: LlmConfig = LlmConfig()
    remote: RemoteConfig = RemoteConfig()
    library: LibraryConfig = LibraryConfig()
    mcp: McpConfig = McpConfig()
    web: WebConfig = WebConfig()
    source: str = field(default="", compare=False)

    @property
    def asr_model(self) -> str:
        """The Vosk model id for the configured language."""
        return self.asr.model_zh if self.language == "zh" else self.asr.model_en

    @property
    def tts_voice(self) -> str:
        """The piper voice id for the configured language."""
        return self.tts.voice_zh if self.language == "zh" else self.tts.voice_en

    @property
    def remote_enabled(self) -> bool:
        """True when an API key is configured for the remote model."""
        return bool(self.remote.api_key)

    def path(self, name: str) -> Path:
        """One of the directory settings (`state_dir`, `cache_dir`, ...) as a `Path`."""
        return Path(getattr(self, name)).expanduser()


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


def _convert(value: Any, tp: Any, key: str) -> Any:
    """Check `value` against the annotation `tp` and convert lists to tuples."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        errors = []
        for arg in typing.get_args(tp):
            try:
                return _convert(value, arg, key)
            except ConfigError as err:
                errors.append(str(err))
        raise ConfigError(f"{key}: wrong type {type(value).__name__}")
    if origin is tuple:
        (item_type, _ellipsis) = typing.get_args(tp)
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{key}: must be a list, got {type(value).__name__}")
        return tuple(_convert(v, item_type, f"{key}[{i}]") for i, v in enumerate(value))
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: must be a table, got {type(value).__name__}")
        return _build(tp, value, key + ".")
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key}: must be a number, got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: must be a whole number, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: must be true or false, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: must be a string, got {value!r}")
        return value
    raise ConfigError(f"{key}: unsupported type {_type_name(tp)}")


def _check(meta: Any, value: Any, key: str) -> None:
    lo, hi = meta.get("lo"), meta.get("hi")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{key}: must be between {lo:g} and {hi:g}, got {value!r}")
    choices = meta.get("choices")
    if choices and value not in choices:
        raise ConfigError(f"{key}: must be one of {', '.join(choices)}, got {value!r}")


OBSOLETE_KEYS = {
    "audio.capture_rate": "capture runs at the card's rate and is converted to 16 kHz",
}
"""Keys older configs may still hold: one warning line each, never a failed start."""


def _build(cls: type, table: dict[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "source"}
    for name in [n for n in table if prefix + n in OBSOLETE_KEYS]:
        _LOGGER.warning("%s%s: ignored (%s)", prefix, name, OBSOLETE_KEYS[prefix + name])
        table = {k: v for k, v in table.items() if k != name}
    unknown = sorted(set(table) - set(fields))
    if unknown:
        raise ConfigError(
            f"{prefix}{unknown[0]}: unknown key (known here: {', '.join(sorted(fields))})"
        )
    kwargs = {}
    for name, value in table.items():
        key = prefix + name
        converted = _convert(value, hints[name], key)
        _check(fields[name].metadata, converted, key)
        kwargs[name] = converted
    return cls(**kwargs)


def validate(config: Config) -> Config:
    """Re-check every range of an already built config (after `dataclasses.replace`)."""

    def walk(obj: Any, prefix: str) -> None:
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if dataclasses.is_dataclass(value):
                walk(value, f"{prefix}{f.name}.")
            else:
                _check(f.metadata, value, prefix + f.name)

    walk(config, "")
    return config


def from_dict(table: dict[str, Any], source: str = "<dict>") -> Config:
    """Build a `Config` from a parsed TOML table; raises ConfigError naming `source`."""
    try:
        config = _build(Config, table)
    except ConfigError as err:
        raise ConfigError(f"{source}: {err}") from None
    api_key = config.remote.api_key or os.environ.get("DEEPSEEK_API_KEY", "")
    return dataclasses.replace(
        config,
        remote=dataclasses.replace(config.remote, api_key=api_key),
        source=source,
    )


def load(path: str | Path | None = None) -> Config:
    """Read the TOML file at `path` (or the defaults when it is None).

    Raises ConfigError when the file is missing, is not valid TOML, or has a bad value.
    """
    if path is None:
        return from_dict({}, "<defaults>")
    path = Path(path)
    try:
        with path.open("rb") as fh:
            table = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file (copy config.example.toml there)") from None
    except PermissionError:
        raise ConfigError(
            f"{path}: not readable by this user (it is mode 0600 for the xiaoting user: "
            "use sudo, or --config another file)"
        ) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    return _anchored(from_dict(table, str(path)), path.resolve().parent)


_DIRS = ("state_dir", "cache_dir", "models_dir", "runtime_dir")


def _anchored(config: Config, folder: Path) -> Config:
    """`config` with its relative folders (state, cache, models, runtime, the library's
    paths) read from `folder`, the config file's own, as a user who writes ``state_dir =
    ".state/pc"`` beside the file means, whatever folder a command is run from."""

    def anchor(value: str) -> str:
        path = Path(value).expanduser()
        return value if path.is_absolute() else str(folder / path)

    library = dataclasses.replace(
        config.library, paths=tuple(anchor(p) for p in config.library.paths)
    )
    dirs = {name: anchor(getattr(config, name)) for name in _DIRS}
    return dataclasses.replace(config, library=library, **dirs)


# Models of the `ci` profile (models/manifest.toml), used by a clone when the device
# profile's files are absent: the package registries carry no Chinese voice or Vosk model.
CI_MODELS = {
    "llm": "qwen2.5-coder-0.5b-instruct-q4_k_m",
    "tts_en": "en_US-joe-medium",
    "llm_file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
}


def dev_config(root: Path, **overrides: Any) -> Config:
    """Defaults for a clone on a laptop or CI: state, cache and models under `root`.

    When the device profile's language model is not in ``root/models`` but the `ci`
    profile's is, the `ci` models are chosen and the language is English (the only piper
    voice the package registries carry); `--language zh` still works for text turns.
    """
    root = root.resolve()
    table: dict[str, Any] = {
        "state_dir": str(root / ".state"),
        "cache_dir": str(root / ".state" / "cache"),
        "models_dir": str(root / "models"),
        "runtime_dir": str(root / ".state" / "run"),
        "library": {"paths": [str(root / ".state" / "library")]},
    }
    device_llm = root / "models" / (LlmConfig.model + ".gguf")
    if not device_llm.exists() and (root / "models" / CI_MODELS["llm_file"]).exists():
        table["language"] = "en"
        table["llm"] = {"model": CI_MODELS["llm"]}
        table["tts"] = {"voice_en": CI_MODELS["tts_en"]}
    table.update(overrides)
    return from_dict(table, "<dev defaults>")
