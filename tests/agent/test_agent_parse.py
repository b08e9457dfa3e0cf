"""The ReAct reply parser against a table of reply shapes real models produce."""

from __future__ import annotations

import pytest

from agent.parse import Action, FinalAnswer, FormatError, parse

TOOLS = ["search_album", "get_album_detail", "play_book", "pause", "resume", "stop"]
SCHEMAS = {
    "search_album": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "page": {"type": "integer"}},
        "required": ["keyword"],
    },
    "play_book": {
        "type": "object",
        "properties": {"keyword": {"type": "string"}, "section": {"type": "integer"}},
        "required": ["keyword"],
    },
    "pause": {"type": "object", "properties": {}},
}

A = Action
F = FinalAnswer
PLAY = {"keyword": "西游记", "section": 1}

# (reply text, expected tool/answer, expected arguments or None for a final answer)
SHAPES: list[tuple[str, str, dict | None]] = [
    # 1-5: the plain format
    (
        'Thought: play it\nAction: play_book\nAction Input: {"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    ("Thought: done\nFinal Answer: 已经在播放西游记第1集了～", "已经在播放西游记第1集了～", None),
    ("Thought: stop\nAction: pause\nAction Input: {}", "pause", {}),
    ("Action: pause\nAction Input: {}", "pause", {}),
    ("Final Answer: ok", "ok", None),
    # 6-10: code fences and trailing prose
    (
        'Thought: x\nAction: play_book\nAction Input: ```json\n{"keyword": "西游记", "section": 1}\n```',
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: play_book\nAction Input:\n```\n{"keyword": "西游记", "section": 1}\n```\n',
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: play_book\nAction Input: {"keyword": "西游记", "section": 1} I will now wait.',
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: play_book\nAction Input: {"keyword": "西游记", "section": 1}\nThis plays episode one.',
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: search_album\nAction Input: {"keyword": "三体"}\n\nLet me know!',
        "search_album",
        {"keyword": "三体"},
    ),
    # 11-15: broken JSON
    (
        "Thought: x\nAction: play_book\nAction Input: {'keyword': '西游记', 'section': 1}",
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: play_book\nAction Input: {"keyword": "西游记", "section": 1,}',
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: play_book\nAction Input: {"keyword": "西游记", "section": 1',
        "play_book",
        PLAY,
    ),
    (
        "Thought: x\nAction: play_book\nAction Input: {keyword: 西游记, section: 1}",
        "play_book",
        PLAY,
    ),
    (
        'Thought: x\nAction: search_album\nAction Input: {"keyword": "a \\"quoted\\" title"}',
        "search_album",
        {"keyword": 'a "quoted" title'},
    ),
    # 16-20: full-width colons, capitalisation, bold
    (
        'Thought：播放\nAction：play_book\nAction Input：{"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    (
        'thought: x\naction: play_book\naction input: {"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    (
        'THOUGHT: x\nACTION: play_book\nACTION_INPUT: {"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    (
        '**Thought:** x\n**Action:** play_book\n**Action Input:** {"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    (
        '**Thought**: x\n**Action**: `play_book`\n**Action Input**: `{"keyword": "西游记", "section": 1}`',
        "play_book",
        PLAY,
    ),
    # 21-25: headings, think blocks
    ("### Thought: x\n### Final Answer: 好的", "好的", None),
    (
        "<think>The user wants Journey.\nAction: stop</think>\nThought: x\nAction: play_book\n"
        'Action Input: {"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    ("<think>\nhmm\n</think>\n\nFinal Answer: 暂停了", "暂停了", None),
    ("reasoning without opening tag</think>Final Answer: done", "done", None),
    ("<thinking>plan</thinking>Thought: a\nAction: pause\nAction Input: {}", "pause", {}),
    # 26-30: invented observations
    (
        'Thought: x\nAction: search_album\nAction Input: {"keyword": "三体"}\nObservation: found 5\n'
        "Thought: done\nFinal Answer: 找到了",
        "search_album",
        {"keyword": "三体"},
    ),
    (
        "Thought: x\nAction: pause\nAction Input: {}\nObservation: paused\nFinal Answer: ok",
        "pause",
        {},
    ),
    (
        'Thought: x\nAction: search_album\nAction Input: {"keyword": "三体"}\n**Observation:** ...',
        "search_album",
        {"keyword": "三体"},
    ),
    (
        'Action: search_album\nAction Input: {"keyword": "三体"}\nObservation：找到',
        "search_album",
        {"keyword": "三体"},
    ),
    ("Thought: x\nFinal Answer: 好的\nObservation: nothing", "好的", None),
    # 31-35: action and final answer together; multi-line answers
    ("Thought: x\nAction: pause\nAction Input: {}\nFinal Answer: 已暂停", "pause", {}),
    ("Thought: x\nFinal Answer: 已暂停\nAction: pause\nAction Input: {}", "已暂停", None),
    ("Thought: x\nFinal Answer: 第一行\n第二行\n第三行", "第一行\n第二行\n第三行", None),
    (
        "Thought: none needed\nAction: None\nFinal Answer: I can only play audiobooks.",
        "I can only play audiobooks.",
        None,
    ),
    (
        "Thought: x\nAction: 无\nFinal Answer: 抱歉，我只会放有声书。",
        "抱歉，我只会放有声书。",
        None,
    ),
    # 36-40: call styles, Chinese labels, inline labels, tool_call json
    (
        'Thought: x\nAction: play_book({"keyword": "西游记", "section": 1})',
        "play_book",
        PLAY,
    ),
    ('Thought: x\nAction: play_book(keyword="西游记", section=1)', "play_book", PLAY),
    (
        '思考：用户想听西游记\n行动：play_book\n行动输入：{"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    ("思考：完成\n最终答案：好的，已经暂停。", "好的，已经暂停。", None),
    (
        'Thought: x Action: play_book Action Input: {"keyword": "西游记", "section": 1}',
        "play_book",
        PLAY,
    ),
    # 41-46: more shapes
    (
        '<tool_call>\n{"name": "play_book", "arguments": {"keyword": "西游记", "section": 1}}\n</tool_call>',
        "play_book",
        PLAY,
    ),
    ('{"action": "pause", "action_input": {}}', "pause", {}),
    (
        "Thought: x\nAction: search_album\nAction Input: 西游记",
        "search_album",
        {"keyword": "西游记"},
    ),
    ("Thought: x\nAction: Pause\nAction Input: {}", "pause", {}),
    ("Thought: x\nAction: functions.pause\nAction Input: none", "pause", {}),
    (
        'Thought: x\nAction: play_book\nAction Input: {"keyword": "西游记", "section": "1"}',
        "play_book",
        {"keyword": "西游记", "section": "1"},
    ),
    # 47-50
    ("\n\n  Thought: x\n\n\nAction: resume\n\nAction Input: {}\n\n", "resume", {}),
    ("Thoughts: x\nActions: stop\nAction Inputs: {}", "stop", {}),
    ("Thought: x\nFinal Answer: **已经为你暂停**", "已经为你暂停", None),
    ('Thought: "Observation" is a word I know.\nAction: pause\nAction Input: {}', "pause", {}),
]


@pytest.mark.parametrize(("text", "expected", "arguments"), SHAPES)
def test_reply_shapes(text: str, expected: str, arguments: dict | None) -> None:
    result = parse(text, tools=TOOLS, schemas=SCHEMAS)
    if arguments is None:
        assert isinstance(result, F), result
        assert result.answer == expected
    else:
        assert isinstance(result, A), result
        assert result.tool == expected
        assert result.arguments == arguments


def test_table_is_large_enough() -> None:
    assert len(SHAPES) >= 40


def test_thought_is_kept() -> None:
    result = parse("Thought: 用户要暂停\nAction: pause\nAction Input: {}", tools=TOOLS)
    assert isinstance(result, A)
    assert result.thought == "用户要暂停"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("<think>only thinking here</think>", "only reasoning"),
        ("Thought: I should think more", "neither an Action nor a Final Answer"),
        ("Sure! I will play it for you.", "no 'Action:' or 'Final Answer:' label"),
        ("Thought: x\nAction: fly_to_moon\nAction Input: {}", "unknown tool 'fly_to_moon'"),
        ("Thought: x\nFinal Answer:   ", "Final Answer is empty"),
        ("Action Input: {}", "without an Action"),
        ("Thought: x\nAction: play_book\nAction Input: [1, 2]", "JSON object"),
        ("Observation: I did it", "starts with an Observation"),
    ],
)
def test_format_errors_say_why(text: str, reason: str) -> None:
    with pytest.raises(FormatError) as info:
        parse(text, tools=TOOLS, schemas=SCHEMAS)
    assert reason in info.value.reason
