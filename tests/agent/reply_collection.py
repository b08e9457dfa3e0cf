"""A collection of model replies in the many shapes chat models write, for the parser.

Every reply here was written for this project, imitating the styles of small local models,
OpenAI-compatible APIs, JSON-mode agents and reasoning models. Each entry is
``(reply, expected)`` with `expected` one of ``("act", tool, arguments)``,
``("ans", spoken text)`` or ``("err", a phrase of the reason)``.
"""

from __future__ import annotations

from typing import Any

ACT, ANS, ERR = "act", "ans", "err"
K = "keyword"

REPLIES: list[tuple[str, tuple[Any, ...]]] = [
    # --- the canonical format, zh and en
    (
        'Thought: 用户想听围城\nAction: search_album\nAction Input: {"keyword": "围城"}',
        (ACT, "search_album", {K: "围城"}),
    ),
    ("Thought: The listener wants silence.\nAction: stop\nAction Input: {}", (ACT, "stop", {})),
    (
        "Thought: 已经找到\nFinal Answer: 找到了《围城》，共二十集。",
        (ANS, "找到了《围城》，共二十集。"),
    ),
    ("Thought: nothing to do\nFinal Answer: You're welcome!", (ANS, "You're welcome!")),
    (
        'Thought: 调低\nAction: set_volume\nAction Input: {"percent": 30}',
        (ACT, "set_volume", {"percent": 30}),
    ),
    # --- capitalisation and label spelling
    (
        'THOUGHT: SEARCH\nACTION: SEARCH_ALBUM\nACTION INPUT: {"keyword": "Dracula"}',
        (ACT, "search_album", {K: "Dracula"}),
    ),
    ("thought: ok\naction: get_status\naction input: {}", (ACT, "get_status", {})),
    ("Thoughts: fine\nFinal answer: All done.", (ANS, "All done.")),
    ('Thought: x\nAction_Input: {"keyword": "a"}\nAction: search_album', (ERR, "needs 'keyword'")),
    ('Thought: x\nAction-Input: {"percent": 10}', (ERR, "without an Action")),
    # --- colons, emphasis, headings, indentation
    (
        'Thought：好\nAction：play_book\nAction Input：{"keyword": "边城", "section": 2}',
        (ACT, "play_book", {K: "边城", "section": 2}),
    ),
    ("**Thought:** 暂停吧\n**Action:** pause\n**Action Input:** {}", (ACT, "pause", {})),
    ("__Thought__: stop it\n__Action__: stop\n__Action Input__: {}", (ACT, "stop", {})),
    ("## Thought: 结束\n## Final Answer: 好的，已经停止。", (ANS, "好的，已经停止。")),
    ("> Thought: quoting\n> Final Answer: Quoted answer.", (ANS, "Quoted answer.")),
    (
        '    Thought: indented\n    Action: search_album\n    Action Input: {"keyword": "Emma"}',
        (ACT, "search_album", {K: "Emma"}),
    ),
    ("Thought: trailing   \nAction: resume   \nAction Input: {}   ", (ACT, "resume", {})),
    ("*Thought*: x\n*Action*: pause\n*Action Input*: {}", (ACT, "pause", {})),
    ("- Thought: list style\n- Action: stop\n- Action Input: {}", (ACT, "stop", {})),
    ("Thought : spaced\nAction : get_status\nAction Input : {}", (ACT, "get_status", {})),
    # --- numbering
    (
        'Thought 1: search\nAction 1: search_album\nAction Input 1: {"keyword": "Ulysses"}',
        (ACT, "search_album", {K: "Ulysses"}),
    ),
    (
        "Thought 3: done\nFinal Answer 3: Ulysses has 18 episodes.",
        (ANS, "Ulysses has 18 episodes."),
    ),
    ("1. Thought: 先停\n2. Action: pause\n3. Action Input: {}", (ACT, "pause", {})),
    ("Step 1\nThought: 想想\nAction: resume\nAction Input: {}", (ACT, "resume", {})),
    # --- Answer: and Finish[]
    ("Thought: 算好了\nAnswer: 还剩十二集。", (ANS, "还剩十二集。")),
    ("Answer: It is playing.", (ANS, "It is playing.")),
    ("Thought: finished\nAction: Finish[The book is paused.]", (ANS, "The book is paused.")),
    ("Action 2: Finish[已经为你继续播放]", (ANS, "已经为你继续播放")),
    ("Finish[音量已经调到一半]", (ANS, "音量已经调到一半")),
    # --- bracket and Python calls
    ("Thought: 查\nAction: search_album[呐喊]", (ACT, "search_album", {K: "呐喊"})),
    ("Action 1: search_album[The Hobbit]", (ACT, "search_album", {K: "The Hobbit"})),
    (
        'Action: play_book[{"keyword": "呐喊", "section": 3}]',
        (ACT, "play_book", {K: "呐喊", "section": 3}),
    ),
    (
        'Action: play_book(keyword="家", section=7)',
        (ACT, "play_book", {K: "家", "section": 7}),
    ),
    (
        "Action: play_book(keyword='春', section=1)",
        (ACT, "play_book", {K: "春", "section": 1}),
    ),
    ('Action: search_album("秋")', (ACT, "search_album", {K: "秋"})),
    ("Thought: 停\nAction: stop()", (ACT, "stop", {})),
    ("set_volume(percent=90)", (ACT, "set_volume", {"percent": 90})),
    ('play_book("子夜", 4)', (ACT, "play_book", {K: "子夜", "section": 4})),
    (
        'Thought: call it\nsearch_album(keyword="Moby Dick")',
        (ACT, "search_album", {K: "Moby Dick"}),
    ),
    ('Action: get_album_detail(album_id="a17")', (ACT, "get_album_detail", {"album_id": "a17"})),
    # --- JSON envelopes
    (
        '{"action": "search_album", "action_input": {"keyword": "雷雨"}}',
        (ACT, "search_album", {K: "雷雨"}),
    ),
    ('{"action": "pause", "action_input": ""}', (ACT, "pause", {})),
    ('{"action": "Final Answer", "action_input": "雷雨有十二集。"}', (ANS, "雷雨有十二集。")),
    ('{"name": "resume", "arguments": {}}', (ACT, "resume", {})),
    ('{"name": "set_volume", "parameters": {"percent": 15}}', (ACT, "set_volume", {"percent": 15})),
    ('{"tool": "stop", "tool_input": {}}', (ACT, "stop", {})),
    (
        '{"tool_call": {"name": "search_album", "arguments": {"keyword": "日出"}}}',
        (ACT, "search_album", {K: "日出"}),
    ),
    ('{"function": {"name": "get_status", "arguments": "{}"}}', (ACT, "get_status", {})),
    (
        '{"type": "function", "function": {"name": "search_album", '
        '"arguments": "{\\"keyword\\": \\"Walden\\"}"}}',
        (ACT, "search_album", {K: "Walden"}),
    ),
    (
        '{"tool_calls": [{"id": "x1", "type": "function", "function": '
        '{"name": "pause", "arguments": "{}"}}]}',
        (ACT, "pause", {}),
    ),
    (
        "{'name': 'search_album', 'arguments': {'keyword': '北京人'}}",
        (ACT, "search_album", {K: "北京人"}),
    ),
    ("{'action': 'stop', 'action_input': None}", (ACT, "stop", {})),
    ('```json\n{"action": "resume", "action_input": {}}\n```', (ACT, "resume", {})),
    (
        'I will play it now:\n{"name": "play_book", "arguments": {"keyword": "家", "section": 2}}',
        (ACT, "play_book", {K: "家", "section": 2}),
    ),
    ('Here is the call.\n```\n{"name": "stop", "arguments": {}}\n```\nDone.', (ACT, "stop", {})),
    (
        '<tool_call>\n{"name": "set_volume", "arguments": {"percent": 60}}\n</tool_call>',
        (ACT, "set_volume", {"percent": 60}),
    ),
    ('<tool_call>{"name": "get_status", "arguments": {}}', (ACT, "get_status", {})),
    ('[{"name": "pause", "arguments": {}}]', (ACT, "pause", {})),
    ('{"function_call": {"name": "resume", "arguments": "{}"}}', (ACT, "resume", {})),
    (
        'Action: {"name": "search_album", "arguments": {"keyword": "Beowulf"}}',
        (ACT, "search_album", {K: "Beowulf"}),
    ),
    # --- DeepSeek tool-call tokens
    (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>stop\n```json\n{}\n```"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        (ACT, "stop", {}),
    ),
    (
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search_album<｜tool▁sep｜>{"keyword": "茶花女"}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        (ACT, "search_album", {K: "茶花女"}),
    ),
    (
        '好的。<｜tool▁call▁begin｜>function<｜tool▁sep｜>set_volume\n{"percent": 45}'
        "<｜tool▁call▁end｜>",
        (ACT, "set_volume", {"percent": 45}),
    ),
    # --- reasoning blocks
    (
        "<think>用户要暂停。</think>\nThought: 暂停\nAction: pause\nAction Input: {}",
        (ACT, "pause", {}),
    ),
    ("<think>\nFinal Answer: wrong\n</think>\nFinal Answer: right", (ANS, "right")),
    ("<think>\nThought: 停下\nAction: stop\nAction Input: {}\n</think>", (ACT, "stop", {})),
    ("<think>I am unsure what to do here.</think>", (ERR, "only reasoning")),
    ("<think>forever thinking about Action: stop", (ERR, "only reasoning")),
    ("the plan is to stop</think>\nAction: stop\nAction Input: {}", (ACT, "stop", {})),
    # --- Action Input variants
    ("Action: search_album\nAction Input: 茶馆", (ACT, "search_album", {K: "茶馆"})),
    ('Action: search_album\nAction Input: "Hamlet"', (ACT, "search_album", {K: "Hamlet"})),
    ("Action: search_album\nAction Input: 'Macbeth'", (ACT, "search_album", {K: "Macbeth"})),
    (
        "Action: get_album_detail\nAction Input: 40417",
        (ACT, "get_album_detail", {"album_id": "40417"}),
    ),
    (
        'Action: get_album_detail\nAction Input: {"album_id": 512}',
        (ACT, "get_album_detail", {"album_id": "512"}),
    ),
    ("Action: set_volume\nAction Input: 80", (ACT, "set_volume", {"percent": 80})),
    ('Action: search_album\nAction Input: keyword="骆驼"', (ACT, "search_album", {K: "骆驼"})),
    ("Action: pause\nAction Input: null", (ACT, "pause", {})),
    ("Action: pause\nAction Input: None", (ACT, "pause", {})),
    ('Action: stop\nAction Input: ""', (ACT, "stop", {})),
    ('Action: resume\nAction Input: {"type": "object", "properties": {}}', (ACT, "resume", {})),
    ("Action: get_status\nAction Input:", (ACT, "get_status", {})),
    (
        'Action: search_album\nAction Input: ```json\n{"keyword": "Persuasion"}\n```',
        (ACT, "search_album", {K: "Persuasion"}),
    ),
    (
        'Action: search_album\nAction Input: {"keyword": "Persuasion",}',
        (ACT, "search_album", {K: "Persuasion"}),
    ),
    ('Action: search_album\n{"keyword": "Middlemarch"}', (ACT, "search_album", {K: "Middlemarch"})),
    (
        'Action: search_album\nAction Input: {"type": "object", "properties": {"keyword": {}}}',
        (ERR, "repeats the tool's schema"),
    ),
    ('Action: play_book\nAction Input: {"section": 9}', (ERR, "needs 'keyword'")),
    ("Action: set_volume\nAction Input: {}", (ERR, "needs 'percent'")),
    # --- tool names
    ("Action: `stop`\nAction Input: {}", (ACT, "stop", {})),
    ('Action: "resume"\nAction Input: {}', (ACT, "resume", {})),
    ("Action: get_status()\nAction Input: {}", (ACT, "get_status", {})),
    ("Action: Get_Status\nAction Input: {}", (ACT, "get_status", {})),
    ("Action: functions.pause\nAction Input: {}", (ACT, "pause", {})),
    ("Action: play_audio\nAction Input: {}", (ERR, "unknown tool 'play_audio'")),
    ("Action: get status\nAction Input: {}", (ERR, "unknown tool")),
    # --- prose
    ("围城一共有二十集，你正在听第五集。", (ANS, "围城一共有二十集，你正在听第五集。")),
    ("The volume is now at thirty percent.", (ANS, "The volume is now at thirty percent.")),
    ("抱歉，我只能帮你播放有声书。", (ANS, "抱歉，我只能帮你播放有声书。")),
    ("Let me search for that book.", (ERR, "only says what it will do")),
    ("我来帮你找一下这本书。", (ERR, "only says what it will do")),
    ("I need to call search_album first.", (ERR, "only says what it will do")),
    ("Sure! I will use the pause tool.", (ERR, "only says what it will do")),
    ('raw text {"x": }', (ERR, "no 'Action:' or 'Final Answer:'")),
    # --- mixed and broken
    ("Action: pause Final Answer: paused", (ERR, "both")),
    (
        "Thought: a\nAction: stop\nAction Input: {}\nObservation: stopped\nFinal Answer: ok",
        (ACT, "stop", {}),
    ),
    ("Observation: everything is fine", (ERR, "starts with an Observation")),
    ("Thought: only a thought", (ERR, "neither an Action nor a Final Answer")),
    ("Thought: x\nAction: None\nFinal Answer: 不用操作。", (ANS, "不用操作。")),
    ("Thought: x\nFinal Answer:", (ERR, "Final Answer is empty")),
    (
        '思考：要搜索\n行动：search_album\n行动输入：{"keyword": "四世同堂"}',
        (ACT, "search_album", {K: "四世同堂"}),
    ),
    ("思考：好了\n最终答案：四世同堂有一百集。", (ANS, "四世同堂有一百集。")),
    ("", (ERR, "empty")),
]
