"""The page's server-side messages in Chinese and English: every refusal names what was
wrong in words (the page shows them as they are). `say(key, language, **values)`."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # access
    "not_local": {
        "zh": "这个页面只对本地网络开放",
        "en": "this page is for the local network only",
    },
    "bad_host": {
        "zh": "不认识的地址 {host}：请用盒子的 IP 地址或名字打开（或把它加到 web.hosts）",
        "en": "unknown host name {host}: open the page by the box's address or name "
        "(or add it to web.hosts)",
    },
    "bad_origin": {
        "zh": "来自别的网站（{origin}）的请求被拒绝",
        "en": "a request from another site ({origin}) was refused",
    },
    "no_password": {
        "zh": "还没有设置密码：在盒子上运行 sudo xiaoting web password 设置一个",
        "en": "no password is set yet: run `sudo xiaoting web password` on the box to set one",
    },
    "login": {"zh": "请先登录", "en": "log in first"},
    "wrong_password": {"zh": "密码不对", "en": "wrong password"},
    "rate_limited": {
        "zh": "密码错误次数太多，请 {seconds} 秒后再试",
        "en": "too many wrong passwords: try again in {seconds} s",
    },
    "csrf": {
        "zh": "请求缺少本页的安全令牌（CSRF），已拒绝；请刷新页面",
        "en": "the request lacks this page's security token (CSRF) and was refused; "
        "reload the page",
    },
    "bad_json": {
        "zh": "请求内容不是有效的 JSON 对象",
        "en": "the request body is not a JSON object",
    },
    "bad_field": {"zh": "字段 {field} 不对：{why}", "en": "field {field} is wrong: {why}"},
    "no_player": {"zh": "播放器不可用", "en": "the player is not available"},
    "internal": {
        "zh": "盒子上出错了（{what}）；详情见 journalctl -u xiaoting",
        "en": "something went wrong on the box ({what}); see journalctl -u xiaoting",
    },
    "no_album": {"zh": "没有这个专辑", "en": "no such album"},
    "not_local_album": {
        "zh": "《{title}》不是本地书库里的专辑，不能在这里改动",
        "en": "{title} is not an album of the local library; it cannot be changed here",
    },
    "album_in_root": {
        "zh": "《{title}》的文件直接放在书库文件夹里，不能整本删除",
        "en": "the files of {title} lie in the library folder itself; it cannot be removed "
        "as one album",
    },
    "deleted": {"zh": "已删除《{title}》", "en": "{title} removed"},
    "renamed": {"zh": "已改名为《{title}》", "en": "renamed to {title}"},
    "book_saved": {"zh": "《{title}》的设置已保存", "en": "settings of {title} saved"},
    # uploads
    "too_big": {
        "zh": "上传太大：最多 {limit} MB",
        "en": "the upload is too large: at most {limit} MB",
    },
    "no_space": {
        "zh": "盒子上的空间不够：剩 {free} MB，需要 {need} MB",
        "en": "not enough space on the box: {free} MB free, {need} MB needed",
    },
    "too_many": {
        "zh": "文件太多：一次最多 {limit} 个",
        "en": "too many files: at most {limit} in one upload",
    },
    "no_files": {"zh": "没有收到音频文件", "en": "no audio files were received"},
    "not_multipart": {
        "zh": "上传要用 multipart/form-data",
        "en": "an upload must be sent as multipart/form-data",
    },
    "name_path": {
        "zh": "名字 {name!r} 带有文件夹路径（/、\\ 或 ..），已拒绝",
        "en": "the name {name!r} holds a folder path (/, \\ or ..) and was refused",
    },
    "name_hidden": {
        "zh": "名字 {name!r} 以点开头（隐藏文件），已拒绝",
        "en": "the name {name!r} starts with a dot (a hidden file) and was refused",
    },
    "name_bad": {
        "zh": "名字 {name!r} 不能用（空的、太长或含控制字符）",
        "en": "the name {name!r} cannot be used (empty, too long, or control characters)",
    },
    "not_audio_type": {
        "zh": "{name} 不是音频文件（支持 {types}，或一个 .zip）",
        "en": "{name} is not an audio file ({types}, or one .zip)",
    },
    "zip_alone": {
        "zh": ".zip 要单独上传（一个 .zip 就是一本书）",
        "en": "a .zip is uploaded on its own (one .zip is one album)",
    },
    "duplicate": {
        "zh": "有两个文件都叫 {name}",
        "en": "two files are both named {name}",
    },
    "bad_zip": {
        "zh": "{name} 不是有效的 zip 文件：{why}",
        "en": "{name} is not a valid zip: {why}",
    },
    "zip_encrypted": {
        "zh": "{name} 有密码保护，不能解压",
        "en": "{name} is password-protected and cannot be unpacked",
    },
    "zip_bomb": {
        "zh": "{name} 解压后远大于压缩包本身（{ratio}:1），像是“zip 炸弹”，已拒绝",
        "en": "{name} would unpack to far more than its own size ({ratio}:1), like a zip "
        "bomb, and was refused",
    },
    "zip_lies": {
        "zh": "{name} 里的 {member} 比声明的更大，已拒绝",
        "en": "{member} in {name} is larger than declared and was refused",
    },
    "not_audio": {
        "zh": "{total} 个文件中有 {count} 个不能播放，没有加入书库：{files}",
        "en": "{count} of {total} files do not play, so nothing was added: {files}",
    },
    "album_name": {
        "zh": "给这本书起个名字（专辑名）",
        "en": "give the album a name",
    },
    "album_exists": {
        "zh": "书库里已经有《{title}》了；换个名字，或先删掉旧的",
        "en": "the library already has {title}; choose another name or remove that one first",
    },
    "no_library": {
        "zh": "没有可写的书库文件夹（library.paths）",
        "en": "no writable library folder (library.paths)",
    },
    "uploaded": {
        "zh": "《{title}》已加入书库，{count} 集",
        "en": "{title} added to the library, {count} episodes",
    },
    "upload_failed": {"zh": "上传失败：{why}", "en": "the upload failed: {why}"},
    # settings
    "no_config": {
        "zh": "服务没有使用配置文件（{source}），这里不能保存设置；用 --config 文件启动",
        "en": "the service runs without a config file ({source}); settings cannot be saved "
        "here: start it with --config FILE",
    },
    "not_setting": {
        "zh": "{key} 不是本页能改的设置",
        "en": "{key} is not a setting this page changes",
    },
    "config_write": {
        "zh": "配置文件写不进去：{why}",
        "en": "the config file cannot be written: {why}",
    },
    "saved": {"zh": "设置已保存", "en": "settings saved"},
}


def say(key: str, language: str = "en", /, **values: object) -> str:
    """The message `key` in `language` (English for any other)."""
    entry = TEXTS[key]
    return entry.get(language, entry["en"]).format(**values)
