"""The remote model's config keys: budgets, breaker, reasoning and tool-call flags."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from device.config import ConfigError, RemoteConfig, from_dict, load

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_and_flags() -> None:
    remote = from_dict({}).remote
    assert (remote.first_token_timeout, remote.total_timeout) == (15.0, 30.0)
    assert remote.breaker_failures == 2 and remote.max_tokens_ceiling == 4096
    assert RemoteConfig.flag(remote.tool_calls) is None and RemoteConfig.flag(False) is False
    set_ = from_dict({"remote": {"tool_calls": True, "reasoning": False}}).remote
    assert set_.tool_calls is True and RemoteConfig.flag(set_.reasoning) is False


@pytest.mark.parametrize(
    ("table", "phrase"),
    [
        ({"tool_calls": "sometimes"}, "remote.tool_calls"),
        ({"reasoning": 1}, "remote.reasoning"),
        ({"first_token_timeout": 0.0}, "remote.first_token_timeout"),
        ({"breaker_failures": 0}, "remote.breaker_failures"),
    ],
)
def test_bad_values_name_the_key(table: dict, phrase: str) -> None:
    with pytest.raises(ConfigError) as info:
        from_dict({"remote": table}, source="x.toml")
    assert phrase in str(info.value) and "x.toml" in str(info.value)


def test_example_config_documents_every_remote_key() -> None:
    example = tomllib.loads((ROOT / "config.example.toml").read_text())
    assert set(example["remote"]) == set(RemoteConfig.__dataclass_fields__)
    from_dict(example)  # and it is valid


def test_doctor_fails_a_remote_only_policy_without_an_api_key(tmp_path, monkeypatch) -> None:
    from device.config import dev_config
    from device.doctor import FAIL, OK, check_config

    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    alone = check_config(dev_config(tmp_path, llm={"policy": "remote"}))
    assert alone.level == FAIL and "DEEPSEEK_API_KEY" in alone.detail
    keyed = check_config(dev_config(tmp_path, llm={"policy": "remote"}, remote={"api_key": "k"}))
    assert keyed.level == OK and "remote fallback on" in keyed.detail
    local = check_config(dev_config(tmp_path))
    assert local.level == OK and "local model only" in local.detail


def test_relative_folders_are_read_from_the_config_files_folder(tmp_path, monkeypatch) -> None:
    """`state_dir = ".state/pc"` beside my.toml means that folder, from whatever folder a
    command runs; absolute folders stay as they are."""
    folder = tmp_path / "box"
    folder.mkdir()
    (folder / "my.toml").write_text(
        'state_dir = ".state/pc"\ncache_dir = "/var/cache/x"\n[library]\npaths = ["books"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    config = load(folder / "my.toml")
    assert Path(config.state_dir) == folder.resolve() / ".state" / "pc"
    assert config.cache_dir == "/var/cache/x"
    assert config.library.paths == (str(folder.resolve() / "books"),)
