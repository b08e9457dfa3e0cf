"""Which tools an utterance can mean, from its words: the grammar leaves out the rest.

A small model, asked "搜一下红楼梦", may start playback; asked "今天天气怎么样", it may
search for "天气". These word lists (Chinese and English) tell questions from commands
and book requests from small talk; `narrow` turns them into `Constraints.excluded`.
They only ever remove tools, and only where the words make the meaning plain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .grammar import Constraints
from .tools import Tool

__all__ = ["about_current", "asks_only", "controls_playback", "narrow", "wants_books"]


_ASK_ZH = re.compile(r"搜|找|查|有没有|有无|多少集|几集|多少章|几章|多少回|几回|多长")
_ASK_EN = re.compile(
    r"\b(?:search|find|look (?:for|up)|do you have|is there|have you got|how many|how long)\b"
)
_PLAY_ZH = re.compile(r"播放|放一下|放个|放点|来点|来一集|开始播|开始听|点播")
_PLAY_EN = re.compile(r"\b(?:play|put on|start|listen to|let'?s hear)\b")


def asks_only(utterance: str) -> bool:
    """True when `utterance` asks about the library (search, "do you have", "how many
    episodes") and says no word that starts playback ("播放", "play", "put on").

    The loop then leaves the playback commands (return-direct tools) out of the grammar:
    a question is answered, not acted on.
    """
    text = utterance.lower().replace("’", "'")
    asks = _ASK_ZH.search(text) or _ASK_EN.search(text)
    plays = _PLAY_ZH.search(text) or _PLAY_EN.search(text)
    return bool(asks) and not plays


_CURRENT_ZH = re.compile(
    r"这本|这部|这个书|在听的|在放的|在播的|正在听|正在放|正在播|现在听|现在放|现在播|"
    r"到哪|第几集|第几章|哪一集"
)
_CURRENT_EN = re.compile(
    r"\b(?:this book|this one|the book i'?m|i'?m listening|i am listening|currently|"
    r"current book|what'?s playing|is playing|where are we|where am i|how far|"
    r"which (?:episode|chapter))\b"
)


def about_current(utterance: str) -> bool:
    """True when `utterance` refers to the album playing now ("这本书", "the book I'm
    listening to") without naming it: the loop asks for the status first."""
    text = utterance.lower().replace("’", "'")
    return bool(_CURRENT_ZH.search(text) or _CURRENT_EN.search(text))


_BOOKS_ZH = re.compile(r"听|放|播|来点|来个|来一|来段|书|集|章|回|专辑|小说|故事会|评书|相声")
_BOOKS_EN = re.compile(
    r"\b(?:play|put on|listen|hear|start|read|book|audiobook|album|episode|chapter|story)"
)


def wants_books(utterance: str) -> bool:
    """True when `utterance` asks to search or play something (a search word such as
    "搜", "有没有", "find", or a listening word such as "听", "播放", "play", "episode").

    With a known library and no album title named, the loop admits the search and play
    tools only then, so "今天天气怎么样" or "tell me a joke" get an answer, not a search.
    """
    text = utterance.lower().replace("’", "'")
    if _ASK_ZH.search(text) or _ASK_EN.search(text):
        return True
    return bool(_BOOKS_ZH.search(text) or _BOOKS_EN.search(text))


_CONTROL_ZH = re.compile(
    r"停|暂停|继续|接着|恢复|下一|上一|快进|快退|后退|前进|倒回|跳|音量|声音|大声|小声|响|"
    r"分钟|定时|关|开|在播|在放|进度|哪了|哪里"
)
_CONTROL_EN = re.compile(
    r"\b(?:stop|pause|hold|wait|resume|continue|carry|keep|next|previous|back|forward|"
    r"skip|rewind|ahead|volume|louder|quieter|softer|loud|quiet|timer|minutes?|sleep|"
    r"turn|mute|playing|where)\b"
)


def controls_playback(utterance: str) -> bool:
    """True when `utterance` has a word of playback control ("停", "下一", "音量", "pause",
    "skip", "volume", "minutes") or of listening (see `wants_books`).

    With a known library, an utterance with neither (weather, jokes, football) is given
    no tool at all: the model can only answer.
    """
    text = utterance.lower().replace("’", "'")
    return wants_books(text) or bool(_CONTROL_ZH.search(text) or _CONTROL_EN.search(text))


def narrow(
    constraints: Constraints, tools: Sequence[Tool], utterance: str, titles: Sequence[str]
) -> bool:
    """Exclude in `constraints` the tools `utterance` cannot mean; True when the first step
    must ask for the status (the utterance means "the book playing now" without naming it).

    A named album title (one of `titles`, the library's) leaves only the tools taking a
    keyword; with a known library, an utterance asking for no book leaves out the search
    tools, and one with no word of playback either leaves out every tool; a question
    leaves out the playback commands (return-direct tools).
    """
    text_arguments = set(constraints.text_arguments)

    def takes_text(tool: Tool) -> bool:
        return bool(set(tool.parameters.get("properties", {}) or {}) & text_arguments)

    named = bool(constraints.mention(titles, utterance))
    if named:
        constraints.excluded.update(t.name for t in tools if not takes_text(t))
    elif titles and not wants_books(utterance):
        control = controls_playback(utterance)
        constraints.excluded.update(t.name for t in tools if takes_text(t) or not control)
    if asks_only(utterance):
        constraints.excluded.update(t.name for t in tools if t.return_direct)
    return not named and about_current(utterance) and any(t.name == "get_status" for t in tools)
