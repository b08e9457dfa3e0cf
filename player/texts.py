"""Short, speakable tool results in Chinese ("zh") or English ("en").

Each is the ``message`` of a tool result or a speakable error: one sentence that reads well
when spoken, with no album id, no long list and no number said twice (ids and counts
travel in the result's data).
"""

from __future__ import annotations

import re

from words.text import has_cjk

MESSAGES: dict[str, tuple[str, str]] = {
    "found": ("找到{total}个专辑：{items}", "Found {total} albums: {items}"),
    "found_single": ("找到1个专辑：{items}", "Found 1 album: {items}"),
    "found_one": ("有{item}", "There is {item}"),
    "found_exact": ("有{item}；另有{others}个相关专辑", "There is {item}; {others} more albums match"),
    "found_page": ("第{page}页，共{total}个专辑：{items}", "Page {page} of {total} albums: {items}"),
    "found_person": ("{name}的专辑有{total}个：{items}", "{name} has {total} albums here: {items}"),
    "found_person_one": ("{name}的专辑有一个：{items}", "{name} has one album here: {items}"),
    "found_which": ("{found}。想听哪一本？", "{found}. Which one would you like?"),
    "item": ("{title}{author}，{count}集", "{title}{author}, {count} episodes"),
    "by": ("（{author}）", " by {author}"),
    "read_by": ("，{narrator}演播", ", read by {narrator}"),
    "none_found": ("没有找到“{keyword}”相关的有声书", "Sorry, I couldn't find an audiobook called \"{keyword}\""),
    "none_found_offer": ("没有找到“{keyword}”相关的有声书。我只能播放书库里的书，比如{items}",
                         "Sorry, I couldn't find \"{keyword}\". I can only play the books in "
                         "this library, such as {items}"),
    "none_found_near": ("没有找到“{keyword}”。你是说{title}吗？",
                        "Sorry, I couldn't find \"{keyword}\". Did you mean {title}?"),
    "no_page": ("“{keyword}”没有第{page}页了", "No page {page} for \"{keyword}\""),
    "detail": ("{title}共{count}集：{items}", "{title} has {count} episodes: {items}"),
    "episode": ("第{section}集{title}", "episode {section}{title}"),
    "left_at": ("；上次听到第{section}集{time}", "; last listened: episode {section} at {time}"),
    "playing_local": ("正在播放{album}第{section}集{title}", "Playing {album}, episode {section}{title}"),
    "resuming": ("从第{section}集{time}处继续播放{album}", "Resuming {album} at episode {section}, {time}"),
    "resuming_chapter": ("从第{section}章{time}处继续播放{album}", "Resuming {album} at chapter {section}, {time}"),
    "playing_chapter": ("正在播放{album}第{section}章{title}", "Playing {album}, chapter {section}{title}"),
    "downloading": ("正在下载{album}第{section}集，稍等，下载好就播放", "Downloading {album} episode {section}; it will play when ready"),
    "paused": ("已暂停{album}第{section}集", "Paused {album}, episode {section}"),
    "paused_chapter": ("已暂停{album}第{section}章", "Paused {album}, chapter {section}"),
    "resumed": ("继续播放{album}第{section}集", "Resumed {album}, episode {section}"),
    "resumed_chapter": ("继续播放{album}第{section}章", "Resumed {album}, chapter {section}"),
    "stopped": ("已停止播放", "Playback stopped"),
    "nothing": ("现在没有在播放", "Nothing is playing"),
    "nothing_which": ("现在没有在播放，想听哪一本？", "Nothing is playing. Which book would you like?"),
    "help": ("我只能帮你听有声书，别的事做不到；你可以说“播放”加书名、“暂停”或“下一集”。",
             "I can only play audiobooks, nothing else; you can say play and a title, pause, "
             "or next episode."),
    "help_title": ("我只能帮你听有声书，别的事做不到；你可以说“播放{title}”、“暂停”或“下一集”。",
                   "I can only play audiobooks, nothing else; you can say \"play {title}\", "
                   "pause, or next episode."),
    "not_paused": ("正在播放，没有暂停", "Already playing"),
    "status_playing": ("正在播放{album}第{section}集{title}（共{count}集），{pos}/{dur}", "Playing {album}, episode {section} of {count}{title}, {pos} of {dur}"),
    "status_paused": ("已暂停{album}第{section}集{title}（共{count}集），{pos}/{dur}", "Paused {album}, episode {section} of {count}{title}, {pos} of {dur}"),
    "status_loading": ("正在准备{album}第{section}集", "Preparing {album}, episode {section}"),
    "status_idle": ("空闲，没有在播放", "Idle, nothing playing"),
    "status_left_off": ("没有在播放，上次听到{album}第{section}集{pos}处", "Nothing playing; {album} was left at episode {section}, {pos}"),
    "status_left_off_start": ("没有在播放，上次听到{album}第{section}集，从头开始", "Nothing playing; {album} was left at the start of episode {section}"),
    "about_episodes": ("{album}一共{count}集，现在是第{section}集", "{album} has {count} episodes; this is episode {section}"),
    "about_left": ("{album}一共{count}集，现在是第{section}集，后面还有{left}集", "{album} has {count} episodes; this is episode {section}, with {left} more after it"),
    "about_last": ("这是{album}的最后一集了", "This is the last episode of {album}"),
    "about_time_left": ("这一集还剩{rest}，一共{dur}", "{rest} left of this episode, which is {dur} long"),
    "about_length": ("这一集{dur}，{album}一共{count}集", "This episode is {dur} long; {album} has {count} episodes"),
    "about_author": ("{album}的作者是{author}", "{album} is by {author}"),
    "about_no_author": ("书里没有写{album}的作者", "The book does not say who wrote {album}"),
    "about_narrator": ("{album}是{narrator}演播的", "{album} is read by {narrator}"),
    "about_no_narrator": ("书里没有写{album}是谁读的", "The book does not say who reads {album}"),
    "about_description": ("{album}：{text}", "{album}: {text}"),
    "about_no_description": ("书里没有{album}的简介；它一共{count}集", "The book has no summary of {album}; it has {count} episodes"),
    "about_volume": ("音量是{volume}%", "The volume is {volume}%"),
    "about_sleep": ("已设置定时，{minutes}分钟后停止播放",
                    "The sleep timer is set: playback will stop in {minutes} minutes"),
    "about_no_sleep": ("没有设置定时，会接着往下放", "No timer is set: it will keep playing"),
    "about_skip": ("{album}每一集跳过片头{intro}秒、片尾{outro}秒", "Every episode of {album} skips its first {intro} seconds and its last {outro} seconds"),
    "about_skip_intro": ("{album}每一集跳过片头{intro}秒", "Every episode of {album} skips its first {intro} seconds"),
    "about_skip_outro": ("{album}每一集跳过片尾{outro}秒", "Every episode of {album} skips its last {outro} seconds"),
    "about_no_skip": ("{album}没有跳过片头片尾", "{album} skips nothing at the start or end of its episodes"),
    "context_before": ("之前在听{album}第{section}集", "before that, {album} episode {section}"),
    "status_volume": ("音量{volume}%", "volume {volume}%"),
    "status_download": ("下载{album}第{section}集 {progress}", "downloading {album} episode {section}: {progress}"),
    "status_sleep": ("{minutes}分钟后停止", "stopping in {minutes} min"),
    "status_skip": ("每集跳过{what}", "skipping {what} of each episode"),
    "status_skip_intro": ("片头{seconds}秒", "the first {seconds} seconds"),
    "status_skip_outro": ("片尾{seconds}秒", "the last {seconds} seconds"),
    "status_error": ("上次出错：{error}", "last error: {error}"),
    "status_speaker": ("扬声器不可用，播放停在这里", "speaker unavailable; playback is waiting here"),
    "status_unsaved": ("书签暂时存不下，重启后会丢失", "bookmarks cannot be saved now and would be lost on a restart"),
    "context_playing": ("正在播放 {album} 第{section}集（共{count}集），{pos}", "playing {album}, episode {section} of {count}, at {pos}"),
    "context_paused": ("已暂停 {album} 第{section}集（共{count}集），{pos}", "paused {album}, episode {section} of {count}, at {pos}"),
    "context_loading": ("正在准备 {album} 第{section}集（共{count}集）", "preparing {album}, episode {section} of {count}"),
    "context_bookmark": ("{album}上次听到第{section}集{pos}", "{album} was left at episode {section}, {pos}"),
    "context_idle": ("没有在播放", "nothing playing"),
    "no_section": ("{album}只有{count}集，没有第{section}集", "{album} has {count} episodes; there is no episode {section}"),
    "no_section_back": ("{album}只有{count}集，没有倒数第{back}集", "{album} has {count} episodes; there is no episode {back} from the end"),
    "bad_section": ("集数从1开始", "Episodes are numbered from 1"),
    "no_episode_title": ("{album}里没有叫“{words}”的一集", "{album} has no episode called \"{words}\""),
    "no_next": ("已经是最后一集了", "This is the last episode; there is no next one"),
    "no_previous": ("已经是第一集了", "This is the first episode; there is no earlier one"),
    "seeked": ("已跳到{time}", "Jumped to {time}"),
    "bad_seek": ("这一集只有{dur}", "This episode is only {dur} long"),
    "volume": ("音量已调到{volume}%", "Volume set to {volume}%"),
    "volume_max": ("音量最高{volume}%，已调到{volume}%", "The volume limit is {volume}%; set to {volume}%"),
    "volume_top": ("音量已经是最大的{volume}%了", "The volume is already at its maximum, {volume}%"),
    "bad_volume": ("音量要在0到100之间", "Volume must be between 0 and 100"),
    "sleep_set": ("好的，{minutes}分钟后停止播放", "Playback will stop in {minutes} minutes"),
    "sleep_off": ("已取消定时", "Sleep timer cancelled"),
    "bad_sleep": ("定时要在0到600分钟之间", "The sleep timer must be 0 to 600 minutes"),
    "sleep_episode": ("好的，这一集放完就停", "Playback will stop at the end of this episode"),
    "status_sleep_episode": ("这一集放完就停", "stopping at the end of this episode"),
    "about_sleep_episode": ("已设置定时：这一集放完会停止播放",
                            "The sleep timer is set: playback will stop at the end of this episode"),
    "volume_bedtime": ("现在是睡觉时间，音量最高{volume}%，已调到{volume}%", "It's bedtime: the volume limit is {volume}%; set to {volume}%"),
    "volume_top_bedtime": ("现在是睡觉时间，音量已经是最大的{volume}%了", "It's bedtime: the volume is already at its limit, {volume}%"),
    "volume_min": ("音量最低{volume}%，已调到{volume}%", "The volume can't go below {volume}%; set to {volume}%"),
    "volume_bottom": ("音量已经是最小的{volume}%了", "The volume is already at its minimum, {volume}%"),
    "speed": ("已调到{rate}倍速", "Speed set to {rate} times"),
    "speed_normal": ("已恢复正常速度", "Back to normal speed"),
    "speed_top": ("已经是最快的{rate}倍速了", "Already at the fastest speed, {rate} times"),
    "speed_bottom": ("已经是最慢的{rate}倍速了", "Already at the slowest speed, {rate} times"),
    "bad_speed": ("速度要在0.5到2倍之间", "The speed must be between 0.5 and 2 times"),
    "status_speed": ("{rate}倍速", "speed {rate} times"),
    "skip_set": ("好的，{album}每一集{what}", "OK: every episode of {album} {what}"),
    "skip_intro": ("跳过片头{seconds}秒", "skips its first {seconds} seconds"),
    "skip_intro_off": ("不再跳过片头", "no longer skips its start"),
    "skip_outro": ("跳过片尾{seconds}秒", "skips its last {seconds} seconds"),
    "skip_outro_off": ("不再跳过片尾", "no longer skips its end"),
    "bad_skip": ("请说片头或片尾要跳过几秒，最多600秒", "Say how many seconds of the start or end to skip, up to 600"),
    "empty_keyword": ("请告诉我书名", "Please tell me the title"),
    "no_album": ("没有这个专辑，请先搜索书名", "No such album; search for the title first"),
    "err_decode": ("这个音频文件坏了，无法播放", "This audio file is damaged and cannot be played"),
    "err_download": ("下载没有完成，稍后会再试", "The download did not finish; it will be tried again later"),
    "err_source": ("有声书来源出了问题，请稍后再试", "An audiobook source failed; please try again later"),
    "err_other": ("这个做不到，请换个说法", "That didn't work; please say it another way"),
    "which_book": ("想听哪一本？书库里有{total}本书，比如{items}", "Which book would you like? The library has {total}, such as {items}"),
    "library": ("书库里有{total}本书，有{items}", "The library has {total} books, such as {items}"),
    "library_all": ("书库里有{total}本书：{items}", "The library has {total} books: {items}"),
    "sleep_dropped": ("{message}。上一本书这一集放完就停的定时已取消", "{message}. The stop at the end of the other book's chapter is off"),
    "which_of": ("你说的是哪一本？是{items}？", "Which one do you mean: {items}?"),
    "which_book_one": ("想听哪一本？书库里有一本书：{items}", "Which book would you like? The library has one: {items}"),
    "library_one": ("书库里有一本书：{items}", "The library has one book: {items}"),
    "library_empty": ("书库里还没有书", "The library has no books yet"),
    "corrupt": ("{album}第{section}集的文件坏了，已从缓存删除", "The file of {album} episode {section} is corrupt and was removed from the cache"),
    "corrupt_local": ("{album}第{section}集的文件坏了，无法播放", "The file of {album} episode {section} is corrupt and cannot be played"),
    "no_episodes": ("{album}没有可以播放的集", "{album} has no playable episodes"),
}  # fmt: skip

# Catalogs over the network and downloads: which source failed, and why, in words.
NETWORK_MESSAGES: dict[str, tuple[str, str]] = {
    "local_label": ("本地", "the local library"),
    "source_status": ("{source}返回错误{status}", "{source} answered with error {status}"),
    "source_too_big": ("{source}返回的数据太大", "{source} sent more data than allowed"),
    "source_cut": ("{source}的数据没有传完", "{source} sent an incomplete answer"),
    "source_redirects": ("{source}的地址一直在跳转", "{source} redirects in a loop"),
    "source_timeout": ("{source}响应太慢", "{source} did not answer in time"),
    "source_unreachable": ("{source}连不上", "{source} is unreachable"),
    "source_not_json": ("{source}返回的不是JSON", "{source} did not answer with JSON"),
    "source_bad_data": ("{source}返回的数据格式不对", "{source} answered in an unexpected format"),
    "source_api_error": ("{source}报错: {msg}", "{source} reported an error: {msg}"),
    "source_bad_feed": ("{source}的订阅无法读取", "the feed {source} cannot be read"),
    "sources_down": ("{sources}暂时连不上", "{sources} unreachable"),
    "sources_stale": ("{sources}连不上，用的是上次的结果", "{sources} unreachable, showing earlier results"),
    "found_partial": ("{found}（{note}）", "{found} ({note})"),
    "none_found_partial": ("没有找到“{keyword}”，{note}", "Nothing found for \"{keyword}\"; {note}"),
    "all_down": ("有声书来源暂时都连不上，请稍后再试", "No audiobook source can be reached now; please try later"),
    "playing_cached": ("正在播放{album}第{section}集{title}", "Playing {album}, episode {section}{title}"),
    "dl_stalled": ("网络卡住了，下载没完成，下次会接着下载", "The network stalled; the download will continue later"),
    "dl_dropped": ("网络断了，下载没完成，下次会接着下载", "The connection dropped; the download will continue later"),
    "dl_redirects": ("下载地址一直在跳转，下载失败", "The download address redirects in a loop"),
    "dl_bad_url": ("这一集的下载地址不对", "This episode's download address is not valid"),
    "dl_not_found": ("找不到这一集的音频文件", "The audio file of this episode was not found"),
    "dl_http": ("下载失败，服务器返回{status}", "The download failed: the server answered {status}"),
    "dl_busy": ("服务器忙，请{seconds}秒后再试", "The server is busy; try again in {seconds} seconds"),
    "dl_server": ("服务器出错({status})，下载没完成，稍后会再试", "The server failed ({status}); the download will be retried later"),
    "dl_size": ("下载的文件大小不对", "The downloaded file has the wrong size"),
    "dl_short": ("下载的文件不完整，下次会接着下载", "The downloaded file is incomplete; it will continue later"),
    "dl_not_audio": ("下载到的是网页，不是音频", "The download is a web page, not audio"),
    "dl_undecodable": ("下载的文件不是能播放的音频", "The downloaded file is not playable audio"),
    "dl_disk_full": ("存储空间不够，下载失败", "Not enough storage space for the download"),
    "dl_read_only": ("存储是只读的，无法下载", "The storage is read-only; nothing can be downloaded"),
    "dl_write": ("写缓存文件失败: {error}", "Writing the cache file failed: {error}"),
    "dl_superseded": ("下载已取消，换成了新的请求", "Download cancelled for a newer request"),
    "dl_failed": ("{album} 第{section}集下载失败: {error}", "Download of {album} episode {section} failed: {error}"),
    "dl_queued": ("排队等待下载", "queued"),
    "bad_location": ("第{section}集的地址不安全，已拒绝", "The address of episode {section} is not allowed"),
}  # fmt: skip
MESSAGES.update(NETWORK_MESSAGES)


def say(language: str, key: str, **values: object) -> str:
    """The message `key` in `language` ("zh" or "en"), formatted with `values`."""
    zh, en = MESSAGES[key]
    return (en if language == "en" else zh).format(**values)


def album_name(language: str, album) -> str:
    """The name to speak `album` (an `Album`: ``title``, ``aliases``) by in `language`.

    In "en" its title when that holds no CJK ideograph, else its first alias that holds
    none, else its title; in "zh" its title when that holds a CJK ideograph, else its first
    alias that holds one, else its title. So an English voice never reads 西游记 when
    album.json gives "Journey to the West", nor a Chinese one "Dracula" over 德古拉:
    ("en", 西游记 + ("Journey to the West",)) -> "Journey to the West";
    ("zh", Dracula + ("德古拉",)) -> "德古拉"; ("en", 活着 + ()) -> "活着".
    """
    want_cjk = language != "en"
    if has_cjk(album.title) == want_cjk:
        return album.title
    for alias in album.aliases:
        alias = str(alias).strip()
        if alias and has_cjk(alias) == want_cjk:
            return alias
    return album.title


def join_titles(language: str, items: list[str], *, more: bool = False) -> str:
    """Items joined for speech: "西游记、三体和红楼梦" / "A, B and C"; `more` adds "等"/"…"."""
    if not items:
        return ""
    if language == "en":
        if more:  # "A, B, C and more", never "A, B and C and more"
            return ", ".join(items) + " and more"
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    text = items[0] if len(items) == 1 else "、".join(items[:-1]) + "和" + items[-1]
    return text + ("等" if more else "")


def join_choices(language: str, items: list[str]) -> str:
    """Items offered as a choice: "西游记还是三体" / "A, B or C"."""
    if len(items) < 2:
        return "".join(items)
    if language == "en":
        return ", ".join(items[:-1]) + " or " + items[-1]
    return "、".join(items[:-1]) + "还是" + items[-1]


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


_NUMBER_PREFIX = re.compile(
    r"^\s*(?:第\s*[0-9零〇一二两三四五六七八九十百千]+\s*[集回章话講讲节期]?"
    r"|(?:chapter|ch\.?|episode|ep\.?|part)\s*\d+|\d+)[\s._:：、,，-]*",
    re.IGNORECASE,
)
_SLUG = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+|[a-z0-9]*\d[a-z0-9]*", re.IGNORECASE)
"""A file name made for a machine: words and numbers joined by "_" with no space
("prideandprejudice_01_64kb", "mobydick_003_melville_64kb"), or one token holding a
digit ("track01", "cd1")."""
_NOISE = re.compile(
    r"(?<![a-z])(?:\d+\s*k(?:b|bps|bit)?(?:/s)?|vbr|cbr|mp3|m4a|m4b|aac|librivox)(?![a-z])"
    r"|(?<![a-z])(?:track|cd|disc|disk|side)\s*[-_#.]?\s*\d+(?!\d)"
    r"|(?<![a-z])track(?![a-z])",
    re.IGNORECASE,
)
"""What a rip or a download adds to a name: bitrates, formats, track, CD and disc numbers."""
_EDGE = r"[\s\d._:：、,，\-—–()（）\[\]【】#]"


def episode_title(episode, album: str = "") -> str:
    """An episode's title when it is words worth speaking, without a leading number that
    repeats its section ("第二集 拜师学艺" -> "拜师学艺"); "" when it is only a number ("第2集",
    "02", "Chapter 2"), a file name's slug ("prideandprejudice_01_64kb"), a rip's track
    number ("01 - Track 01"), or the `album` title repeated ("西游记 第01集")."""
    from words.numbers import section_number

    title = episode.title.strip()
    if not title or _SLUG.fullmatch(title):
        return ""
    text = _NOISE.sub(" ", title)
    if album.strip():
        name = re.escape(album.strip())
        text = re.sub(rf"^\s*{name}(?={_EDGE}|$)|(?<={_EDGE}){name}\s*$|^\s*{name}\s*$", " ",
                      text, flags=re.I)  # fmt: skip
    text = re.sub(r"\s+", " ", text).strip(" ._:：、,，-—–#()（）[]【】")
    if text != title.strip() and not re.search(r"[^\W\d_]", text):
        return ""  # nothing but numbers once the noise and the album's title are gone
    rest = re.sub(r"第\s*\S{1,6}?\s*[集回章话講讲节期]|chapter|ch\.?|episode|ep|part|[\d\s._#-]+", "",
                  text, flags=re.I)  # fmt: skip
    if not rest and section_number(text) in (episode.section, None):
        return ""
    prefix = _NUMBER_PREFIX.match(text)
    if prefix and prefix.end() < len(text):
        said = prefix.group(0)
        if section_number(said) == episode.section or re.fullmatch(r"[\s\d._:：、,，-]+", said):
            return text[prefix.end() :].strip()
    return text


def title_part(language: str, episode, album: str = "") -> str:
    """The episode title ready to follow its number: " 猴王出世" / ": The Storm", or ""
    (see `episode_title`); "" in English for a title in Chinese characters, which the
    English voice cannot say (the number is said)."""
    title = episode_title(episode, album)
    if not title or (language == "en" and has_cjk(title)):
        return ""
    return f": {title}" if language == "en" else f" {title}"
