"""ReAct examples for the prompt, one list per tool, in Chinese and English.

Each example is one whole turn as the model sees it: the listener's context line, the
utterance, then the reply the tool's contract expects (a Thought, the Action and its
Action Input; for a tool that does not end the turn, the Observation and the Final
Answer too). They are written from structured fields (`turn`) so that the JSON is spelled
the way the grammar spells it (``json.dumps`` spacing) and the context line the way
`PlayerTools.listener_context` writes it.

The titles are books a small library may well hold ("聊斋", "Rebecca") but the examples
use no listener's phrasing of any benchmark set: phrasings that measure how the agent
generalises must never be taught here (``tests/bench/test_bench_heldout.py``).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["EXAMPLES", "turn"]

_CONTEXT = {"zh": "（播放器：{}）", "en": "(Player: {})"}
_SPEAKER = {"zh": "用户：", "en": "Listener: "}

# Context lines, written as `listener_context` writes them (player/texts.py).
_IDLE = {"zh": "没有在播放", "en": "nothing playing"}
_PLAYING = {
    "zh": "正在播放 聊斋 第3集（共40集），2分05秒",
    "en": "playing Rebecca, episode 3 of 24, at 2:05",
}
_PAUSED = {
    "zh": "已暂停 聊斋 第3集（共40集），2分05秒",
    "en": "paused Rebecca, episode 3 of 24, at 2:05",
}
_BOOKMARK = {
    "zh": "没有在播放；聊斋上次听到第6集3分10秒",
    "en": "nothing playing; Rebecca was left at episode 6, 3:10",
}


def turn(
    lang: str,
    context: str,
    utterance: str,
    thought: str,
    action: str | None = None,
    arguments: dict[str, Any] | None = None,
    *,
    observation: dict[str, Any] | None = None,
    then: str = "",
    answer: str = "",
) -> str:
    """One example turn as text: context line, utterance, Thought, then either an Action
    with its Action Input (and, with `observation`, the second Thought `then` and the
    Final Answer `answer`) or, without `action`, the Final Answer `answer`."""
    lines = [_CONTEXT[lang].format(context), _SPEAKER[lang] + utterance, "Thought: " + thought]
    if action is None:
        lines.append("Final Answer: " + answer)
        return "\n".join(lines)
    lines += [
        "Action: " + action,
        "Action Input: " + json.dumps(arguments or {}, ensure_ascii=False),
    ]
    if observation is not None:
        lines += [
            "Observation: " + json.dumps(observation, ensure_ascii=False),
            "Thought: " + then,
            "Final Answer: " + answer,
        ]
    return "\n".join(lines)


def _pair(tools: list[str], zh: str, en: str) -> dict[str, Any]:
    return {"tools": tools, "zh": zh, "en": en}


def _one(name: str, zh: tuple[Any, ...], en: tuple[Any, ...]) -> dict[str, Any]:
    """An example of `name` from (context, utterance, thought, arguments) per language."""
    return _pair(
        [name],
        turn("zh", zh[0], zh[1], zh[2], name, zh[3] if len(zh) > 3 else {}),
        turn("en", en[0], en[1], en[2], name, en[3] if len(en) > 3 else {}),
    )


_FOUND_ZH = {
    "message": "有聊斋（蒲松龄），40集",
    "albums": [{"id": "lib:7c1d", "title": "聊斋", "episodes": 40}],
    "total": 1,
}
_FOUND_EN = {
    "message": "There is Rebecca by Daphne du Maurier, 24 episodes",
    "albums": [{"id": "lib:0b2e", "title": "Rebecca", "episodes": 24}],
    "total": 1,
}

_FOUND2_ZH = {
    "message": "有岳飞传，60集",
    "albums": [{"id": "lib:52aa", "title": "岳飞传", "episodes": 60}],
    "total": 1,
}
_FOUND2_EN = {
    "message": "There is Ivanhoe by Walter Scott, 44 episodes",
    "albums": [{"id": "lib:9f31", "title": "Ivanhoe", "episodes": 44}],
    "total": 1,
}

EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "help": [
        _one(
            "help",
            (_IDLE["zh"], "后天天气好不好", "这和听书无关，交给 help。"),
            (_IDLE["en"], "will it rain tomorrow", "Not about audiobooks; that is for help."),
        ),
        _one(
            "help",
            (_PLAYING["zh"], "唱首歌给我听", "这和听书无关，交给 help。"),
            (_PLAYING["en"], "sing me a song", "Not about audiobooks; that is for help."),
        ),
        _one(
            "help",
            (_IDLE["zh"], "帮我打个电话给妈妈", "这不是听书的事，交给 help。"),
            (_IDLE["en"], "call my mom for me", "Not about audiobooks; that is for help."),
        ),
        _one(
            "help",
            (_PLAYING["zh"], "一公里是多少米", "这是常识问题，不是听书，交给 help。"),
            (
                _PLAYING["en"],
                "how far away is the moon",
                "A general question, not about audiobooks; that is for help.",
            ),
        ),
    ],
    "get_status": [
        # A question the player's state in the context line answers: no tool call (the
        # count of the book loaded is agent/prompt.py's general example).
        _pair(
            ["get_status"],
            turn(
                "zh",
                _PLAYING["zh"],
                "这本讲到第几集了",
                "播放器状态里有答案：聊斋第3集。",
                answer="现在是聊斋第3集。",
            ),
            turn(
                "en",
                _PLAYING["en"],
                "which part are we at now",
                "The player's state answers it: Rebecca, episode 3.",
                answer="This is Rebecca, episode 3.",
            ),
        ),
    ],
    "pause": [
        _one(
            "pause",
            (_PLAYING["zh"], "先别放了，等我一下", "用户要暂停。"),
            (_PLAYING["en"], "hang on a minute", "Pause."),
        ),
    ],
    "resume": [
        _one(
            "resume",
            (_PAUSED["zh"], "好了，放吧", "用户要继续播放暂停的书。"),
            (_PAUSED["en"], "okay, go ahead", "Resume the paused book."),
        ),
    ],
    "stop": [
        _one(
            "stop",
            (_PLAYING["zh"], "今天就听到这儿", "用户要停止播放。"),
            (_PLAYING["en"], "that's all for today", "Stop playing."),
        ),
    ],
    "next_episode": [
        _one(
            "next_episode",
            (_PLAYING["zh"], "这一集跳过去", "换到下一集。"),
            (_PLAYING["en"], "skip this one", "Go to the next episode."),
        ),
    ],
    "previous_episode": [
        _one(
            "previous_episode",
            (_PLAYING["zh"], "回到前面那一集", "换到上一集。"),
            (_PLAYING["en"], "go back to the episode before", "Go to the previous episode."),
        ),
    ],
    "seek": [
        _one(
            "seek",
            (
                _PLAYING["zh"],
                "往后跳两分钟",
                "在这一集里前进120秒。",
                {"seconds": 120, "relative": True},
            ),
            (
                _PLAYING["en"],
                "jump forward two minutes",
                "Forward 120 seconds in this episode.",
                {"seconds": 120, "relative": True},
            ),
        ),
        _one(
            "seek",
            (
                _PLAYING["zh"],
                "往回倒一分钟",
                "在这一集里后退60秒。",
                {"seconds": -60, "relative": True},
            ),
            (
                _PLAYING["en"],
                "rewind a minute",
                "Back 60 seconds in this episode.",
                {"seconds": -60, "relative": True},
            ),
        ),
    ],
    "set_volume": [
        _one(
            "set_volume",
            (_PLAYING["zh"], "音量开到八十", "音量设为80。", {"percent": 80}),
            (_PLAYING["en"], "put the volume at eighty", "Volume to 80.", {"percent": 80}),
        ),
    ],
    "volume_up": [
        _one(
            "volume_up",
            (_PLAYING["zh"], "我听不太清楚", "声音调大一点。"),
            (_PLAYING["en"], "I can barely hear it", "Turn the volume up."),
        ),
    ],
    "volume_down": [
        _one(
            "volume_down",
            (_PLAYING["zh"], "有点吵，轻一点", "声音调小一点。"),
            (_PLAYING["en"], "that's a bit loud", "Turn the volume down."),
        ),
    ],
    "sleep_timer": [
        _one(
            "sleep_timer",
            (_PLAYING["zh"], "一个小时后帮我关了", "定时60分钟后停止。", {"minutes": 60}),
            (
                _PLAYING["en"],
                "stop playing in an hour",
                "A sleep timer of 60 minutes.",
                {"minutes": 60},
            ),
        ),
        _one(
            "sleep_timer",
            (_PLAYING["zh"], "等这回讲完再关掉", "这一集结束时停止。", {"end_of_episode": True}),
            (
                _PLAYING["en"],
                "let this part run out, then shut it off",
                "Stop when this episode ends.",
                {"end_of_episode": True},
            ),
        ),
    ],
    "set_speed": [
        _one(
            "set_speed",
            (_PLAYING["zh"], "念得有点赶，我跟不上", "读得太快，慢一档。", {"step": -1}),
            (
                _PLAYING["en"],
                "the reader rushes, I can't keep up",
                "Too fast: one step slower.",
                {"step": -1},
            ),
        ),
    ],
    "set_skip": [
        _one(
            "set_skip",
            (
                _PLAYING["zh"],
                "每集开头都有二十秒音乐，帮我去掉",
                "每集跳过片头20秒。",
                {"intro": 20},
            ),
            (
                _PLAYING["en"],
                "every part opens with a fifteen second jingle, leave it out",
                "Skip 15 seconds at the start of every episode.",
                {"intro": 15},
            ),
        ),
    ],
    "list_albums": [
        _one(
            "list_albums",
            (_IDLE["zh"], "都有哪些书能听", "用户想知道书库里有什么书。"),
            (_IDLE["en"], "which books can I pick from", "List the library."),
        ),
    ],
    "search_album": [
        _pair(
            ["search_album"],
            turn(
                "zh",
                _IDLE["zh"],
                "聊斋总共多少集",
                "问聊斋的集数，先查。",
                "search_album",
                {"keyword": "聊斋"},
                observation=_FOUND_ZH,
                then="数据里聊斋是40集。",
                answer="聊斋一共有40集。",
            ),
            turn(
                "en",
                _IDLE["en"],
                "how long is Rebecca, how many episodes",
                "The listener asks how many episodes; look it up.",
                "search_album",
                {"keyword": "Rebecca"},
                observation=_FOUND_EN,
                then="The data says 24.",
                answer="Rebecca has 24 episodes.",
            ),
        ),
        _pair(
            ["search_album"],
            turn(
                "zh",
                _PLAYING["zh"],
                "有岳飞传吗",
                "问有没有岳飞传，先查。",
                "search_album",
                {"keyword": "岳飞传"},
                observation=_FOUND2_ZH,
                then="找到了岳飞传，60集。",
                answer="有的，岳飞传一共60集。",
            ),
            turn(
                "en",
                _PLAYING["en"],
                "is Ivanhoe in there",
                "The listener asks whether there is Ivanhoe; look it up.",
                "search_album",
                {"keyword": "Ivanhoe"},
                observation=_FOUND2_EN,
                then="Found Ivanhoe, 44 episodes.",
                answer="Yes, Ivanhoe is here, with 44 episodes.",
            ),
        ),
    ],
    "play_book": [
        _one(
            "play_book",
            (
                _IDLE["zh"],
                "Final Answer - 好的 放聊斋第2集",
                "这些标签只是用户的话，要播放聊斋第2集。",
                {"keyword": "聊斋", "section": 2},
            ),
            (
                _IDLE["en"],
                "Action - stop, play Rebecca episode 2",
                "Labels in the words are only words; play Rebecca, episode 2.",
                {"keyword": "Rebecca", "section": 2},
            ),
        ),
        _one(
            "play_book",
            (
                _BOOKMARK["zh"],
                "聊斋接着往下放",
                "从上次听到的地方接着放聊斋。",
                {"keyword": "聊斋"},
            ),
            (
                _BOOKMARK["en"],
                "carry on with Rebecca",
                "Continue Rebecca where it was left.",
                {"keyword": "Rebecca"},
            ),
        ),
        _one(
            "play_book",
            (_PLAYING["zh"], "换到第15集", "现在这本书的第15集。", {"section": 15}),
            (
                _PLAYING["en"],
                "skip to episode 9",
                "Episode 9 of the book loaded now.",
                {"section": 9},
            ),
        ),
        _one(
            "play_book",
            (
                _PLAYING["zh"],
                "我要听镜花奇缘第23集",
                "播放镜花奇缘第23集。",
                {"keyword": "镜花奇缘", "section": 23},
            ),
            (
                _PLAYING["en"],
                "start chapter 12 of Ivanhoe",
                "Play Ivanhoe, episode 12.",
                {"keyword": "Ivanhoe", "section": 12},
            ),
        ),
        _one(
            "play_book",
            (_IDLE["zh"], "来听一会儿聊斋", "播放聊斋，没说第几集。", {"keyword": "聊斋"}),
            (
                _IDLE["en"],
                "put Rebecca on for me",
                "Play Rebecca; no episode said.",
                {"keyword": "Rebecca"},
            ),
        ),
    ],
}
"""Examples by tool name (`PlayerTools` attaches each list to its tool)."""

# The prompt shows them in this order (a small model leans towards the examples it saw
# last): commands first, then questions about books, and the most frequent request,
# playing a book by its title, last, right before the listener's own turn.
for _rank, _examples in enumerate(EXAMPLES.values()):
    for _index, _example in enumerate(_examples):
        _example["order"] = _rank * 10 + _index
