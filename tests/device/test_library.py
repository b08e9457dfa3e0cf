"""The library explains itself: missing paths, folders without audio, nested folders, and
`library add` copying a real album (PyAV-encoded files) with the library owner's ownership."""

from __future__ import annotations

import logging
import os
import pwd
import stat
from pathlib import Path

import numpy as np
import pytest

from device import demo, library
from device.cli import main


def _episode(path: Path, seconds: float = 1.0, hz: float = 440.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.sin(2 * np.pi * hz * np.arange(int(16000 * seconds)) / 16000) * 9000).astype("<i2")
    demo.encode_episode(pcm.tobytes(), 16000, path)


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    """A library with one good album, one nested CD folder, one folder of covers only."""
    root = tmp_path / "library"
    _episode(root / "西游记" / "第01集.mp3")
    _episode(root / "西游记" / "第02集.mp3")
    _episode(root / "三国" / "CD1" / "01.mp3")
    _episode(root / "三国" / "02.mp3")
    (root / "封面").mkdir()
    (root / "封面" / "cover.jpg").write_bytes(b"\xff\xd8")
    (root / "封面" / "readme.txt").write_text("x")
    (root / "空").mkdir()
    return root


def test_survey_names_missing_paths_covers_and_nested_folders(shelf: Path, tmp_path: Path) -> None:
    found = library.survey([shelf, tmp_path / "nowhere"])
    titles = sorted(a.title for a in found.albums)
    assert titles == ["CD1", "三国", "西游记"]
    assert found.episodes == 4
    problems = "\n".join(found.problems())
    assert f"{tmp_path / 'nowhere'}: does not exist" in problems
    assert "封面: no audio files (only 1 .jpg, 1 .txt)" in problems or (
        "封面: no audio files (only 1 .txt, 1 .jpg)" in problems
    )
    assert "空: no audio files (empty)" in problems
    assert "CD1: read as its own album 'CD1', apart from '三国'" in problems


def test_doctor_and_start_up_log_say_it(shelf: Path, tmp_path: Path, caplog) -> None:
    from device.config import dev_config
    from device.doctor import check_library

    cfg = dev_config(tmp_path, library={"paths": [str(shelf), str(tmp_path / "nowhere")]})
    lines = [f.line() for f in check_library(cfg)]
    assert lines[0].startswith("[ ok ] library: 3 albums, 4 episodes under")
    assert any("nowhere: does not exist" in line and "[warn]" in line for line in lines)
    with caplog.at_level(logging.INFO, logger="device.library"):
        library.log_survey([tmp_path / "nowhere"])
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [f"library: {tmp_path / 'nowhere'}: does not exist (library.paths)"]


def test_add_copies_checks_and_gives_the_library_owner_the_files(
    shelf: Path, tmp_path: Path
) -> None:
    source = tmp_path / "home" / "红楼梦"
    _episode(source / "第1回.mp3")
    _episode(source / "第2回.mp3", hz=660)
    (source / "cover.jpg").write_bytes(b"\xff\xd8")
    os.chmod(tmp_path / "home", 0o700)  # a home folder the service user cannot enter
    owner = pwd.getpwnam("nobody")
    os.chown(shelf, owner.pw_uid, owner.pw_gid)
    entry = library.add(source, shelf)
    assert entry.title == "红楼梦" and entry.episodes == 2
    target = shelf / "红楼梦"
    for path in [target, *target.iterdir()]:
        st = path.stat()
        assert (st.st_uid, st.st_gid) == (owner.pw_uid, owner.pw_gid), path
        assert stat.S_IMODE(st.st_mode) == (0o755 if path.is_dir() else 0o644), path
    assert not [p for p in shelf.parent.iterdir() if p.name.startswith(".红楼梦")]
    with pytest.raises(library.LibraryError, match="already in the library"):
        library.add(source, shelf)


def test_add_refuses_files_that_do_not_play_and_leaves_nothing(shelf: Path, tmp_path) -> None:
    source = tmp_path / "bad"
    _episode(source / "01.mp3")
    (source / "02.mp3").write_bytes(os.urandom(20000))
    with pytest.raises(library.LibraryError, match=r"1 of 2 files do not play: 02\.mp3"):
        library.add(source, shelf)
    assert not (shelf / "bad").exists()
    only_text = tmp_path / "text"
    only_text.mkdir()
    (only_text / "a.txt").write_text("x")
    with pytest.raises(library.LibraryError, match="no audio files"):
        library.add(only_text, shelf)


def test_library_commands(shelf: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n[library]\npaths = ["{shelf}"]\n')
    assert main(["library", "list", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "西游记  (2 episodes)" in out and "3 albums, 4 episodes" in out
    source = tmp_path / "src" / "水浒传"
    _episode(source / "01.mp3")
    assert main(["library", "add", str(source), "--config", str(config)]) == 0
    assert "added '水浒传': 1 episode in" in capsys.readouterr().out
    elsewhere = tmp_path / "elsewhere"
    assert (
        main(["library", "add", str(source), "--to", str(elsewhere), "--config", str(config)]) == 1
    )
    assert "not in library.paths" in capsys.readouterr().err and not elsewhere.exists()
    (shelf / "西游记" / "第02集.mp3").write_bytes(b"\x00" * 5000)
    assert main(["--config", str(config), "library", "check"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "第02集.mp3" in out and "1 file does not play" in out
