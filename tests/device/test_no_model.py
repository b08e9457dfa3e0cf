"""Without a language model the fast path still serves the real player; volume wiring."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "player"))

from player_fixtures import RecordingSink, make_album

from device.config import dev_config
from device.runtime import NoModelAgent, _make_registry, default_agent
from player import Player


async def _player(tmp_path: Path, config) -> Player:
    player = Player(
        library_paths=list(config.library.paths),
        cache_dir=config.path("cache_dir"),
        state_dir=config.path("state_dir"),
        sink=RecordingSink(speed=20.0),
        language=config.language,
        volume_percent=config.audio.volume_percent,
        max_volume_percent=config.audio.max_volume_percent,
    )
    await asyncio.wait_for(player.start(), 5)
    return player


async def test_short_commands_work_with_no_model_file(tmp_path) -> None:
    library = tmp_path / "library"
    make_album(library, "西游记", ["第1集", "第2集"], seconds=2.0)
    config = dev_config(
        tmp_path,
        language="zh",
        models_dir=str(tmp_path / "no-models"),
        library={"paths": [str(library)]},
        llm={"policy": "local"},
        audio={"volume_percent": 60, "max_volume_percent": 70},
    )
    player = await _player(tmp_path, config)
    try:
        agent, backends = await asyncio.wait_for(
            default_agent(config, _make_registry(config, player)), 10
        )
        assert backends == []
        assert isinstance(agent, NoModelAgent) and agent.registry is not None
        await player.play_book("西游记", section=1)
        for utterance, tool, answer in [
            ("暂停", "pause", "已暂停西游记第1集"),
            ("接着来", "resume", "继续播放西游记第1集"),
            ("大声点", "volume_up", "音量已调到70%"),
            ("大声点", "volume_up", "音量已经是最大的70%了"),
            ("小点声", "volume_down", "音量已调到60%"),
            ("下一级", "next_episode", "正在播放西游记第2集"),
        ]:
            turn = await asyncio.wait_for(agent.run(utterance), 5)
            assert turn.backend == "fastpath", utterance
            assert [s.action for s in turn.steps] == [tool], utterance
            assert turn.answer == answer
        # Understood whole, it needs no model: a title the library lacks plays nothing.
        turn = await asyncio.wait_for(agent.run("播放三体第五集"), 5)
        assert turn.backend == "fastpath" and player.now.detail.album.title == "西游记"
        assert turn.answer.startswith("没有找到“三体”")
        # What the words do not say plainly needs the model, which is not there.
        turn = await asyncio.wait_for(agent.run("西游记好听吗"), 5)
        assert turn.answer.startswith("抱歉，语言模型不可用")
        assert "model file" in turn.error or "no model" in turn.error or turn.error
    finally:
        await asyncio.wait_for(player.close(), 5)


async def test_the_configured_volume_is_the_players(tmp_path) -> None:
    config = dev_config(tmp_path, audio={"volume_percent": 80})
    player = await _player(tmp_path, config)
    try:
        assert (await player.get_status())["volume"] == 80
    finally:
        await asyncio.wait_for(player.close(), 5)


async def test_the_agents_own_answers_name_a_book_in_the_language(tmp_path) -> None:
    """The questions the agent composes without a tool ("which book?") name the library's
    books as the tools do: by their alias in the configured language (album.json)."""
    library = tmp_path / "library"
    for title, aliases in [("西游记", ["Journey to the West"]), ("Dracula", ["德古拉"])]:
        folder = make_album(library, title, ["第1集", "第2集"], seconds=1.0)
        info = {"title": title, "aliases": aliases}
        (folder / "album.json").write_text(json.dumps(info, ensure_ascii=False), "utf-8")
    for language, utterance, answer in [
        ("en", "play another book", "Which book would you like? For example Dracula or "
         "Journey to the West."),
        ("zh", "换一本", "想听哪一本？比如德古拉还是西游记。"),
    ]:  # fmt: skip
        config = dev_config(
            tmp_path / language,
            language=language,
            models_dir=str(tmp_path / "no-models"),
            library={"paths": [str(library)]},
            llm={"policy": "local"},
        )
        player = await _player(tmp_path / language, config)
        try:
            agent, _backends = await asyncio.wait_for(
                default_agent(config, _make_registry(config, player)), 10
            )
            turn = await asyncio.wait_for(agent.run(utterance), 5)
            assert (turn.backend, turn.answer) == ("fastpath", answer)
        finally:
            await asyncio.wait_for(player.close(), 5)
