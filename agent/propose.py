"""A call the model guessed, said back to the listener as a question before it is made.

When the words of a request point at no tool (no cue, no title: "she sounds like a
chipmunk") the local model's choice is a guess, and a wrong guess changes what the
listener hears: a stop for "I can't hear it", another book for a question. Such a call is
not made; the listener is asked "Do you want me to slow it down?" and a yes next turn
makes it (`Agent` keeps the proposal). `describe` gives the words for one call, or None
for a call it cannot say (a tool of another MCP server): that one is made as before.
"""

from __future__ import annotations

from typing import Any

__all__ = ["describe"]


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _seconds(value: Any, language: str) -> str:
    total = int(abs(float(value)))
    minutes, seconds = divmod(total, 60)
    if language == "zh":
        if minutes and seconds:
            return f"{minutes}分{seconds}秒"
        return f"{minutes}分钟" if minutes else f"{seconds}秒"
    if minutes and seconds:
        return f"{minutes} minute{'s' if minutes > 1 else ''} {seconds} seconds"
    if minutes:
        return f"{minutes} minute{'s' if minutes > 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def describe(tool: str, arguments: dict[str, Any], language: str) -> str | None:
    """What the call `tool(arguments)` does, as the object of "你是要我…吗？" / "Do you want
    me to …?" in `language` ("zh"/"en"); None for a tool this module does not know."""
    a = arguments or {}
    zh = language == "zh"
    if tool in ("play_book", "search_and_play"):
        keyword, section = str(a.get("keyword") or "").strip(), a.get("section")
        title = str(a.get("episode_title") or "").strip()
        if zh:
            what = (
                f"播放{keyword}"
                if keyword
                else ("播放" if section or title else "接着播放上次的书")
            )
            if section:
                what += "最后一集" if section == -1 else f"第{_number(section)}集"
            elif title:
                what += f"《{title}》"
            return what
        what = (
            f"play {keyword}"
            if keyword
            else ("play" if section or title else "go on with the last book")
        )
        if section == -1:
            what = f"play the last episode of {keyword}" if keyword else "play the last episode"
        elif section:
            what = f"{what}, episode {_number(section)}".replace("play, ", "play ")
        elif title:
            what += f" “{title}”"
        return what
    if tool == "seek":
        seconds = a.get("seconds")
        if seconds is None:
            return None
        if a.get("relative"):
            if zh:
                return f"{'快进' if float(seconds) >= 0 else '后退'}{_seconds(seconds, language)}"
            way = "skip ahead" if float(seconds) >= 0 else "go back"
            return f"{way} {_seconds(seconds, language)}"
        minutes, rest = divmod(int(float(seconds)), 60)
        return f"跳到{minutes}分{rest}秒" if zh else f"jump to {minutes}:{rest:02d}"
    if tool == "set_volume":
        percent = a.get("percent")
        if percent is None:
            return None
        return f"把音量调到{_number(percent)}%" if zh else f"set the volume to {_number(percent)}%"
    if tool == "set_speed":
        rate, step = a.get("rate"), int(a.get("step") or 0)
        if rate is not None:
            if float(rate) == 1.0:
                return "恢复正常速度" if zh else "go back to normal speed"
            return (
                f"把速度调到{_number(rate)}倍" if zh else f"set the speed to {_number(rate)} times"
            )
        if step:
            if zh:
                return "调快一点" if step > 0 else "调慢一点"
            return "speed it up" if step > 0 else "slow it down"
        return None
    if tool == "sleep_timer":
        if a.get("end_of_episode"):
            return "这一集放完就停" if zh else "stop at the end of this episode"
        minutes = a.get("minutes")
        if minutes is None:
            return None
        if not minutes:
            return "取消定时" if zh else "cancel the sleep timer"
        return f"{_number(minutes)}分钟后停" if zh else f"stop in {_number(minutes)} minutes"
    if tool == "set_skip":
        intro, outro = a.get("intro"), a.get("outro")
        if (intro is None and outro is None) or a.get("relative"):
            return None
        parts = []
        if zh:
            if intro is not None:
                parts.append(f"片头跳过{_number(intro)}秒" if intro else "不跳片头")
            if outro is not None:
                parts.append(f"片尾跳过{_number(outro)}秒" if outro else "不跳片尾")
            return "每集" + "、".join(parts)
        if intro is not None:
            parts.append(
                f"skip the first {_number(intro)} seconds" if intro else "stop skipping the start"
            )
        if outro is not None:
            parts.append(
                f"skip the last {_number(outro)} seconds" if outro else "stop skipping the end"
            )
        return " and ".join(parts) + " of every episode"
    plain = {
        "pause": ("暂停", "pause"),
        "resume": ("接着播放", "resume"),
        "stop": ("停止播放", "stop"),
        "next_episode": ("播放下一集", "play the next episode"),
        "previous_episode": ("播放上一集", "play the previous episode"),
        "volume_up": ("把声音调大", "turn it up"),
        "volume_down": ("把声音调小", "turn it down"),
    }
    if tool in plain:
        return plain[tool][0 if zh else 1]
    return None
