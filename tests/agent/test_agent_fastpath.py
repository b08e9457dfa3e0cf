"""Fast-path commands in Chinese and English (the player's own phrases), and non-matches."""

from __future__ import annotations

import pytest

from agent import tool_from_function
from agent.fastpath import FastPath, chinese_number
from player.tools import PlayerTools

# The player's tool functions: the phrases and patterns travel with them.
TOOLS = [tool_from_function(f) for f in PlayerTools.tools(PlayerTools())]


@pytest.mark.parametrize(
    ("utterance", "tool", "arguments"),
    [
        ("暂停", "pause", {}),
        ("暂停一下。", "pause", {}),
        ("请暂停", "pause", {}),
        ("Pause.", "pause", {}),
        ("please pause", "pause", {}),
        ("继续", "resume", {}),
        ("继续播放吧", "resume", {}),
        ("Resume", "resume", {}),
        ("keep playing", "resume", {}),
        ("别放了", "stop", {}),
        ("不听了", "stop", {}),
        ("Stop playing!", "stop", {}),
        ("现在在播什么", "get_status", {}),
        ("现在在播什么？", "get_status", {}),
        ("What's playing?", "get_status", {}),
        ("下一集", "next_episode", {}),
        ("Next episode", "next_episode", {}),
        ("上一集", "previous_episode", {}),
        ("previous chapter", "previous_episode", {}),
        ("音量调到50", "set_volume", {"percent": 50}),
        ("音量调到五十", "set_volume", {"percent": 50}),
        ("把声音调到三十五", "set_volume", {"percent": 35}),
        ("volume 40", "set_volume", {"percent": 40}),
        ("set the volume to 70 percent", "set_volume", {"percent": 70}),
        ("大声点", "volume_up", {}),
        ("声音大一点吧", "volume_up", {}),
        ("louder please", "volume_up", {}),
        ("小点声", "volume_down", {}),
        ("quieter", "volume_down", {}),
        ("接着来", "resume", {}),
        ("carry on playing", "resume", {}),
        ("放到哪儿了", "get_status", {}),
        ("where did I stop?", "get_status", {}),
        ("有什么书", "list_albums", {}),
        ("What books do you have?", "list_albums", {}),
        ("30分钟后停止", "sleep_timer", {"minutes": 30}),
        ("再听十分钟就关了", "sleep_timer", {"minutes": 10}),
        ("过十分钟关掉", "sleep_timer", {"minutes": 10}),
        ("再过五分钟就停", "sleep_timer", {"minutes": 5}),
        ("二十分钟以后自动关闭", "sleep_timer", {"minutes": 20}),
        ("到第几集了", "get_status", {}),
        ("play for another twenty minutes", "sleep_timer", {"minutes": 20}),
        ("keep it going another 5 minutes and then stop", "sleep_timer", {"minutes": 5}),
        ("第五集", "play_book", {"section": 5}),
        ("跳到第八集", "play_book", {"section": 8}),
        ("帮我放第12集吧", "play_book", {"section": 12}),
        ("play episode 3", "play_book", {"section": 3}),
        ("Go to chapter four.", "play_book", {"section": 4}),
        ("back to the story", "resume", {}),
        ("the one before this", "previous_episode", {}),
        ("wait a second", "pause", {}),
        ("稍等一下", "pause", {}),
        ("嗯，暂停一下吧", "pause", {}),
        ("那个，下一集好不好", "next_episode", {}),
        ("um, pause it please", "pause", {}),
        ("ok so, next episode", "next_episode", {}),
        ("能不能大声点啊", "volume_up", {}),
        ("Which book is this?", "get_status", {}),
        ("你好！", "help", {}),  # no tool does it: the listener hears what can be done
        ("今天天气怎么样？", "help", {}),
        ("Tell me a joke.", "help", {}),
        ("How many books do you have?", "list_albums", {}),
        ("一共有多少本书", "list_albums", {}),
    ],
)
def test_commands(utterance: str, tool: str, arguments: dict) -> None:
    hit = FastPath().match(utterance, TOOLS)
    assert hit is not None and hit.tool == tool and hit.arguments == arguments


@pytest.mark.parametrize(
    "utterance",
    [
        "不要暂停",
        "播放西游记第1集",
        "stop the music and play 三体",
        "音量调到二百",
        "volume 300",
        "继续播放三国演义",
        "",
        "what's playing on the radio in Beijing",
        "再听一集就关",  # an episode, not minutes
        "过两分钟播放西游记",
        "西游记第几集",
        "第零集",  # below the episode's minimum
        "第五集讲的什么",
        "episode 3 of dune",
        "嗯",  # a filler alone is no command
        "好的",
    ],
)
def test_not_commands(utterance: str) -> None:
    assert FastPath().match(utterance, TOOLS) is None


def test_switched_off_or_tool_missing() -> None:
    assert FastPath(enabled=False).match("暂停", TOOLS) is None
    assert FastPath().match("暂停", [t for t in TOOLS if t.name == "stop"]) is None


def test_chinese_numbers() -> None:
    assert [
        chinese_number(t)
        for t in (
            "五",
            "十",
            "十五",
            "五十",
            "九十九",
            "一百",
            "42",
            "一百二十",
            "一百零五",
            "二〇二",
        )
    ] == [5, 10, 15, 50, 99, 100, 42, 120, 105, 202]
    assert [chinese_number(t) for t in ("", "五个", "abc")] == [None, None, None]


TITLES = ["西游记", "家", "紅樓夢", "Alice in Wonderland", "It"]


def _fold(text: str) -> str:
    from player.textmatch import fold

    return fold(text)


@pytest.mark.parametrize(
    ("utterance", "tool", "arguments"),
    [
        ("西游记有多少集", "search_album", {"keyword": "西游记"}),
        ("家有几集？", "search_album", {"keyword": "家"}),
        ("红楼梦一共几集啊", "search_album", {"keyword": "紅樓夢"}),  # folded to the title
        ("How many episodes does Alice in Wonderland have?", "search_album",
         {"keyword": "Alice in Wonderland"}),
        ("how many chapters are in It", "search_album", {"keyword": "It"}),
        ("我现在听的这本书一共有多少集", "get_status", {}),
        ("这本书有几集", "get_status", {}),
        ("how many episodes does this book have", "get_status", {}),
    ],
)  # fmt: skip
def test_count_questions(utterance: str, tool: str, arguments: dict) -> None:
    hit = FastPath().match(utterance, TOOLS, TITLES, _fold)
    assert hit is not None and (hit.tool, hit.arguments) == (tool, arguments)


@pytest.mark.parametrize(
    "utterance",
    ["三国演义有多少集", "播放西游记几集", "how many episodes does Harry Potter have", "有几集"],
)
def test_count_questions_name_a_library_title_or_go_to_the_model(utterance: str) -> None:
    """A title group matches a whole library title only; no titles known, nothing matches."""
    assert FastPath().match(utterance, TOOLS, TITLES, _fold) is None
    assert FastPath().match("西游记有多少集", TOOLS) is None


@pytest.mark.parametrize(
    ("utterance", "tool", "arguments"),
    [
        ("不想听这个了，下一集", "next_episode", {}),
        ("no, not that one, the previous one", "previous_episode", {}),
        ("下一集，不对，上一集", "previous_episode", {}),  # a correction: the last wins
        ("过二十分钟，关掉", "sleep_timer", {"minutes": 20}),  # whole, the comma dropped
        ("I'm tired. Could you stop it after 15 minutes?", "sleep_timer", {"minutes": 15}),
        ("唉，我走神了，现在听到哪一集了", "get_status", {}),
        ("hmm, which episode are we on now?", "get_status", {}),
    ],
)
def test_the_last_clause_is_the_command(utterance: str, tool: str, arguments: dict) -> None:
    hit = FastPath().match(utterance, TOOLS, TITLES, _fold)
    assert hit is not None and (hit.tool, hit.arguments) == (tool, arguments)


@pytest.mark.parametrize(
    "utterance",
    [
        "二十分钟以后吧，暂停",  # the amount belongs to the command
        "in half an hour, stop",
        "明天早上七点，暂停",
        "西游记，下一集",  # a title named before: that book's next episode, for the model
        "Alice in Wonderland, next episode",
        "下一集，不要暂停",  # the last clause is no whole command
    ],
)
def test_earlier_clauses_with_an_amount_or_a_title_go_to_the_model(utterance: str) -> None:
    assert FastPath().match(utterance, TOOLS, TITLES, _fold) is None


@pytest.mark.parametrize(
    ("utterance", "tool"),
    [
        ("声音有点太大了", "volume_down"),
        ("it's much too loud", "volume_down"),
        ("这声音也太小了吧", "volume_up"),
        ("I can't really hear it", "volume_up"),
        ("我们现在放到第几集了", "get_status"),
        ("what chapter are we up to", "get_status"),
        ("where did I leave off", "get_status"),
        ("我正在听的这部一共几集", "get_status"),
    ],
)
def test_more_words_for_volume_and_status(utterance: str, tool: str) -> None:
    hit = FastPath().match(utterance, TOOLS)
    assert hit is not None and (hit.tool, hit.arguments) == (tool, {})


@pytest.mark.parametrize(
    ("utterance", "tool", "arguments"),
    [
        ("播放西游记", "play_book", {"keyword": "西游记"}),
        ("我想听红楼梦", "play_book", {"keyword": "紅樓夢"}),
        ("先不听这个了，换成家", "play_book", {"keyword": "家"}),
        ("put on Alice in Wonderland", "play_book", {"keyword": "Alice in Wonderland"}),
        ("有没有西游记", "search_album", {"keyword": "西游记"}),
        ("书库里有红楼梦吗？", "search_album", {"keyword": "紅樓夢"}),
        ("do you have Alice in Wonderland?", "search_album", {"keyword": "Alice in Wonderland"}),
    ],
)
def test_a_whole_library_title_played_or_asked_for(
    utterance: str, tool: str, arguments: dict
) -> None:
    hit = FastPath().match(utterance, TOOLS, TITLES, _fold)
    assert hit is not None and (hit.tool, hit.arguments) == (tool, arguments)


@pytest.mark.parametrize(
    "utterance",
    [
        "播放西游", "接着听西游记", "播放西游记第2集", "play Alice", "有西游记第五集吗",
        "do you have anything by Lewis Carroll",
    ],
)  # fmt: skip
def test_a_title_not_whole_or_more_than_a_title_goes_to_the_model(utterance: str) -> None:
    assert FastPath().match(utterance, TOOLS, TITLES, _fold) is None
