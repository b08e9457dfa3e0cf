"""One test per reply shape the parser must read (examples written for this project)."""

from __future__ import annotations

import pytest
from parse_fixtures import SCHEMAS, TOOLS

from agent.parse import Action, FinalAnswer, FormatError, parse


def read(text: str) -> Action | FinalAnswer:
    return parse(text, tools=TOOLS, schemas=SCHEMAS)


def action(text: str) -> Action:
    result = read(text)
    assert isinstance(result, Action), result
    return result


def answer(text: str) -> str:
    result = read(text)
    assert isinstance(result, FinalAnswer), result
    return result.answer


def error(text: str) -> str:
    with pytest.raises(FormatError) as info:
        read(text)
    return info.value.reason


def test_labels_in_any_case() -> None:
    got = action('tHoUgHt: 要找书\naCTion: Search_Album\naction INPUT: {"keyword": "红楼梦"}')
    assert (got.tool, got.arguments, got.thought) == (
        "search_album",
        {"keyword": "红楼梦"},
        "要找书",
    )
    assert answer("thought: 完成\nFINAL ANSWER: 已经停了") == "已经停了"


def test_full_width_colons() -> None:
    got = action('Thought：找一找\nAction：search_album\nAction Input：{"keyword": "围城"}')
    assert got.arguments == {"keyword": "围城"}
    assert answer("Thought：好\nFinal Answer：为你找到了围城。") == "为你找到了围城。"


def test_bold_and_underscore_emphasis() -> None:
    got = action("**Thought**: 暂停\n__Action__: pause\n**Action Input:** {}")
    assert got.tool == "pause" and got.arguments == {}
    assert answer("__Thought:__ ok\n__Final Answer:__ 声音调好了") == "声音调好了"


def test_indentation_and_trailing_spaces() -> None:
    got = action(
        '   Thought: 调音量   \n    Action: set_volume   \n\tAction Input: {"percent": 40}   '
    )
    assert got.tool == "set_volume" and got.arguments == {"percent": 40}


def test_react_numbering() -> None:
    got = action(
        'Thought 1: 先搜索\nAction 1: search_album\nAction Input 1: {"keyword": "平凡的世界"}'
    )
    assert got.arguments == {"keyword": "平凡的世界"} and got.thought == "先搜索"
    assert answer("Thought 2: 找到了\nAction 2: Finish[平凡的世界一共有 60 集]") == (
        "平凡的世界一共有 60 集"
    )
    assert action("1. Thought: 停\n2. Action: stop\n3. Action Input: {}").tool == "stop"


def test_answer_label_for_final_answer() -> None:
    assert answer("Thought: 知道了\nAnswer: 三体一共三十集。") == "三体一共三十集。"


def test_bracket_calls() -> None:
    got = action("Thought: 查一下\nAction: search_album[活着]")
    assert got.arguments == {"keyword": "活着"}
    got = action('Action 1: play_book[{"keyword": "活着", "section": 4}]')
    assert got.arguments == {"keyword": "活着", "section": 4}
    assert action("get_status[]").tool == "get_status"


def test_finish_bracket_is_the_final_answer() -> None:
    assert answer("Thought: 已经好了\nAction: Finish[已经为你暂停]") == "已经为你暂停"
    assert answer("Finish[Playback is paused.]") == "Playback is paused."


def test_python_call_syntax() -> None:
    got = action('Thought: 播放\nAction: play_book(keyword="红楼梦", section=5)')
    assert got.arguments == {"keyword": "红楼梦", "section": 5}
    assert action("Action: search_album('边城')").arguments == {"keyword": "边城"}
    assert action('play_book("边城", 3)').arguments == {"keyword": "边城", "section": 3}
    assert action("pause()").arguments == {}


def test_json_action_and_action_input() -> None:
    got = action('{"action": "search_album", "action_input": {"keyword": "小王子"}}')
    assert got.tool == "search_album" and got.arguments == {"keyword": "小王子"}
    assert (
        answer('{"action": "Final Answer", "action_input": "小王子有 27 集"}') == "小王子有 27 集"
    )


def test_json_name_with_arguments_or_parameters() -> None:
    got = action('{"name": "set_volume", "arguments": {"percent": 25}}')
    assert got.arguments == {"percent": 25}
    got = action('{"name": "search_album", "parameters": {"keyword": "骆驼祥子"}}')
    assert got.arguments == {"keyword": "骆驼祥子"}


def test_json_tool_call_wrapper() -> None:
    got = action('{"tool_call": {"name": "resume", "arguments": {}}}')
    assert got.tool == "resume"


def test_openai_function_envelope() -> None:
    got = action(
        '{"type": "function", "function": {"name": "play_book", '
        '"arguments": "{\\"keyword\\": \\"朝花夕拾\\", \\"section\\": 2}"}}'
    )
    assert got.arguments == {"keyword": "朝花夕拾", "section": 2}
    got = action('[{"id": "c1", "function": {"name": "stop", "arguments": "{}"}}]')
    assert got.tool == "stop"


def test_python_repr_single_quotes() -> None:
    got = action("{'name': 'search_album', 'arguments': {'keyword': '茶馆', 'page': None}}")
    assert got.arguments == {"keyword": "茶馆", "page": None}
    got = action("{'action': 'set_volume', 'action_input': {'percent': 70}}")
    assert got.arguments == {"percent": 70}


def test_text_around_a_json_envelope() -> None:
    got = action(
        "好的，这就去找。\n```json\n"
        '{"name": "search_album", "arguments": {"keyword": "城南旧事"}}\n```\n希望有用。'
    )
    assert got.arguments == {"keyword": "城南旧事"} and got.thought == "好的，这就去找。"


def test_deepseek_tool_call_tokens() -> None:
    got = action(
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search_album\n"
        '```json\n{"keyword": "呼兰河传"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    assert got.arguments == {"keyword": "呼兰河传"}
    got = action(
        "我先查一下。<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>set_volume<｜tool▁sep｜>"
        '{"percent": 55}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    assert got.arguments == {"percent": 55} and got.thought == "我先查一下。"


def test_react_inside_think_recovered_only_when_nothing_is_outside() -> None:
    got = action("<think>\nThought: 要暂停\nAction: pause\nAction Input: {}\n</think>")
    assert got.tool == "pause"
    assert answer("<think>Action: stop</think>\nFinal Answer: 没有停") == "没有停"
    assert "only reasoning" in error("<think>just wondering what to do</think>")


def test_bare_string_input_goes_to_the_first_parameter() -> None:
    assert action("Action: search_album\nAction Input: 骆驼祥子").arguments == {
        "keyword": "骆驼祥子"
    }
    assert action('Action: search_album\nAction Input: "骆驼祥子"').arguments == {
        "keyword": "骆驼祥子"
    }
    # one pair of quotes only
    assert action("Action: search_album\nAction Input: \"'骆驼祥子'\"").arguments == {
        "keyword": "'骆驼祥子'"
    }


def test_numeric_looking_id_stays_a_string() -> None:
    assert action("Action: get_album_detail\nAction Input: 10023").arguments == {
        "album_id": "10023"
    }
    got = action('Action: get_album_detail\nAction Input: {"album_id": 10023}')
    assert got.arguments == {"album_id": "10023"}
    assert action("Action: set_volume\nAction Input: 35").arguments == {"percent": 35}


@pytest.mark.parametrize(
    "value", ["{}", "null", "None", '""', "", '{"type": "object", "properties": {}}', "无"]
)
def test_empty_inputs_for_a_tool_without_parameters(value: str) -> None:
    assert action(f"Thought: 停一下\nAction: pause\nAction Input: {value}").arguments == {}


def test_no_action_input_line_for_a_tool_without_parameters() -> None:
    assert action("Thought: 继续\nAction: resume").arguments == {}


def test_echoed_schema_for_a_tool_with_parameters_is_an_error() -> None:
    reason = error(
        "Action: search_album\nAction Input: "
        '{"type": "object", "properties": {"keyword": {"type": "string"}}}'
    )
    assert "repeats the tool's schema" in reason and "keyword" in reason


@pytest.mark.parametrize(
    "written", ["`pause`", '"pause"', "'pause'", "pause()", "PAUSE", "**pause**", "`pause()`"]
)
def test_tool_names_are_cleaned(written: str) -> None:
    assert action(f"Thought: x\nAction: {written}\nAction Input: {{}}").tool == "pause"


@pytest.mark.parametrize("written", ["pause_it", "search album", "searchalbum", "Pause-Now"])
def test_nothing_fuzzier_than_case(written: str) -> None:
    assert "unknown tool" in error(f"Thought: x\nAction: {written}\nAction Input: {{}}")


def test_prose_answering_the_listener_is_a_final_answer() -> None:
    assert answer("红楼梦一共有八十集，现在放到第三集。") == "红楼梦一共有八十集，现在放到第三集。"
    assert answer("Sure, the volume is at forty percent now.") == (
        "Sure, the volume is at forty percent now."
    )


@pytest.mark.parametrize(
    "prose",
    [
        "Let me look that up for you.",
        "I'll search the library now.",
        "好的，我来帮你搜索一下。",
        "让我先查一查这本书。",
        "I will use search_album to find it.",
        'I am just raw text without any format {"x": }',
    ],
)
def test_prose_that_only_announces_a_tool_is_an_error(prose: str) -> None:
    assert "valid tools:" in error(prose)


def test_missing_required_argument_is_an_error_before_the_call() -> None:
    reason = error('Action: play_book\nAction Input: {"section": 2}')
    assert "needs 'keyword'" in reason and '"keyword"' in reason


def test_action_and_final_answer_on_one_line_is_an_error() -> None:
    assert "both" in error("Action: play_book Final Answer:")
    assert "both" in error("Thought: x Action: pause Final Answer: 好")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Thought: 我再想想",
        "Action: fly_away\nAction Input: {}",
        "Action Input: {}",
        "Observation: 我已经做完了",
        "Action: play_book Final Answer: x",
        'Action: set_volume\nAction Input: {"level": 3}',
        "Action: search_album\nAction Input: [1, 2]",
        "Let me check.",
    ],
)
def test_every_error_names_the_problem_and_lists_the_valid_tools(text: str) -> None:
    reason = error(text)
    assert "valid tools: " + ", ".join(TOOLS) in reason
    assert len(reason.split("; valid tools:")[0]) > 10  # what was wrong comes first
