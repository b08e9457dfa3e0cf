// The household's page of xiaoting (小听): plain JavaScript, no build step, no framework.
// It talks to the JSON API under /api/ (README.md, "The page"); every change carries the
// session's CSRF token; live state arrives as server-sent events from /api/events.
"use strict";

const STRINGS = {
  zh: {
    tagline: "听书盒子", logout: "退出", login_title: "登录", password: "密码", login: "登录",
    login_note: "输入安装时显示的密码。忘了？在盒子上运行 sudo xiaoting web password 设一个新的。",
    tab_now: "正在播放", tab_books: "书库", tab_add: "添加", tab_settings: "设置", tab_history: "记录",
    volume: "音量", speed: "语速", sleep: "定时关闭", min15: "15 分钟", min30: "30 分钟",
    min60: "1 小时", end_of_episode: "播完这一集", sleep_off: "取消",
    last_heard: "刚才听到", search: "搜索书名或作者", sources: "在线来源", back: "‹ 返回",
    book_settings: "这本书的设置", book_speed: "语速", book_intro: "跳过片头（秒）",
    book_outro: "跳过片尾（秒）", save: "保存", episodes: "分集", manage: "整理",
    rename: "改名", delete: "删除这本书", add_title: "从手机添加一本书",
    add_note: "选几个音频文件（一集一个），或一个 .zip。每个文件都会先检查能不能播放。",
    choose_files: "选择文件", album_name: "书名", upload: "上传", play_it: "现在播放",
    max_volume: "最大音量", min_volume: "最小音量", bedtime: "睡觉时间",
    bedtime_on: "睡觉时间内限制音量", from: "从", to: "到", bedtime_max: "睡觉时间最大音量",
    language: "语言（盒子说话用）", feeds: "播客订阅（每行一个网址）",
    feeds_hint: "https://example.org/feed.xml", heard_did: "听到了什么、做了什么",
    refresh: "刷新", health: "健康检查",
    seek: "进度", previous: "上一集", back30: "后退 30 秒", play: "播放", pause: "暂停",
    fwd30: "前进 30 秒", next: "下一集", quieter: "小声点", louder: "大声点",
    state_idle: "空闲", state_listening: "在听…", state_thinking: "在想…",
    state_speaking: "在说…", state_starting: "启动中", state_stopping: "正在退出",
    nothing: "没有在播放", continue_book: "继续听《{title}》第 {episode} 集",
    episode: "第 {n} 集", of: "共 {n} 集", loading: "加载中…", paused: "已暂停",
    limits: "音量范围 {min}%–{max}%", limits_bedtime: "现在是睡觉时间：最大 {ceiling}%",
    sleep_left: "{minutes} 分钟后暂停", sleep_end: "这一集播完就暂停", sleep_none: "没有定时",
    bookmark: "听到第 {episode} 集 {time}", playing_now: "正在播放", no_books: "书库里还没有书",
    episodes_n: "{n} 集", continue_at: "从第 {episode} 集 {time} 继续", start_book: "从第 1 集开始",
    confirm_delete: "真的删除《{title}》吗？文件会被删掉。", uploading: "上传中… {percent}%",
    checking: "检查文件能不能播放…", files_n: "{n} 个文件，{mb} MB",
    source_ok: "正常", restart_needed: "需要重启服务才生效：{keys}",
    restart_hint: "（在盒子上运行 sudo systemctl restart xiaoting）", settings_file: "配置文件：{file}",
    no_config: "没有配置文件，不能保存", turn_steps: "步骤", no_turns: "还没有对话记录",
    stages: "用时", answer: "回答", error: "错误", network: "连不上盒子，正在重试…",
    level_ok: "正常", level_warn: "注意", level_fail: "故障", skipped: "跳过了：{names}",
  },
  en: {
    tagline: "audiobook box", logout: "Log out", login_title: "Log in", password: "Password",
    login: "Log in",
    login_note: "Enter the password the installer printed. Forgot it? Run sudo xiaoting web password on the box to set a new one.",
    tab_now: "Playing", tab_books: "Books", tab_add: "Add", tab_settings: "Settings",
    tab_history: "History", volume: "Volume", speed: "Speed", sleep: "Sleep timer",
    min15: "15 min", min30: "30 min", min60: "1 hour", end_of_episode: "End of episode",
    sleep_off: "Off", last_heard: "Just heard", search: "Search titles or authors",
    sources: "Online sources", back: "‹ Back", book_settings: "This book",
    book_speed: "Speed", book_intro: "Skip intro (s)", book_outro: "Skip outro (s)",
    save: "Save", episodes: "Episodes", manage: "Manage", rename: "Rename",
    delete: "Remove this book", add_title: "Add a book from your phone",
    add_note: "Choose audio files (one per episode) or one .zip. Every file is checked to play first.",
    choose_files: "Choose files", album_name: "Book title", upload: "Upload",
    play_it: "Play it now", max_volume: "Maximum volume", min_volume: "Minimum volume",
    bedtime: "Bedtime", bedtime_on: "Hold the volume down at bedtime", from: "From", to: "To",
    bedtime_max: "Bedtime maximum volume", language: "Language (the box's voice)",
    feeds: "Podcast feeds (one URL a line)", feeds_hint: "https://example.org/feed.xml",
    heard_did: "What the box heard and did", refresh: "Refresh", health: "Health",
    seek: "Position", previous: "Previous episode", back30: "Back 30 seconds", play: "Play",
    pause: "Pause", fwd30: "Forward 30 seconds", next: "Next episode", quieter: "Quieter",
    louder: "Louder", state_idle: "Idle", state_listening: "Listening…",
    state_thinking: "Thinking…", state_speaking: "Speaking…", state_starting: "Starting",
    state_stopping: "Stopping", nothing: "Nothing playing",
    continue_book: "Continue {title}, episode {episode}", episode: "Episode {n}",
    of: "of {n}", loading: "Loading…", paused: "Paused",
    limits: "Volume held between {min}% and {max}%",
    limits_bedtime: "Bedtime now: at most {ceiling}%", sleep_left: "Pauses in {minutes} min",
    sleep_end: "Pauses at the end of this episode", sleep_none: "No timer",
    bookmark: "Left at episode {episode}, {time}", playing_now: "Playing now",
    no_books: "No books in the library yet", episodes_n: "{n} episodes",
    continue_at: "Continue at episode {episode}, {time}", start_book: "Start at episode 1",
    confirm_delete: "Really remove {title}? Its files will be deleted.",
    uploading: "Uploading… {percent}%", checking: "Checking that every file plays…",
    files_n: "{n} files, {mb} MB", source_ok: "ok",
    restart_needed: "Takes effect after a restart: {keys}",
    restart_hint: "(run sudo systemctl restart xiaoting on the box)",
    settings_file: "Config file: {file}", no_config: "No config file: settings cannot be saved",
    turn_steps: "Steps", no_turns: "No turns yet", stages: "Timings", answer: "Answer",
    error: "Error", network: "Cannot reach the box, trying again…", level_ok: "ok",
    level_warn: "warn", level_fail: "fail", skipped: "Skipped: {names}",
  },
};

const $ = (id) => document.getElementById(id);
const view = {
  lang: localStorage.getItem("xiaoting-lang") || "",
  csrf: "",
  state: null,
  events: null,
  seeking: false,
  volumeHeld: false,
  album: null,
  uploaded: null,
};

function t(key, values) {
  const table = STRINGS[view.lang] || STRINGS.zh;
  let text = table[key] ?? STRINGS.en[key] ?? key;
  for (const [name, value] of Object.entries(values || {})) {
    text = text.replaceAll(`{${name}}`, String(value));
  }
  return text;
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(Number(seconds) || 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

function el(tag, props, ...children) {
  // Text always goes in as text (never as HTML): titles come from uploads and feeds.
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function translate() {
  document.documentElement.lang = view.lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-label]")) {
    node.setAttribute("aria-label", t(node.dataset.label));
    node.title = t(node.dataset.label);
  }
  for (const node of document.querySelectorAll("[data-placeholder]")) {
    node.placeholder = t(node.dataset.placeholder);
  }
  $("lang").textContent = view.lang === "zh" ? "EN" : "中文";
  if (view.state) render(view.state);
}

// ------------------------------------------------------------------ the API

async function api(method, path, body) {
  const headers = { "X-Xiaoting-Language": view.lang };
  if (method !== "GET") headers["X-CSRF-Token"] = view.csrf;
  let payload;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  } catch (err) {
    return { ok: false, status: 0, data: { message: t("network") } };
  }
  let data = {};
  try {
    data = await response.json();
  } catch (err) {
    data = {};
  }
  if (response.status === 401 && path !== "/api/login") showLogin(data);
  return { ok: response.ok, status: response.status, data };
}

function say(node, text, bad) {
  const target = typeof node === "string" ? $(node) : node;
  target.textContent = text || "";
  target.classList.toggle("bad", Boolean(bad));
}

async function act(path, body, where = "now-msg") {
  const result = await api("POST", path, body || {});
  say(where, result.data.message || "", !result.ok);
  if (result.data.state) render(result.data.state);
  return result;
}

// ------------------------------------------------------------------ log in

function showLogin(data) {
  closeEvents();
  $("app").hidden = true;
  $("logout").hidden = true;
  $("login").hidden = false;
  if (!view.lang) setLanguage(data.language || "zh", false);
  const noPassword = data.error === "no_password";
  $("login-note").textContent = noPassword ? data.message : t("login_note");
  $("login-form").hidden = noPassword;
  if (!noPassword) $("password").focus();
}

async function boot() {
  const result = await api("GET", "/api/session");
  if (!result.ok) {
    if (result.status !== 401) setTimeout(boot, 3000);
    return;
  }
  view.csrf = result.data.csrf;
  if (!view.lang) setLanguage(result.data.language || "zh", false);
  $("login").hidden = true;
  $("app").hidden = false;
  $("logout").hidden = false;
  openEvents();
  const state = await api("GET", "/api/state");
  if (state.ok) render(state.data);
}

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-button").disabled = true;
  const result = await api("POST", "/api/login", { password: $("password").value });
  $("login-button").disabled = false;
  if (!result.ok) {
    say("login-msg", result.data.message || t("network"), true);
    return;
  }
  $("password").value = "";
  say("login-msg", "");
  boot();
});

$("logout").addEventListener("click", async () => {
  await api("POST", "/api/logout", {});
  view.csrf = "";
  showLogin({});
});

function setLanguage(lang, remember = true) {
  view.lang = lang === "en" ? "en" : "zh";
  if (remember) localStorage.setItem("xiaoting-lang", view.lang);
  translate();
}

$("lang").addEventListener("click", () => setLanguage(view.lang === "zh" ? "en" : "zh"));

// ------------------------------------------------------------------ live state

function openEvents() {
  closeEvents();
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => render(JSON.parse(event.data)));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      closeEvents();
      setTimeout(boot, 2000); // the session may have ended: boot shows the login then
    }
  };
  view.events = source;
}

function closeEvents() {
  if (view.events) view.events.close();
  view.events = null;
}

function render(state) {
  view.state = state;
  const now = state.now;
  const app = state.app || "idle";
  $("box-state").textContent = t(`state_${app}`) || app;
  $("box-state").dataset.state = app;
  // The voice side's state is news only while it listens, thinks or speaks: an "Idle"
  // above a book that plays reads as if the book were idle.
  $("box-state").hidden = app === "idle";
  const playing = now && now.state === "playing";
  const pp = $("playpause");
  $("icon-play").toggleAttribute("hidden", Boolean(playing)); // an SVG has no .hidden
  $("icon-pause").toggleAttribute("hidden", !playing);
  pp.dataset.label = playing ? "pause" : "play";
  pp.setAttribute("aria-label", t(pp.dataset.label));
  pp.title = t(pp.dataset.label);
  if (now) {
    $("now-album").textContent = now.title;
    const parts = [t("episode", { n: now.episode })];
    if (now.episode_title) parts.push(now.episode_title);
    let sub = `${parts.join(" · ")}  (${t("of", { n: now.episodes })})`;
    if (now.state === "paused") sub += ` — ${t("paused")}`;
    if (now.state === "loading") sub += ` — ${t("loading")}`;
    $("now-episode").textContent = sub;
    const duration = Math.max(0, Math.round(now.duration || 0));
    const seek = $("seek");
    seek.max = String(duration);
    seek.disabled = !duration;
    if (!view.seeking) seek.value = String(Math.round(now.position || 0));
    $("pos").textContent = clock(view.seeking ? seek.value : now.position);
    $("dur").textContent = duration ? clock(duration) : "–";
  } else {
    const left = state.left_off;
    $("now-album").textContent = left ? left.title : t("nothing");
    $("now-episode").textContent = left ? t("continue_book", { title: left.title, episode: left.episode }) : "";
    $("seek").max = "0";
    $("seek").value = "0";
    $("seek").disabled = true;
    $("pos").textContent = "0:00";
    $("dur").textContent = "–";
  }
  for (const id of ["prev", "back", "fwd", "next"]) $(id).disabled = !now;
  if (state.volume !== undefined) {
    if (!view.volumeHeld) $("volume").value = String(state.volume);
    $("vol-out").textContent = `${view.volumeHeld ? $("volume").value : state.volume}%`;
    const limits = state.limits || {};
    let note = t("limits", limits);
    if (limits.bedtime) note += ` · ${t("limits_bedtime", limits)}`;
    $("vol-limits").textContent = note;
  }
  for (const chip of document.querySelectorAll("#speeds .chip")) {
    chip.classList.toggle("on", Math.abs(Number(chip.dataset.rate) - (state.speed || 1)) < 0.01);
  }
  const sleep = state.sleep || {};
  let sleepText = t("sleep_none");
  if (sleep.end_of_episode) sleepText = t("sleep_end");
  else if (sleep.seconds_left !== null && sleep.seconds_left !== undefined) {
    sleepText = t("sleep_left", { minutes: Math.max(1, Math.round(sleep.seconds_left / 60)) });
  }
  $("sleep-state").textContent = sleepText;
  const last = state.last_turn || {};
  $("heard").hidden = !last.utterance;
  $("heard-utterance").textContent = last.utterance ? `“${last.utterance}”` : "";
  $("heard-answer").textContent = last.answer || "";
}

// ------------------------------------------------------------------ now playing

$("playpause").addEventListener("click", () => {
  const now = view.state && view.state.now;
  if (now && now.state === "playing") act("/api/pause");
  else if (now) act("/api/resume");
  else act("/api/play", {});
});
$("prev").addEventListener("click", () => act("/api/previous"));
$("next").addEventListener("click", () => act("/api/next"));
$("back").addEventListener("click", () => act("/api/seek", { seconds: -30, relative: true }));
$("fwd").addEventListener("click", () => act("/api/seek", { seconds: 30, relative: true }));
$("seek").addEventListener("input", () => {
  view.seeking = true;
  $("pos").textContent = clock($("seek").value);
});
$("seek").addEventListener("change", async () => {
  await act("/api/seek", { seconds: Number($("seek").value) });
  view.seeking = false;
});
$("volume").addEventListener("input", () => {
  view.volumeHeld = true;
  $("vol-out").textContent = `${$("volume").value}%`;
});
$("volume").addEventListener("change", async () => {
  await act("/api/volume", { percent: Number($("volume").value) });
  view.volumeHeld = false;
});
$("vol-up").addEventListener("click", () => act("/api/volume", { step: 1 }));
$("vol-down").addEventListener("click", () => act("/api/volume", { step: -1 }));
for (const chip of document.querySelectorAll("#speeds .chip")) {
  chip.addEventListener("click", () => act("/api/speed", { rate: Number(chip.dataset.rate) }));
}
for (const chip of document.querySelectorAll("#sleeps .chip")) {
  chip.addEventListener("click", () =>
    act("/api/sleep", chip.dataset.end ? { end_of_episode: true } : { minutes: Number(chip.dataset.minutes) }));
}

// ------------------------------------------------------------------ tabs

function showTab(name) {
  for (const button of document.querySelectorAll(".tabs button")) {
    const on = button.dataset.tab === name;
    button.classList.toggle("active", on);
    button.setAttribute("aria-selected", on ? "true" : "false");
  }
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${name}`;
  if (name === "books") loadBooks();
  if (name === "settings") loadSettings();
  if (name === "history") loadHistory();
}
for (const button of document.querySelectorAll(".tabs button")) {
  button.addEventListener("click", () => showTab(button.dataset.tab));
}

// ------------------------------------------------------------------ books

let searchTimer = 0;
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(loadBooks, 250);
});

async function loadBooks() {
  $("book-detail").hidden = true;
  $("book-list").hidden = false;
  const query = encodeURIComponent($("search").value.trim());
  const result = await api("GET", `/api/albums?q=${query}`);
  const list = $("albums");
  list.replaceChildren();
  if (!result.ok) return;
  if (!result.data.albums.length) list.append(el("li", { class: "empty", text: t("no_books") }));
  for (const album of result.data.albums) {
    const meta = [t("episodes_n", { n: album.episodes })];
    if (album.author) meta.push(album.author);
    if (album.playing) meta.push(t("playing_now"));
    else if (album.bookmark) meta.push(t("bookmark", { episode: album.bookmark.episode, time: clock(album.bookmark.position) }));
    list.append(el("li", {},
      el("button", { type: "button", class: `album${album.playing ? " playing" : ""}`, "data-id": album.id, onclick: () => openAlbum(album.id) },
        el("b", { text: album.title }), el("span", { class: "sub", text: meta.join(" · ") }))));
  }
  const sources = await api("GET", "/api/sources");
  const box = $("sources");
  box.replaceChildren();
  for (const source of (sources.data.sources || []).filter((s) => s.remote)) {
    box.append(el("li", {}, el("b", { text: source.name }), " ",
      el("span", { class: source.error ? "bad" : "good", text: source.error || t("source_ok") })));
  }
  box.closest(".card").hidden = !box.children.length;
}

async function openAlbum(id) {
  const result = await api("GET", `/api/albums/${encodeURIComponent(id)}`);
  if (!result.ok) {
    say("detail-msg", result.data.message, true);
    return;
  }
  const album = result.data;
  view.album = album;
  $("book-list").hidden = true;
  $("book-detail").hidden = false;
  say("detail-msg", "");
  $("detail-title").textContent = album.title;
  $("detail-sub").textContent = [album.author, album.narrator, t("episodes_n", { n: album.episodes.length })].filter(Boolean).join(" · ");
  const mark = album.bookmark;
  $("detail-continue").textContent = mark ? t("continue_at", { episode: mark.episode, time: clock(mark.position) }) : t("start_book");
  $("book-speed").value = String(album.settings.speed);
  $("book-intro").value = String(Math.round(album.settings.intro));
  $("book-outro").value = String(Math.round(album.settings.outro));
  const list = $("episodes");
  list.replaceChildren();
  for (const episode of album.episodes) {
    const here = mark && mark.episode === episode.episode;
    list.append(el("li", {},
      el("button", { type: "button", class: `episode${here ? " here" : ""}`, "data-episode": episode.episode,
        onclick: () => playAlbum(album.id, episode.episode) },
        el("span", { class: "num", text: String(episode.episode) }),
        el("span", { class: "name", text: episode.title || t("episode", { n: episode.episode }) }),
        el("span", { class: "sub", text: episode.duration ? clock(episode.duration) : "" }))));
  }
  $("manage").hidden = !album.local;
  $("rename-title").value = album.title;
  window.scrollTo(0, 0);
}

async function playAlbum(id, episode) {
  const body = { album_id: id };
  if (episode) body.episode = episode;
  const result = await act("/api/play", body, "detail-msg");
  if (result.ok) showTab("now");
}

$("detail-back").addEventListener("click", loadBooks);
$("detail-continue").addEventListener("click", () => playAlbum(view.album.id));
$("book-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = await api("POST", `/api/albums/${encodeURIComponent(view.album.id)}/settings`, {
    speed: Number($("book-speed").value),
    intro: Number($("book-intro").value || 0),
    outro: Number($("book-outro").value || 0),
  });
  say("detail-msg", result.data.message, !result.ok);
});
$("rename-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = await api("POST", `/api/albums/${encodeURIComponent(view.album.id)}/rename`, { title: $("rename-title").value });
  say("detail-msg", result.data.message, !result.ok);
  if (result.ok) openAlbum(view.album.id);
});
$("delete-album").addEventListener("click", async () => {
  if (!window.confirm(t("confirm_delete", { title: view.album.title }))) return;
  const result = await api("DELETE", `/api/albums/${encodeURIComponent(view.album.id)}`);
  if (result.ok) {
    await loadBooks();
    say("now-msg", result.data.message);
  } else {
    say("detail-msg", result.data.message, true);
  }
});

// ------------------------------------------------------------------ upload

function albumNameFor(files) {
  if (!files.length) return "";
  const names = files.map((f) => f.name.replace(/\.[^.]+$/, ""));
  if (files.length === 1 && /\.zip$/i.test(files[0].name)) return names[0];
  let prefix = names[0];
  for (const name of names.slice(1)) {
    while (prefix && !name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  prefix = prefix.replace(/(第|chapter|part|ep|episode|track)?[\s._\-–—#]*\d*[\s._\-–—#]*$/i, "").trim();
  return prefix.length >= 2 ? prefix : "";
}

$("files").addEventListener("change", () => {
  const files = Array.from($("files").files);
  const list = $("file-list");
  list.replaceChildren();
  let bytes = 0;
  for (const file of files.slice(0, 20)) {
    bytes += file.size;
    list.append(el("li", { text: file.name }));
  }
  for (const file of files.slice(20)) bytes += file.size;
  if (files.length) list.append(el("li", { class: "sub", text: t("files_n", { n: files.length, mb: (bytes / 1e6).toFixed(1) }) }));
  if (!$("album-name").value.trim()) $("album-name").value = albumNameFor(files);
  say("upload-msg", "");
  $("upload-play").hidden = true;
});

$("upload-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const files = Array.from($("files").files);
  const form = new FormData();
  form.append("album", $("album-name").value.trim());
  for (const file of files) form.append("files", file, file.name);
  const request = new XMLHttpRequest();
  const bar = $("upload-progress");
  bar.hidden = false;
  bar.value = 0;
  $("upload-button").disabled = true;
  $("upload-play").hidden = true;
  request.upload.addEventListener("progress", (e) => {
    if (!e.lengthComputable) return;
    const percent = Math.round((100 * e.loaded) / e.total);
    bar.value = percent;
    say("upload-msg", percent < 100 ? t("uploading", { percent }) : t("checking"));
  });
  request.addEventListener("loadend", () => {
    $("upload-button").disabled = false;
    bar.hidden = true;
    let data = {};
    try {
      data = JSON.parse(request.responseText || "{}");
    } catch (err) {
      data = {};
    }
    if (request.status === 200 && data.ok) {
      let text = data.message;
      if (data.skipped && data.skipped.length) text += ` ${t("skipped", { names: data.skipped.slice(0, 5).join(", ") })}`;
      say("upload-msg", text);
      view.uploaded = data.album;
      $("upload-play").hidden = !data.album.id;
      $("files").value = "";
      $("file-list").replaceChildren();
      $("album-name").value = "";
    } else {
      if (request.status === 401) showLogin(data);
      say("upload-msg", data.message || t("network"), true);
    }
  });
  request.open("POST", "/api/upload");
  request.setRequestHeader("X-CSRF-Token", view.csrf);
  request.setRequestHeader("X-Xiaoting-Language", view.lang);
  request.send(form);
});

$("upload-play").addEventListener("click", () => {
  if (view.uploaded && view.uploaded.id) playAlbum(view.uploaded.id, 1);
});

// ------------------------------------------------------------------ settings

function hhmm(text) {
  return /^\d{1,2}:\d{2}$/.test(text) ? text.padStart(5, "0") : "";
}

function fillSettings(values) {
  const v = values;
  $("set-max").value = v["audio.max_volume_percent"];
  $("set-min").value = v["audio.min_volume_percent"];
  $("set-bed-max").value = v["audio.bedtime_max_volume_percent"];
  const bed = String(v["audio.bedtime"] || "");
  $("set-bed-on").checked = Boolean(bed);
  const [from, to] = bed ? bed.split("-").map((s) => hhmm(s.trim())) : ["20:00", "07:00"];
  $("set-bed-from").value = from || "20:00";
  $("set-bed-to").value = to || "07:00";
  $("set-language").value = v.language;
  $("set-feeds").value = (v["library.feeds"] || []).join("\n");
  outputs();
}

function outputs() {
  $("set-max-out").textContent = `${$("set-max").value}%`;
  $("set-min-out").textContent = `${$("set-min").value}%`;
  $("set-bed-max-out").textContent = `${$("set-bed-max").value}%`;
  for (const id of ["set-bed-from", "set-bed-to", "set-bed-max"]) $(id).disabled = !$("set-bed-on").checked;
}
for (const id of ["set-max", "set-min", "set-bed-max", "set-bed-on"]) $(id).addEventListener("input", outputs);

function showRestart(keys) {
  const box = $("settings-restart");
  box.hidden = !keys.length;
  box.textContent = keys.length ? `${t("restart_needed", { keys: keys.join(", ") })} ${t("restart_hint")}` : "";
}

async function loadSettings() {
  const result = await api("GET", "/api/settings");
  if (!result.ok) return;
  view.settings = result.data.values;
  fillSettings(result.data.values);
  showRestart(result.data.restart_pending || []);
  $("settings-file").textContent = result.data.file ? t("settings_file", { file: result.data.file }) : t("no_config");
}

$("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const wanted = {
    "audio.max_volume_percent": Number($("set-max").value),
    "audio.min_volume_percent": Number($("set-min").value),
    "audio.bedtime": $("set-bed-on").checked ? `${$("set-bed-from").value}-${$("set-bed-to").value}` : "",
    "audio.bedtime_max_volume_percent": Number($("set-bed-max").value),
    language: $("set-language").value,
    "library.feeds": $("set-feeds").value.split(/\s+/).map((s) => s.trim()).filter(Boolean),
  };
  const changes = {};
  for (const [key, value] of Object.entries(wanted)) {
    if (JSON.stringify(value) !== JSON.stringify((view.settings || {})[key])) changes[key] = value;
  }
  if (!Object.keys(changes).length) {
    say("settings-msg", t("save"));
    return;
  }
  const result = await api("POST", "/api/settings", { changes });
  say("settings-msg", result.data.message, !result.ok);
  if (result.ok) {
    view.settings = result.data.values;
    fillSettings(result.data.values);
    showRestart(result.data.restart_pending || []);
  }
});

// ------------------------------------------------------------------ history and health

function stepLines(step) {
  const lines = [];
  const ms = Object.entries(step.ms || {}).map(([k, v]) => `${k} ${Math.round(v)} ms`).join(", ");
  lines.push(el("div", { class: "step-head", text: `#${step.index ?? "?"} ${step.kind || ""} [${step.backend || "?"}] ${ms}` }));
  if (step.thought) lines.push(el("div", { text: `Thought: ${step.thought}` }));
  if (step.action) lines.push(el("div", { text: `Action: ${step.action} ${JSON.stringify(step.arguments || {})}` }));
  if ("observation" in step) lines.push(el("div", { class: "obs", text: `Observation: ${step.observation}` }));
  if (step.error) lines.push(el("div", { class: "bad", text: `Error: ${step.error}` }));
  if (step.answer) lines.push(el("div", { text: `Final Answer: ${step.answer}` }));
  return el("li", { class: "step" }, ...lines);
}

async function loadHistory() {
  const turns = await api("GET", "/api/turns?n=10");
  const list = $("turns");
  list.replaceChildren();
  if (turns.ok && !turns.data.turns.length) list.append(el("li", { class: "empty", text: t("no_turns") }));
  for (const turn of turns.ok ? turns.data.turns : []) {
    const when = new Date((turn.time || 0) * 1000).toLocaleString(view.lang === "zh" ? "zh-CN" : "en-GB");
    const stages = Object.entries(turn.stages || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${Number(v).toFixed(2)} s`).join(", ");
    const details = el("details", {},
      el("summary", {},
        el("span", { class: "quote", text: `“${turn.utterance || ""}”` }),
        el("span", { class: "sub", text: ` ${when} · ${turn.backend || "?"} · ${Math.round(turn.elapsed_ms || 0)} ms` })),
      el("p", { text: `${t("answer")}: ${turn.answer || ""}` }),
      turn.error ? el("p", { class: "bad", text: `${t("error")}: ${turn.error}` }) : null,
      stages ? el("p", { class: "sub", text: `${t("stages")}: ${stages}` }) : null,
      el("ol", { class: "steps" }, ...(turn.steps || []).map(stepLines)));
    list.append(el("li", {}, details));
  }
  const health = await api("GET", "/api/health");
  const box = $("health");
  box.replaceChildren();
  for (const finding of health.ok ? health.data.findings : []) {
    box.append(el("li", { class: `level-${finding.level}` },
      el("span", { class: "badge", text: t(`level_${finding.level}`) }),
      el("b", { text: ` ${finding.name}: ` }), el("span", { text: finding.detail })));
  }
}
$("refresh-history").addEventListener("click", loadHistory);

// ------------------------------------------------------------------ start

if (view.lang) translate();
boot().then(() => {
  if (!view.lang) setLanguage("zh", false);
});
