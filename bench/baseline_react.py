"""The original design note's minimal ReAct loop, reimplemented as a baseline for benchmarks.

As in ORIGIN.zh.md §3–4: a plain system prompt listing the tools with their parameters,
regex extraction of ``Action``/``Action Input``/``Final Answer``, ``json.loads`` of the
input, no grammar, no stop sequence, no KV-cache reuse (the model's cache is reset before
every call) and a format-error observation when extraction fails.
"""

from __future__ import annotations

import inspect
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

SYSTEM_TEMPLATE = """你是一个智能助手。你必须严格按照以下格式回复：

可用工具：
{tools}

回复格式（严格遵守！）：

Thought: <你的思考过程>
Action: <工具名>
Action Input: <JSON格式参数>
Observation: <工具返回结果>

...（可多轮循环）...

Final Answer: <最终回复用户的内容>

规则：
1. 每步只调一个工具
2. Action 必须来自可用工具列表
3. Action Input 必须是合法 JSON
4. 有足够信息回答时就输出 Final Answer
5. 绝对不要编造 Observation，它由系统填入
"""


def tool_lines(functions: list[Any]) -> str:
    """The note's tool list: ``- name: description`` and a ``参数:`` line."""
    lines = []
    for func in functions:
        doc = (inspect.getdoc(func) or "").splitlines()[0] if inspect.getdoc(func) else ""
        params = []
        for name, param in inspect.signature(func).parameters.items():
            kind = getattr(param.annotation, "__name__", str(param.annotation))
            if param.default is inspect.Parameter.empty:
                params.append(f"{name} ({kind})")
            else:
                params.append(f"{name} ({kind}, 默认{param.default!r})")
        lines.append(f"- {func.__name__}: {doc}")
        if params:
            lines.append(f"  参数: {', '.join(params)}")
    return "\n".join(lines)


def extract_tag(text: str, tag: str) -> str:
    """The note's `_extract_tag`: the rest of the first line after ``tag:``."""
    match = re.search(rf"{tag}:\s*(.*?)(?:\n|$)", text, re.DOTALL)
    return match.group(1).strip() if match else ""


@dataclass
class BaselineTurn:
    """What one baseline turn did: answer, replies, format failures, invented observations."""

    answer: str = ""
    replies: list[str] = field(default_factory=list)
    format_failures: int = 0
    invented_observations: int = 0
    tokens: int = 0
    elapsed_ms: float = 0.0


class BaselineAgent:
    """The note's `ReactAgent` loop over a `ChatModel` (used with grammar and cache off)."""

    def __init__(
        self, functions: list[Any], model: Any, *, max_rounds: int = 6, max_tokens: int = 128
    ):
        self.tools = {f.__name__: f for f in functions}
        self.system_prompt = SYSTEM_TEMPLATE.format(tools=tool_lines(functions))
        self.model = model
        self.max_rounds = max_rounds
        self.max_tokens = max_tokens

    async def run(self, user_task: str) -> BaselineTurn:
        """One turn of the minimal loop."""
        start = time.perf_counter()
        turn = BaselineTurn()
        messages = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": user_task},
        ]
        for _ in range(self.max_rounds):
            completion = await self.model.complete(messages, max_tokens=self.max_tokens)
            text = completion.text.strip()
            turn.replies.append(text)
            turn.tokens += completion.completion_tokens
            if "Observation:" in text:
                turn.invented_observations += 1
            if "Final Answer:" in text:
                turn.answer = extract_tag(text, "Final Answer")
                break
            action = extract_tag(text, "Action")
            action_input = extract_tag(text, "Action Input")
            if not action or action not in self.tools:
                turn.format_failures += 1
                messages.append({"role": "assistant", "content": text})
                messages.append(
                    {
                        "role": "user",
                        "content": "Observation: 格式错误！请检查 Action 名称和 Action Input",
                    }
                )
                continue
            try:
                arguments = json.loads(action_input)
                result = self.tools[action](**arguments)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as exc:  # the note's loop reports every failure the same way
                if isinstance(exc, json.JSONDecodeError):
                    turn.format_failures += 1
                result = f"工具执行失败: {exc}"
            messages.append({"role": "assistant", "content": text})
            messages.append({"role": "user", "content": f"Observation: {result}"})
        else:
            turn.answer = "超过最大循环次数，任务未完成"
        turn.elapsed_ms = (time.perf_counter() - start) * 1000.0
        return turn
