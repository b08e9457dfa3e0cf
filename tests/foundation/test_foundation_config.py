"""device.config: defaults, one clear error per bad value, the API key, config.example.toml."""

from __future__ import annotations

import dataclasses
import re
import tomllib
import typing
from pathlib import Path

import pytest

from device import config as config_mod
from device.config import Config, ConfigError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config.example.toml"


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_defaults_load(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    cfg = config_mod.load(None)
    assert cfg == Config()
    assert cfg.source == "<defaults>"
    assert cfg.language == "zh" and cfg.audio.playback_rate == 48000
    assert not cfg.remote_enabled


def test_empty_file_gives_defaults(tmp_path, monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    cfg = config_mod.load(write(tmp_path, ""))
    assert cfg == Config()
    assert cfg.source == str(tmp_path / "config.toml")


def test_values_are_read_and_lists_become_tuples(tmp_path):
    path = write(
        tmp_path,
        'language = "en"\n[audio]\nplayback_rate = 44100\ncapture_gain = 2\n'
        '[library]\npaths = ["/a", "/b"]\n[[mcp.servers]]\nname = "w"\ncommand = ["x", "-y"]\n',
    )
    cfg = config_mod.load(path)
    assert cfg.language == "en"
    assert cfg.audio.playback_rate == 44100
    assert cfg.audio.capture_gain == 2.0 and isinstance(cfg.audio.capture_gain, float)
    assert cfg.library.paths == ("/a", "/b")
    assert cfg.mcp.servers[0].command == ("x", "-y")
    hash(cfg)  # frozen all the way down


BAD = [
    # (TOML text, dotted key, words the message must contain)
    ('[audio]\nplayback_rate = "fast"\n', "audio.playback_rate", "whole number"),
    ("[audio]\nplayback_rate = 5\n", "audio.playback_rate", "between 8000 and 192000"),
    ("[audio]\nduck_volume = 1.5\n", "audio.duck_volume", "between"),
    ("[button]\npin = true\n", "button.pin", "whole number"),
    ("[button]\npin = 99\n", "button.pin", "between"),
    ("[button]\ngpio = 1\n", "button.gpio", "true or false"),
    ("colour = 1\n", "colour", "unknown key"),
    ("[llm]\ntemprature = 0.1\n", "llm.temprature", "unknown key"),
    ("[[mcp.servers]]\nnmae = 'x'\n", "mcp.servers[0].nmae", "unknown key"),
    ('language = "fr"\n', "language", "one of zh, en"),
    ('[llm]\npolicy = "cloud"\n', "llm.policy", "one of"),
    ('[remote]\nmodel = ["a", "b"]\n', "remote.model", "must be a string"),
    ('[library]\npaths = "/books"\n', "library.paths", "must be a list"),
    ("[library]\npaths = [1]\n", "library.paths[0]", "must be a string"),
    ("audio = 3\n", "audio", "must be a table"),
    ("[[mcp.servers]]\nname = 'x'\ntimeout = -1.0\n", "mcp.servers[0].timeout", "between"),
    ("[mcp]\nport = 70000\n", "mcp.port", "between"),
]


@pytest.mark.parametrize(("text", "key", "words"), BAD, ids=[b[1] for b in BAD])
def test_bad_value_names_file_and_key(tmp_path, text, key, words):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        config_mod.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {key}: "), message
    assert words in message
    assert "\n" not in message


def test_invalid_toml_names_file(tmp_path):
    path = write(tmp_path, 'language = "zh\n')
    with pytest.raises(ConfigError, match=re.escape(str(path)) + ": not valid TOML"):
        config_mod.load(path)


def test_missing_file_names_file(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=re.escape(str(path)) + ": no such file"):
        config_mod.load(path)


def test_validate_rechecks_a_replaced_value():
    cfg = dataclasses.replace(Config(), language="fr")
    with pytest.raises(ConfigError, match="language"):
        config_mod.validate(cfg)
    bad_audio = dataclasses.replace(Config(), audio=config_mod.AudioConfig(playback_rate=1))
    with pytest.raises(ConfigError, match=r"audio\.playback_rate"):
        config_mod.validate(bad_audio)


def test_api_key_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-env-0123456789")
    cfg = config_mod.load(write(tmp_path, ""))
    assert cfg.remote.api_key == "sk-env-0123456789"
    assert cfg.remote_enabled
    file_cfg = config_mod.load(write(tmp_path, '[remote]\napi_key = "sk-file-987654"\n', "b.toml"))
    assert file_cfg.remote.api_key == "sk-file-987654"


def test_secrets_never_in_repr(tmp_path, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-env-secret-111")
    cfg = config_mod.load(
        write(
            tmp_path,
            '[mcp]\ntoken = "tok-secret-222"\n'
            '[[library.json_sources]]\nname = "j"\napi_key = "js-secret-333"\n',
        )
    )
    assert cfg.remote.api_key == "sk-env-secret-111"
    assert cfg.mcp.token == "tok-secret-222"
    text = repr(cfg) + str(cfg)
    for secret in ("sk-env-secret-111", "tok-secret-222", "js-secret-333"):
        assert secret not in text


def test_dev_config_puts_everything_under_root(tmp_path, monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    cfg = config_mod.dev_config(tmp_path)
    for name in ("state_dir", "cache_dir", "models_dir", "runtime_dir"):
        assert cfg.path(name).is_relative_to(tmp_path.resolve())
    # No model files under root: the device profile's model stays configured.
    assert cfg.llm.model == config_mod.LlmConfig.model


# ---------------------------------------------------------------- config.example.toml


def _uncomment_examples(text: str) -> str:
    """The example with its commented-out tables and keys (``# key = ...``) switched on."""
    pattern = re.compile(r"^#\s?(?=\[|[A-Za-z_]+\s*=)")
    return "\n".join(pattern.sub("", line) for line in text.splitlines()) + "\n"


def _missing_keys(cls: type, table: dict, prefix: str = "") -> list[str]:
    """Dotted keys of dataclass `cls` (recursively) that `table` does not show."""
    missing = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name == "source":  # set by the loader, not a key
            continue
        key = prefix + f.name
        if f.name not in table:
            missing.append(key)
            continue
        tp = hints[f.name]
        args = typing.get_args(tp)
        if dataclasses.is_dataclass(tp):
            missing += _missing_keys(tp, table[f.name], key + ".")
        elif typing.get_origin(tp) is tuple and args and dataclasses.is_dataclass(args[0]):
            items = table[f.name]
            if not items:
                missing.append(key + "[0]")
            else:
                missing += _missing_keys(args[0], items[0], key + "[0].")
    return missing


def test_example_config_loads():
    if not EXAMPLE.exists():
        pytest.fail(f"{EXAMPLE} is missing")
    cfg = config_mod.load(EXAMPLE)
    # It shows the defaults (the env key aside), so it must equal them.
    assert dataclasses.replace(cfg, remote=Config().remote) == Config()


def test_example_config_documents_every_key():
    text = EXAMPLE.read_text()
    table = tomllib.loads(_uncomment_examples(text))
    assert _missing_keys(Config, table) == []
    # The commented-out examples are valid too.
    config_mod.from_dict(table, "config.example.toml (uncommented)")


def test_obsolete_key_is_one_warning_not_a_failed_start(tmp_path, caplog):
    with caplog.at_level("WARNING", logger="device.config"):
        cfg = config_mod.load(write(tmp_path, "[audio]\ncapture_rate = 16000\n"))
    assert cfg.audio == config_mod.AudioConfig()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith("audio.capture_rate: ignored")
