"""Fast path: short, unambiguous commands matched before any model is called.

"暂停", "继续", "别放了", "现在在播什么", "下一集", "音量调到五十", "pause", "next
episode", "volume 40" and the like map straight to one tool call, so they cost
milliseconds rather than a model step. Only the whole utterance matches (after dropping
punctuation and politeness words), so "不要暂停" is never taken for "暂停".
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FastMatch", "FastPath", "chinese_number"]

_POLITE_ZH = re.compile(
    r"^(?:请你|请|麻烦|帮我|给我|小听小听|小听)+|(?:一下子|一下|吧|了|啊|呀|哦|呢|嘛|好吗|谢谢)+$"
)
_POLITE_EN = re.compile(
    r"^(?:(?:hey |ok |okay )?xiaoting,? |please |can you |could you |would you )+|"
    r"(?: please| now| thanks| thank you)+$"
)
_PUNCT = re.compile(r"[\s,.!?;:，。！？；：、~～…\"'“”‘’]+")

_COMMANDS: dict[str, tuple[str, ...]] = {
    "pause": (
        "暂停",
        "暂停播放",
        "停一下",
        "先停",
        "先停下",
        "先暂停",
        "等一下",
        "等等",
        "停一停",
        "暂停一下",
        "pause",
        "pause it",
        "pause playback",
        "pause the book",
        "hold on",
        "wait",
    ),
    "resume": (
        "继续",
        "继续播放",
        "继续放",
        "接着放",
        "接着播",
        "接着听",
        "恢复播放",
        "继续听",
        "接着播放",
        "resume",
        "continue",
        "keep playing",
        "resume playback",
        "unpause",
        "carry on",
        "continue playing",
        "go on",
    ),
    "stop": (
        "停止",
        "停止播放",
        "别放了",
        "不要放了",
        "不听了",
        "不放了",
        "关掉",
        "关了",
        "停了",
        "别播了",
        "stop",
        "stop playing",
        "stop it",
        "stop the book",
        "turn it off",
        "stop playback",
        "that's enough",
        "thats enough",
    ),
    "get_status": (
        "现在在播什么",
        "在播什么",
        "现在播的是什么",
        "在放什么",
        "现在在放什么",
        "放的是什么",
        "这是什么书",
        "播到哪了",
        "播到哪里了",
        "现在播到哪了",
        "现在放的是什么",
        "what's playing",
        "whats playing",
        "what is playing",
        "what is this",
        "status",
        "what am i listening to",
        "where are we",
        "what's on",
        "what is on",
    ),
    "next_episode": (
        "下一集",
        "下一章",
        "播放下一集",
        "放下一集",
        "听下一集",
        "换下一集",
        "下一回",
        "next",
        "next episode",
        "next chapter",
        "play the next episode",
        "skip to the next episode",
    ),
    "previous_episode": (
        "上一集",
        "上一章",
        "播放上一集",
        "放上一集",
        "听上一集",
        "上一回",
        "回到上一集",
        "previous",
        "previous episode",
        "previous chapter",
        "go back an episode",
        "play the previous episode",
    ),
}

_VOLUME_ZH = re.compile(
    r"^(?:把)?(?:音量|声音)(?:调到|调成|设为|设成|设置为|调整到|到)?([零〇一二两三四五六七八九十百\d]+)(?:%|％)?$"
)
_VOLUME_EN = re.compile(r"^(?:set |turn )?(?:the )?volume (?:to |at )?(\d{1,3})(?: ?%| percent)?$")

_SLEEP_ZH = re.compile(
    r"^(?:定时)?([零〇一二两三四五六七八九十百\d]+)分钟(?:后|以后|之后)(?:停止播放|停止|关掉|关闭|停|别放)$"
)
_SLEEP_EN = re.compile(
    r"^(?:stop(?: playing| playback)?|turn (?:it )?off|sleep timer|set a sleep timer(?: for)?)"
    r" (?:in |after |for )?(\d{1,3}) minutes?$"
)

_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}


def chinese_number(text: str) -> int | None:
    """Integer value of Arabic digits or a Chinese numeral up to 百 ("五十" -> 50); else None."""
    if text.isdigit():
        return int(text)
    if text == "一百" or text == "百":
        return 100
    if "十" in text:
        tens, _, ones = text.partition("十")
        high = _DIGITS.get(tens, None) if tens else 1
        low = _DIGITS.get(ones, None) if ones else 0
        if high is None or low is None:
            return None
        return high * 10 + low
    if len(text) == 1 and text in _DIGITS:
        return _DIGITS[text]
    return None


def normalise(utterance: str) -> str:
    """Lower-case `utterance` without punctuation, spaces at the ends or politeness words."""
    text = utterance.strip().lower().replace("’", "'")
    text = _PUNCT.sub(" ", text).strip()
    if re.search(r"[\u4e00-\u9fff]", text):
        text = text.replace(" ", "")
        for _ in range(2):
            text = _POLITE_ZH.sub("", text)
    else:
        for _ in range(2):
            text = _POLITE_EN.sub("", text).strip()
    return text


@dataclass(frozen=True)
class FastMatch:
    """A fast-path hit: call `tool` with `arguments`."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


class FastPath:
    """Matches whole short utterances to tool calls; `enabled=False` matches nothing."""

    def __init__(self, *, enabled: bool = True, extra: dict[str, tuple[str, ...]] | None = None):
        self.enabled = enabled
        self._phrases: dict[str, str] = {}
        for tool, phrases in {**_COMMANDS, **(extra or {})}.items():
            for phrase in phrases:
                self._phrases[normalise(phrase) or phrase] = tool

    def match(self, utterance: str, tools: Collection[str]) -> FastMatch | None:
        """The tool call for `utterance` if it is a known command and the tool exists."""
        if not self.enabled or len(utterance) > 40:
            return None
        text = normalise(utterance)
        if not text:
            return None
        tool = self._phrases.get(text)
        if tool is not None:
            return FastMatch(tool) if tool in tools else None
        if "sleep_timer" in tools:
            sleep = _SLEEP_ZH.match(text) or _SLEEP_EN.match(text)
            if sleep:
                value = chinese_number(sleep.group(1))
                if value is not None and 0 < value <= 600:
                    return FastMatch("sleep_timer", {"minutes": value})
        if "set_volume" in tools:
            volume = _VOLUME_ZH.match(text) or _VOLUME_EN.match(text)
            if volume:
                value = chinese_number(volume.group(1))
                if value is not None and 0 <= value <= 100:
                    return FastMatch("set_volume", {"percent": value})
        return None
