"""The device's own messages in Chinese and English, chosen by the configured `language`.

Spoken phrases (not heard, no microphone, an error), replies of the control socket and the
lines `xiaoting status` prints. `say(key, language, **values)` formats one.
"""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "not_heard": {"zh": "没听清。", "en": "Sorry, I didn't catch that."},
    "no_mic": {"zh": "麦克风不可用。", "en": "The microphone is not available."},
    "error": {"zh": "出错了，请再说一次。", "en": "Something went wrong, please try again."},
    "no_model": {"zh": "语言模型不可用。", "en": "The language model is not available."},
    "busy": {"zh": "正忙（{state}），请稍后再试", "en": "busy ({state}), try again shortly"},
    "turn_cancelled": {"zh": "这一轮被取消了", "en": "turn cancelled"},
    "other_language": {
        "zh": '服务使用的语言是 {service}（配置中 language = "{service}"），不是 {asked}；'
        "去掉 --language 再问，或改配置后重启服务",
        "en": 'the service speaks {service} (language = "{service}" in its config), not '
        "{asked}; ask without --language, or change the config and restart the service",
    },
    "no_tool": {
        "zh": "没有工具 {name!r}（可用：{known}）",
        "en": "no tool {name!r} (tools: {known})",
    },
    "injected": {"zh": "已加入纠正", "en": "correction injected"},
    # `xiaoting status`
    "st_state": {"zh": "语音：{value}", "en": "voice: {value}"},
    "st_starting": {"zh": "状态：{value}（pid {pid}）", "en": "state: {value} (pid {pid})"},
    "st_book": {"zh": "播放：{value}", "en": "playback: {value}"},
    "st_album": {"zh": "专辑：{value}", "en": "album: {value}"},
    "st_episode": {"zh": "集：{value}", "en": "episode: {value}"},
    "st_chapter": {"zh": "章：{value}", "en": "chapter: {value}"},
    "st_position": {"zh": "位置：{value}", "en": "position: {value}"},
    "st_volume": {"zh": "音量：{value}%", "en": "volume: {value}%"},
    "st_speed": {"zh": "速度：{value}倍", "en": "speed: {value}x"},
    "st_skips": {
        "zh": "跳过：片头{intro}秒，片尾{outro}秒",
        "en": "skipped: first {intro} s, last {outro} s of each episode",
    },
    "st_sleep": {"zh": "定时：{value}", "en": "sleep timer: {value}"},
    "st_sleep_episode": {"zh": "这一集放完就停", "en": "at the end of this episode"},
    "st_sleep_minutes": {"zh": "{minutes}分钟后停", "en": "in {minutes} min"},
    "st_downloads": {"zh": "下载：{value}", "en": "downloads: {value}"},
    "st_underruns": {"zh": "断音（欠载）：{value}", "en": "audio gaps (underruns): {value}"},
    "st_speaker": {"zh": "扬声器：{value}", "en": "speaker: {value}"},
    "st_turns": {
        "zh": "对话轮数：{value}（打断 {barge_ins} 次）",
        "en": "turns: {value} ({barge_ins} barge-ins)",
    },
    "st_last": {
        "zh": "上一轮：{utterance!r} → {answer!r}",
        "en": "last turn: {utterance!r} → {answer!r}",
    },
    "none": {"zh": "无", "en": "none"},
    "ok": {"zh": "正常", "en": "ok"},
    # in-process commands
    "own_process": {
        "zh": "没有正在运行的 xiaoting 服务应答；这一轮在本进程里运行（先加载模型）",
        "en": "no xiaoting service is answering; running this turn in its own process "
        "(loading the models first)",
    },
    "waiting_start": {
        "zh": "xiaoting 服务（pid {pid}）正在启动；最多等待 {seconds:.0f} 秒",
        "en": "the xiaoting service (pid {pid}) is starting; waiting up to {seconds:.0f} s",
    },
    "start_timeout": {
        "zh": "xiaoting 服务（pid {pid}）{seconds:.0f} 秒内没有就绪；看 journalctl -u xiaoting",
        "en": "the xiaoting service (pid {pid}) was not ready within {seconds:.0f} s; "
        "see journalctl -u xiaoting",
    },
}


STATE_NAMES_ZH = {
    "starting": "启动中", "idle": "空闲", "listening": "在听", "thinking": "在想",
    "speaking": "在说", "stopping": "正在退出", "loading": "加载中", "playing": "播放中",
    "paused": "已暂停",
}  # fmt: skip
"""The device's and the player's states in Chinese (`xiaoting status` keeps the English
name beside it, as the log writes it)."""


def state_name(state: str, language: str) -> str:
    """``"空闲 (idle)"`` in Chinese, ``"idle"`` in English."""
    zh = STATE_NAMES_ZH.get(state) if language == "zh" else None
    return f"{zh} ({state})" if zh else state


def say(key: str, language: str = "en", **values: object) -> str:
    """The message `key` in `language` (English when there is no such language)."""
    entry = TEXTS[key]
    return entry.get(language, entry["en"]).format(**values)
