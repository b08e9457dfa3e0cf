"""A character-level recogniser for GBNF grammars, to find the text a grammar forces.

Jump-forward decoding needs to know, after the text generated so far, whether the grammar
admits exactly one continuation ("\\nAction Input: {" once a tool name is unique, a JSON
key, a quote). llama.cpp's grammar sampler does not expose its state, so this module keeps
its own: the grammar text is parsed into rules (GBNF as in llama.cpp's grammars/README.md:
string literals, character classes, ``.``, groups, ``|``, ``?``/``*``/``+``/``{m,n}``,
``#`` comments), and a set of parse stacks is advanced one code point at a time, as
llama.cpp's ``llama_grammar_accept`` does. Repetitions keep a counter on the stack instead
of being expanded into rules, so a ``line-char{1,160}`` costs one stack, not 160.

`Matcher.forced` returns the longest string every admissible continuation starts with (up
to the point where a choice or the end of the grammar is possible); `Matcher.complete`
says that nothing but the end is admissible. A grammar this parser cannot read raises
`GrammarSyntaxError`; the caller then decodes without jumping.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GrammarSyntaxError", "Matcher", "State"]

_MAX_STACKS = 4096
_INF = 1 << 30


class GrammarSyntaxError(ValueError):
    """The GBNF text could not be parsed."""


@dataclass(frozen=True)
class _Chars:
    """A terminal: code-point ranges (inclusive), possibly negated; `any` is ``.``."""

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False
    any: bool = False

    def matches(self, code: int) -> bool:
        if self.any:
            return True
        inside = any(lo <= code <= hi for lo, hi in self.ranges)
        return inside != self.negated

    def single(self) -> int | None:
        """The one code point this terminal admits, or None."""
        if self.any or self.negated or not self.ranges:
            return None
        lo, hi = self.ranges[0]
        if lo != hi or any(r != (lo, hi) for r in self.ranges[1:]):
            return None
        return lo


@dataclass(frozen=True)
class _Ref:
    rule: int


@dataclass(frozen=True)
class _Rep:
    rule: int
    low: int
    high: int


_Element = _Chars | _Ref | _Rep
_Alt = tuple[_Element, ...]

# A parse stack is a linked list of positions: (alternative, index, repetition count,
# parent). alt[index] is the element to match next; index == len(alt) means the
# alternative is done and the parent continues. None is the empty stack (accepting).
_Stack = tuple[_Alt, int, int, "_Stack | None"]
State = frozenset
"""A recogniser state: a frozenset of parse stacks (None among them: the end is admissible)."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.names: dict[str, int] = {}
        self.rules: list[list[_Alt] | None] = []

    def error(self, message: str) -> GrammarSyntaxError:
        line = self.text.count("\n", 0, self.pos) + 1
        return GrammarSyntaxError(f"{message} at line {line}")

    def rule_id(self, name: str) -> int:
        if name not in self.names:
            self.names[name] = len(self.rules)
            self.rules.append(None)
        return self.names[name]

    def new_rule(self, alts: list[_Alt]) -> int:
        self.rules.append(alts)
        return len(self.rules) - 1

    def space(self, newlines: bool) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t" or (newlines and ch in "\r\n"):
                self.pos += 1
            elif ch == "#":
                while self.pos < len(text) and text[self.pos] not in "\r\n":
                    self.pos += 1
            else:
                break

    def name(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "-_"
        ):
            self.pos += 1
        if self.pos == start:
            raise self.error("expected a rule name")
        return self.text[start : self.pos]

    def char(self) -> int:
        text = self.text
        if self.pos >= len(text):
            raise self.error("unexpected end")
        ch = text[self.pos]
        if ch != "\\":
            self.pos += 1
            return ord(ch)
        self.pos += 1
        if self.pos >= len(text):
            raise self.error("unexpected end after backslash")
        esc = text[self.pos]
        self.pos += 1
        simple = {"n": 10, "r": 13, "t": 9, "\\": 92, '"': 34, "[": 91, "]": 93, "-": 45}
        if esc in simple:
            return simple[esc]
        size = {"x": 2, "u": 4, "U": 8}.get(esc)
        if size is None:
            return ord(esc)
        digits = text[self.pos : self.pos + size]
        self.pos += size
        try:
            return int(digits, 16)
        except ValueError:
            raise self.error(f"bad escape \\{esc}{digits}") from None

    def grammar(self) -> tuple[list[list[_Alt]], int]:
        self.space(True)
        while self.pos < len(self.text):
            name = self.name()
            self.space(False)
            if not self.text.startswith("::=", self.pos):
                raise self.error("expected ::=")
            self.pos += 3
            self.space(True)
            alts = self.alternates(nested=False)
            index = self.rule_id(name)
            if self.rules[index] is not None:
                raise self.error(f"rule {name} defined twice")
            self.rules[index] = alts
            self.space(True)
        missing = [n for n, i in self.names.items() if self.rules[i] is None]
        if missing:
            raise GrammarSyntaxError(f"undefined rules: {', '.join(missing)}")
        if "root" not in self.names:
            raise GrammarSyntaxError("no root rule")
        return [r or [] for r in self.rules], self.names["root"]

    def alternates(self, nested: bool) -> list[_Alt]:
        alts = [self.sequence(nested)]
        while self.pos < len(self.text) and self.text[self.pos] == "|":
            self.pos += 1
            self.space(True)
            alts.append(self.sequence(nested))
        return alts

    def sequence(self, nested: bool) -> _Alt:
        items: list[_Element] = []
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                while self.pos < len(text) and text[self.pos] != '"':
                    code = self.char()
                    items.append(_Chars(((code, code),)))
                if self.pos >= len(text):
                    raise self.error("unterminated string")
                self.pos += 1
            elif ch == "[":
                self.pos += 1
                negated = self.pos < len(text) and text[self.pos] == "^"
                if negated:
                    self.pos += 1
                ranges = []
                while self.pos < len(text) and text[self.pos] != "]":
                    lo = self.char()
                    hi = lo
                    if (
                        text[self.pos : self.pos + 1] == "-"
                        and text[self.pos + 1 : self.pos + 2] != "]"
                    ):
                        self.pos += 1
                        hi = self.char()
                    ranges.append((lo, hi))
                if self.pos >= len(text):
                    raise self.error("unterminated character class")
                self.pos += 1
                items.append(_Chars(tuple(ranges), negated))
            elif ch == ".":
                self.pos += 1
                items.append(_Chars((), any=True))
            elif ch == "(":
                self.pos += 1
                self.space(True)
                alts = self.alternates(nested=True)
                if text[self.pos : self.pos + 1] != ")":
                    raise self.error("expected )")
                self.pos += 1
                items.append(_Ref(self.new_rule(alts)))
            elif ch.isalnum() or ch in "-_":
                start = self.pos
                name = self.name()
                self.space(nested)
                if text.startswith("::=", self.pos):  # the next rule: this one has ended
                    self.pos = start
                    break
                items.append(_Ref(self.rule_id(name)))
                continue
            elif ch in "*+?{":
                if not items:
                    raise self.error(f"{ch} without an element")
                low, high = self.quantifier()
                last = items.pop()
                rule = last.rule if isinstance(last, _Ref) else self.new_rule([(last,)])
                items.append(_Rep(rule, low, high))
            else:
                break
            self.space(nested)
        return tuple(items)

    def quantifier(self) -> tuple[int, int]:
        ch = self.text[self.pos]
        self.pos += 1
        if ch == "*":
            return 0, _INF
        if ch == "+":
            return 1, _INF
        if ch == "?":
            return 0, 1
        end = self.text.find("}", self.pos)
        if end < 0:
            raise self.error("unterminated {m,n}")
        body = self.text[self.pos : end].replace(" ", "")
        self.pos = end + 1
        try:
            if "," not in body:
                return int(body), int(body)
            low, high = body.split(",", 1)
            return int(low or 0), int(high) if high else _INF
        except ValueError:
            raise self.error(f"bad repetition {{{body}}}") from None


class Matcher:
    """A GBNF grammar as a character-level recogniser; raises GrammarSyntaxError.

    States are immutable (`State`), so a caller can keep one per decoding position.
    """

    def __init__(self, text: str) -> None:
        self.rules, root = _Parser(text).grammar()
        self._start = self._expand_all([(((_Ref(root),)), 0, 0, None)])

    def start(self) -> State:
        """The state before any text."""
        return self._start

    def _expand_all(self, stacks: list[_Stack | None]) -> State:
        out: set[_Stack | None] = set()
        seen: set[_Stack | None] = set()
        for stack in stacks:
            self._expand(stack, out, seen)
        if len(out) > _MAX_STACKS:
            raise GrammarSyntaxError("grammar too ambiguous to follow")
        return frozenset(out)

    def _expand(self, stack: _Stack | None, out: set, seen: set) -> None:
        """Add to `out` every stack reachable from `stack` whose top is a terminal."""
        todo = [stack]
        while todo:
            stack = todo.pop()
            if stack in seen:
                continue
            seen.add(stack)
            if stack is None:
                out.add(None)
                continue
            alt, index, count, parent = stack
            if index == len(alt):
                todo.append(parent)
                continue
            element = alt[index]
            if isinstance(element, _Chars):
                out.add(stack)
            elif isinstance(element, _Ref):
                after = (alt, index + 1, 0, parent)
                for sub in self.rules[element.rule]:
                    todo.append((sub, 0, 0, after))
            else:  # _Rep
                if count < element.high:
                    again = (alt, index, count + 1, parent)
                    for sub in self.rules[element.rule]:
                        if sub:  # an empty alternative would repeat without progress
                            todo.append((sub, 0, 0, again))
                if count >= element.low:
                    todo.append((alt, index + 1, 0, parent))

    def advance(self, state: State, text: str) -> State:
        """The state after `text`; empty when the grammar does not admit it."""
        for ch in text:
            code = ord(ch)
            moved: list[_Stack | None] = []
            for stack in state:
                if stack is None:
                    continue
                alt, index, _count, parent = stack
                if alt[index].matches(code):  # type: ignore[union-attr]
                    moved.append((alt, index + 1, 0, parent))
            if not moved:
                return frozenset()
            state = self._expand_all(moved)
        return state

    def admits(self, state: State, ch: str) -> bool:
        """True when `ch` (one character) may come next."""
        code = ord(ch)
        return any(s is not None and s[0][s[1]].matches(code) for s in state)  # type: ignore[union-attr]

    @staticmethod
    def next_chars(state: State) -> set[str]:
        """The characters that may come next and are written out in the grammar (the
        single-character terminals; character classes are left out)."""
        codes = {s[0][s[1]].single() for s in state if s is not None}  # type: ignore[union-attr]
        return {chr(c) for c in codes if c is not None}

    @staticmethod
    def choices(state: State) -> tuple[set[str], bool]:
        """(the single characters that may come next, whether anything else may: a
        character class or the end)."""
        chars: set[str] = set()
        other = False
        for s in state:
            code = None if s is None else s[0][s[1]].single()  # type: ignore[union-attr]
            if code is None:
                other = True
            else:
                chars.add(chr(code))
        return chars, other

    @staticmethod
    def complete(state: State) -> bool:
        """True when nothing but the end of the text is admissible."""
        return state == frozenset([None])

    def forced(self, state: State, limit: int = 256) -> tuple[str, State]:
        """(the text every admissible continuation of `state` starts with, the state after).

        Stops where two characters are possible, where the text may end, or after `limit`
        characters.
        """
        out: list[str] = []
        while len(out) < limit and state and None not in state:
            codes = {s[0][s[1]].single() for s in state}  # type: ignore[union-attr]
            if len(codes) != 1:
                break
            code = codes.pop()
            if code is None:
                break
            ch = chr(code)
            out.append(ch)
            state = self.advance(state, ch)
        return "".join(out), state
