"""Short, speakable tool results in Chinese ("zh") or English ("en").

Results go back into a small model's context, so they are one or two sentences, give ids
the model can pass to the next tool, and read well when spoken.
"""

from __future__ import annotations

import re

MESSAGES: dict[str, tuple[str, str]] = {
    "found": ("找到{total}个专辑: {items}", "Found {total} albums: {items}"),
    "found_page": ("第{page}页，共{total}个专辑: {items}", "Page {page} of {total} albums: {items}"),
    "item": ("{n}. {title}{author} (id: {id}, {count}集)", "{n}. {title}{author} (id: {id}, {count} episodes)"),
    "by": ("|{author}", " by {author}"),
    "none_found": ("没有找到“{keyword}”相关的有声书", "No audiobooks found for \"{keyword}\""),
    "no_page": ("“{keyword}”没有第{page}页了", "No page {page} for \"{keyword}\""),
    "detail": ("{title} (id: {id}) 共{count}集: {items}", "{title} (id: {id}), {count} episodes: {items}"),
    "detail_more": ("…还有{more}集", "… and {more} more"),
    "episode": ("第{section}集{title}", "Episode {section}{title}"),
    "left_at": ("上次听到第{section}集 {time}", "Last listened: episode {section} at {time}"),
    "playing_local": ("正在播放(本地): {album} 第{section}集{title}", "Playing (local): {album}, episode {section}{title}"),
    "resuming": ("从第{section}集 {time} 继续播放{album}", "Resuming {album} at episode {section}, {time}"),
    "downloading": ("正在下载{album} 第{section}集，稍等，下载好就播放", "Downloading {album} episode {section}; it will play when ready"),
    "paused": ("已暂停 {album} 第{section}集", "Paused {album}, episode {section}"),
    "resumed": ("继续播放 {album} 第{section}集", "Resumed {album}, episode {section}"),
    "stopped": ("已停止播放", "Playback stopped"),
    "nothing": ("现在没有在播放", "Nothing is playing"),
    "not_paused": ("正在播放，没有暂停", "Already playing"),
    "status_playing": ("正在播放 {album} 第{section}集{title}，{pos}/{dur}", "Playing {album}, episode {section}{title}, {pos} of {dur}"),
    "status_paused": ("已暂停 {album} 第{section}集{title}，{pos}/{dur}", "Paused {album}, episode {section}{title}, {pos} of {dur}"),
    "status_loading": ("正在准备 {album} 第{section}集", "Preparing {album}, episode {section}"),
    "status_idle": ("空闲，没有在播放", "Idle, nothing playing"),
    "status_volume": ("音量{volume}%", "volume {volume}%"),
    "status_download": ("下载{album} 第{section}集 {progress}", "downloading {album} episode {section}: {progress}"),
    "status_sleep": ("{minutes}分钟后停止", "stopping in {minutes} min"),
    "status_error": ("上次出错: {error}", "last error: {error}"),
    "no_section": ("{album}只有{count}集，没有第{section}集", "{album} has {count} episodes; there is no episode {section}"),
    "bad_section": ("集数从1开始", "Episodes are numbered from 1"),
    "no_next": ("已经是最后一集了", "This is the last episode"),
    "no_previous": ("已经是第一集了", "This is the first episode"),
    "seeked": ("已跳到 {time}", "Jumped to {time}"),
    "bad_seek": ("这一集只有{dur}", "This episode is only {dur} long"),
    "volume": ("音量已调到{volume}%", "Volume set to {volume}%"),
    "bad_volume": ("音量要在0到100之间", "Volume must be between 0 and 100"),
    "sleep_set": ("好的，{minutes}分钟后停止播放", "Playback will stop in {minutes} minutes"),
    "sleep_off": ("已取消定时", "Sleep timer cancelled"),
    "bad_sleep": ("定时要在0到600分钟之间", "The sleep timer must be 0 to 600 minutes"),
    "empty_keyword": ("请告诉我书名", "Please tell me the title"),
    "no_album": ("没有这个专辑: {id}", "No such album: {id}"),
    "corrupt": ("{album} 第{section}集的文件坏了，已从缓存删除", "The file of {album} episode {section} is corrupt and was removed from the cache"),
    "corrupt_local": ("{album} 第{section}集的文件坏了，无法播放", "The file of {album} episode {section} is corrupt and cannot be played"),
    "no_episodes": ("{album}没有可以播放的集", "{album} has no playable episodes"),
}  # fmt: skip


def say(language: str, key: str, **values: object) -> str:
    """The message `key` in `language` ("zh" or "en"), formatted with `values`."""
    zh, en = MESSAGES[key]
    return (en if language == "en" else zh).format(**values)


def clock(language: str, seconds: float) -> str:
    """A speakable duration: "3分05秒" / "1小时2分" in Chinese, "3:05" / "1:02:00" in English."""
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if language == "en":
        return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
    if hours:
        return f"{hours}小时{minutes}分"
    if minutes:
        return f"{minutes}分{secs:02d}秒"
    return f"{secs}秒"


def episode_title(episode) -> str:
    """An episode's title, or "" when it only repeats its number ("第2集", "02", "Chapter 2")."""
    from .numbers import section_number

    title = episode.title.strip()
    rest = re.sub(r"第\s*\S{1,6}?\s*[集回章话講讲节期]|chapter|ch\.?|episode|ep|part|[\d\s._#-]+", "",
                  title, flags=re.I)  # fmt: skip
    if not rest and section_number(title) in (episode.section, None):
        return ""
    return title


def title_part(language: str, episode) -> str:
    """The episode title ready to follow its number: " 猴王出世" / ": The Storm", or ""."""
    title = episode_title(episode)
    if not title:
        return ""
    return f": {title}" if language == "en" else f" {title}"
