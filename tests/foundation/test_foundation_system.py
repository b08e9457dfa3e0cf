"""systemd/xiaoting.service passes `systemd-analyze verify`; install.sh's --help and --dry-run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "xiaoting.service"
INSTALL = ROOT / "install.sh"
EXEC = "/opt/xiaoting/venv/bin/xiaoting"


def unit_settings() -> dict[str, list[str]]:
    """Key -> values of the unit file (keys may repeat, e.g. DeviceAllow)."""
    settings: dict[str, list[str]] = {}
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def test_unit_passes_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("XIAOTING_REQUIRE_MODELS", "") not in ("", "0"):
            pytest.fail("systemd-analyze is not installed")
        pytest.skip("systemd-analyze is not installed")
    text = UNIT.read_text()
    assert EXEC in text
    program = tmp_path / "xiaoting"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    unit = tmp_path / "xiaoting.service"
    unit.write_text(text.replace(EXEC, str(program)))
    result = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


GROUPS_SH = ROOT / "systemd" / "groups.sh"


def _fake_getent(bin_dir: Path, groups: set[str]) -> None:
    """A `getent group NAME` that knows only `groups` (this machine's /etc/group aside)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    known = " ".join(sorted(groups))
    script = bin_dir / "getent"
    script.write_text(
        f'#!/bin/sh\n[ "$1" = group ] || exit 2\nfor g in {known}; do\n'
        '  [ "$g" = "$2" ] && { echo "$g:x:1:"; exit 0; }\ndone\nexit 2\n'
    )
    script.chmod(0o755)


@pytest.mark.parametrize(
    ("groups", "expected"),
    [({"audio", "gpio"}, "audio gpio"), ({"audio"}, "audio"), (set(), "")],
)
def test_unit_with_the_groups_drop_in_verifies_and_names_only_existing_groups(
    tmp_path, groups, expected
):
    fake = tmp_path / "bin"
    _fake_getent(fake, groups)
    units = tmp_path / "units"
    units.mkdir()
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    result = subprocess.run(
        ["sh", str(GROUPS_SH), str(units / "xiaoting.service.d")],
        capture_output=True, text=True, env=env, timeout=30,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    dropin = (units / "xiaoting.service.d" / "groups.conf").read_text()
    named = [
        line.partition("=")[2].split()
        for line in dropin.splitlines()
        if line.startswith("SupplementaryGroups=")
    ]
    assert named == [expected.split()]
    assert set(named[0]) <= groups  # a missing group would stop the unit with 216/GROUP
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("XIAOTING_REQUIRE_MODELS", "") not in ("", "0"):
            pytest.fail("systemd-analyze is not installed")
        pytest.skip("systemd-analyze is not installed")
    program = tmp_path / "xiaoting"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    (units / "xiaoting.service").write_text(UNIT.read_text().replace(EXEC, str(program)))
    result = subprocess.run(
        [analyze, "verify", "xiaoting.service"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "SYSTEMD_UNIT_PATH": f"{units}:"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


def test_unit_settings():
    s = unit_settings()
    assert s["Type"] == ["notify"]
    assert s["Restart"] == ["on-failure"]
    assert s["User"] == ["xiaoting"]
    assert s["NoNewPrivileges"] == ["yes"]
    assert s["ProtectSystem"] == ["strict"]
    assert int(s["WatchdogSec"][0]) > 0
    assert "SupplementaryGroups" not in s  # the drop-in names the groups that exist
    for key in ("StateDirectory", "ConfigurationDirectory", "ProtectHome", "PrivateTmp"):
        assert key in s, key
    assert s["ExecStart"][0].startswith(EXEC + " run")
    assert any("alsa" in v for v in s["DeviceAllow"])
    assert s["ReadWritePaths"] == ["-/etc/xiaoting"]  # the page writes its settings back


# ---------------------------------------------------------------- install.sh


def run_install(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_install_syntax():
    result = subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_install_help():
    result = run_install("--help")
    assert result.returncode == 0
    for option in ("--dev", "--dry-run", "--profile", "--no-models"):
        assert option in result.stdout


def test_install_unknown_option_exits_2():
    result = run_install("--frobnicate")
    assert result.returncode == 2
    assert "--frobnicate" in result.stderr


def _user_exists(name: str) -> bool:
    return subprocess.run(["id", name], capture_output=True).returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="the system install's dry run is checked as root")
def test_install_dry_run_lists_system_install_and_changes_nothing():
    watched = [
        Path("/etc/xiaoting"),
        Path("/opt/xiaoting"),
        Path("/var/lib/xiaoting"),
        Path("/var/cache/xiaoting"),
        Path("/etc/systemd/system/xiaoting.service"),
        Path("/usr/local/bin/xiaoting"),
    ]
    before = {p: p.exists() for p in watched}
    user_before = _user_exists("xiaoting")
    result = run_install("--dry-run", "--no-models")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    if user_before:
        assert "useradd" not in out
    else:
        assert "would run: useradd" in out and "xiaoting" in out
    assert "/etc/xiaoting/config.toml" in out
    assert "would run: systemctl enable --now xiaoting" in out
    # the page's password: made once, as the service user, before the service starts
    made = next(i for i, ln in enumerate(out.splitlines()) if "web password" in ln)
    assert "runuser -u xiaoting" in out.splitlines()[made]
    assert "--generate --if-unset" in out.splitlines()[made]
    start = next(i for i, ln in enumerate(out.splitlines()) if "systemctl enable" in ln)
    assert made < start
    assert "install -d -m 0755 -o xiaoting -g xiaoting /etc/xiaoting" in out
    assert "models fetch" not in out  # --no-models
    assert "the decode probe cannot run without the model files; keeping the configured LLM" in out
    # Nothing happened: no folders, no user, no unit.
    for path, existed in before.items():
        if not existed:
            assert not path.exists(), f"dry run created {path}"
    assert _user_exists("xiaoting") == user_before
    # Every change is shown as "would run", never run.
    for line in out.splitlines():
        for command in ("apt-get", "useradd", "usermod", "systemctl", "install -d"):
            if command in line and not line.startswith("==>"):
                assert line.lstrip().startswith("would run:"), line


@pytest.mark.skipif(os.geteuid() != 0, reason="the system install's dry run is checked as root")
def test_install_dry_run_probes_the_decode_rate_after_the_models():
    result = run_install("--dry-run", "--no-apt")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    fetch = next(i for i, line in enumerate(lines) if "models fetch --profile device" in line)
    probe = next(i for i, line in enumerate(lines) if "models probe" in line)
    assert fetch < probe
    if not Path("/etc/xiaoting/config.toml").exists():  # a new config gets the measured LLM
        assert "--write-config /etc/xiaoting/config.toml" in lines[probe]
    assert "runuser -u xiaoting" in lines[probe]
    assert any("models fetch qwen2.5-coder-0.5b-instruct-q4_k_m" in line for line in lines)


def test_install_dev_dry_run_probes_the_decode_rate():
    result = run_install("--dev", "--dry-run", "--no-apt")
    assert result.returncode == 0, result.stderr
    probe = [line for line in result.stdout.splitlines() if "models probe" in line]
    assert probe and probe[0].lstrip().startswith("would run:")
    assert "--write-config" not in probe[0]  # a development setup has no config to set
