"""The local chat model: llama-cpp-python with the GBNF grammar, streaming, in a worker thread.

Messages are rendered as ChatML (the chat format of Qwen2.5, the model xiaoting ships
with). llama-cpp-python keeps the KV cache of the previous prompt and re-evaluates only
the part after the longest common prefix, so the system prompt is evaluated once and
reused across steps and turns; `Completion.cached_tokens` reports how much was reused.
Cancellation is checked between tokens and, through llama.cpp's abort callback, inside
prompt evaluation, so a button press stops a generation within one token's time.
"""

from __future__ import annotations

import asyncio
import codecs
import concurrent.futures
import contextvars
import ctypes
import dataclasses
import hashlib
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ModelError, ModelUnavailable
from .gbnf import GrammarSyntaxError, Matcher
from .models import Completion, Message, TokenCallback

_LOGGER = logging.getLogger(__name__)

__all__ = ["SPECULATIVE", "LocalModel", "render_chatml"]

SPECULATIVE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "xiaoting_speculative", default=False
)
"""True in a task whose `LocalModel.complete` calls are speculative (see `agent.speculate`):
the reply is kept for the next ordinary call with the same prompt, grammar and limits."""


@dataclass
class _Speculative:
    """A speculative reply being computed (or done) for `key`."""

    key: tuple[Any, ...]
    future: asyncio.Future[Completion]
    halt: threading.Event
    started: float


_ARGUMENTS_LABEL = "Action Input:"


def _inside_string(json_text: str) -> bool:
    """True when `json_text` (the start of a JSON value) ends inside a string."""
    inside = escaped = False
    for ch in json_text:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = inside
        elif ch == '"':
            inside = not inside
    return inside


def forced_continuation(
    matcher: Matcher, state: Any, text: str, *, compact_json: bool = True
) -> str:
    """The text to append after `text` without asking the model (jump-forward).

    That is what the grammar forces (`Matcher.forced`) and, with `compact_json`, the
    spacing of the tool arguments after ``Action Input:``: one space after ``:`` and
    ``,`` and none elsewhere outside strings, as ``json.dumps`` writes them and as the
    conversation history records earlier calls. The grammar admits that spacing (its
    whitespace is optional), so only the model's choice of it is taken away.
    """
    out, state = matcher.forced(state)
    if not compact_json:
        return out
    for _ in range(64):
        full = text + out
        at = full.rfind(_ARGUMENTS_LABEL)
        if at < 0:
            break
        arguments = full[at + len(_ARGUMENTS_LABEL) :].lstrip(" ")
        if not arguments or _inside_string(arguments):
            break
        chars, other = matcher.choices(state)
        if " " not in chars:
            break
        if full[-1] in ":,":
            ch = " "
        else:
            rest = chars - {" "}
            if other or len(rest) != 1:
                break
            ch = rest.pop()
        state = matcher.advance(state, ch)
        more, state = matcher.forced(state)
        out += ch + more
    return out


@dataclass
class _Decoded:
    """What one decoding produced (times in ms from the request)."""

    text: str = ""
    reason: str = "stop"
    first_ms: float | None = None
    decoded: int = 0
    forced: int = 0
    prefill_ms: float | None = None
    rejected: int = 0
    """Steps whose most likely token the grammar refused (the grammar then ran on the
    whole vocabulary)."""
    marked: list[str] = field(default_factory=list)
    """The reply with decoded tokens in [] and forced text in «» (for the debug log)."""


def render_chatml(messages: list[Message], *, add_generation_prompt: bool = True) -> str:
    """Messages as one ChatML prompt string (``<|im_start|>role\\ncontent<|im_end|>``)."""
    parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
    if add_generation_prompt:
        parts.append("<|im_start|>assistant\n")
    return "".join(parts)


def default_threads() -> int:
    """llama.cpp threads when none are configured: the cores this process may use, less one
    on a device with 3 or more (decoding and the audio writer need a core while the model
    generates); all of them on 1 or 2 cores."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores - 1 if cores >= 3 else max(1, cores)


class LocalModel:
    """A GGUF model run by llama-cpp-python on this machine.

    `path` is the GGUF file; `n_ctx` the context in tokens; `n_threads` CPU threads (0 =
    `default_threads()`: one core left for audio on a device with 3 or more); `max_tokens` the default reply limit; `temperature` 0 means greedy, above 0 sampling at that temperature (`seed` for each reply's draws);
    `grammar` False ignores grammars (to measure their cost); `cache` False resets the KV
    cache before every call (to measure its effect). `jump_forward` appends the text the
    grammar forces in batches instead of decoding it token by token (greedy or sampled:
    forced text is the only admissible continuation either way; off with sampling, llama.cpp's
    own sampler runs the reply); `thought_tokens` ends the Thought line after that many tokens (0 = only the
    grammar's bound); `compact_json` lets jump-forward also fix the tool arguments' optional
    whitespace to ``json.dumps`` spacing (see `forced_continuation`). `state_dir` keeps the
    evaluated system prompt across restarts (see `warm`). The model loads on first use or with `load()`; a missing or
    unreadable file raises ModelUnavailable.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        n_ctx: int = 4096,
        n_threads: int = 0,
        max_tokens: int = 256,
        temperature: float = 0.0,
        grammar: bool = True,
        cache: bool = True,
        n_batch: int = 256,
        seed: int = 0,
        jump_forward: bool = True,
        thought_tokens: int = 24,
        compact_json: bool = True,
        state_dir: str | os.PathLike[str] | None = None,
        name: str = "local",
        llama_factory: Callable[..., Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.supports_grammar = grammar
        self.cache = cache
        self.n_batch = n_batch
        self.seed = seed
        self.jump_forward = jump_forward
        self.thought_tokens = thought_tokens
        self.compact_json = compact_json
        self.name = name
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self.decode_rate: float | None = None
        """Decode steps per second, measured by `probe` and updated by every reply."""
        self.budget_floor = 15.0
        self.last_warm: dict[str, Any] = {}
        self._factory = llama_factory
        self._llm: Any = None
        self._abort = threading.Event()
        self._abort_cb: Any = None
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llama")
        self._grammars: dict[str, Any] = {}
        self._matchers: dict[str, Matcher | None] = {}
        self._load_lock = threading.Lock()
        self._speculative: _Speculative | None = None
        self.speculative_hits = 0
        """Replies served from a speculative step (the final transcript was the guess)."""

    # -- loading

    def _load_sync(self) -> Any:
        with self._load_lock:
            if self._llm is not None:
                return self._llm
            if not self.path.is_file():
                raise ModelUnavailable(f"model file not found: {self.path}")
            try:
                if self._factory is not None:
                    factory = self._factory
                else:
                    import llama_cpp

                    factory = llama_cpp.Llama
                start = time.perf_counter()
                llm = factory(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    n_batch=self.n_batch,
                    seed=self.seed,
                    verbose=False,
                )
            except ModelError:
                raise
            except Exception as exc:
                raise ModelUnavailable(f"cannot load {self.path.name}: {exc}") from exc
            self._install_abort(llm)
            _LOGGER.info(
                "loaded %s in %.1f s (n_ctx=%d, threads=%d)",
                self.path.name,
                time.perf_counter() - start,
                self.n_ctx,
                self.n_threads,
            )
            self._llm = llm
            return llm

    def _install_abort(self, llm: Any) -> None:
        try:
            import llama_cpp

            callback = llama_cpp.ggml_abort_callback(lambda _data: self._abort.is_set())
            llama_cpp.llama_set_abort_callback(llm._ctx.ctx, callback, None)
            self._abort_cb = callback  # keep a reference for the C side
        except Exception as exc:  # an older binding: cancellation still works between tokens
            _LOGGER.debug("no abort callback: %s", exc)

    async def load(self) -> None:
        """Load the model now (in the worker thread); raises ModelUnavailable."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self._load_sync)

    def close(self) -> None:
        """Free the model and stop the worker thread."""
        self._abort.set()
        self._executor.shutdown(wait=True, cancel_futures=True)
        llm, self._llm = self._llm, None
        if llm is not None and hasattr(llm, "close"):
            llm.close()

    @property
    def budget(self) -> float | None:
        """Seconds one reply may take: `max_tokens` at the measured decode rate, twice over,
        and at least `budget_floor`; None before a rate is known (then the configured step
        timeout applies)."""
        if not self.decode_rate:
            return None
        return max(self.budget_floor, self.max_tokens / self.decode_rate * 2.0)

    def _learn_rate(self, steps: int, seconds: float) -> None:
        if steps >= 4 and seconds > 0:
            rate = steps / seconds
            old = self.decode_rate
            self.decode_rate = rate if old is None else 0.7 * old + 0.3 * rate

    def _probe_sync(self, steps: int) -> dict[str, float]:
        import numpy as np

        llm = self._load_sync()
        prompt = llm.tokenize(
            render_chatml([{"role": "user", "content": "Count from one to twenty."}]).encode(),
            add_bos=True,
            special=True,
        )
        llm.n_tokens = 0
        began = time.perf_counter()
        llm.eval(prompt)
        prefill = time.perf_counter() - began
        n_vocab = llm.n_vocab()
        began = time.perf_counter()
        for _ in range(steps):
            import llama_cpp

            logits = np.ctypeslib.as_array(
                llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(n_vocab,)
            )
            llm.eval([int(np.argmax(logits))])
        decode = time.perf_counter() - began
        llm.n_tokens = 0  # the probe's tokens are not a prompt to reuse
        self.decode_rate = steps / decode
        return {
            "decode_tps": round(steps / decode, 2),
            "prefill_tps": round(len(prompt) / prefill, 2),
            "threads": self.n_threads,
        }

    async def probe(self, steps: int = 24) -> dict[str, float]:
        """Measure this machine's speed with this model: ``decode_tps`` (greedy steps per
        second, one token each), ``prefill_tps`` (prompt tokens per second) and
        ``threads``. Sets `decode_rate`, from which `budget` derives; raises
        ModelUnavailable when the model cannot load."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._probe_sync, steps)

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` under this model's tokenizer (estimated before loading)."""
        if self._llm is None:
            from .models import estimate_tokens

            return estimate_tokens(text)
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    # -- generation

    def _grammar(self, text: str) -> Any:
        grammar = self._grammars.get(text)
        if grammar is None:
            import llama_cpp

            grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
            if len(self._grammars) > 32:
                self._grammars.clear()
            self._grammars[text] = grammar
        return grammar

    def _cached_prefix(self, llm: Any, tokens: list[int]) -> int:
        n = int(getattr(llm, "n_tokens", 0))
        if n <= 0:
            return 0
        previous = llm.input_ids[:n].tolist()
        count = 0
        for a, b in zip(previous, tokens, strict=False):
            if a != b:
                break
            count += 1
        return count

    def _generate(
        self,
        prompt: str,
        grammar: str | None,
        max_tokens: int,
        stop: list[str] | None,
        emit: Callable[[str], None],
        halt: threading.Event | None = None,
    ) -> Completion:
        start = time.perf_counter()
        halt = halt if halt is not None else threading.Event()
        llm = self._load_sync()
        if not self.cache:
            llm.reset()
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        if len(tokens) + max_tokens > self.n_ctx:
            max_tokens = max(1, self.n_ctx - len(tokens))
            if len(tokens) >= self.n_ctx:
                raise ModelError(f"prompt of {len(tokens)} tokens exceeds n_ctx {self.n_ctx}")
        cached = self._cached_prefix(llm, tokens)
        if self.temperature <= 0.0 or self.jump_forward:
            out = self._decode(
                llm,
                tokens,
                cached,
                grammar if self.supports_grammar else None,
                max_tokens,
                stop,
                emit,
                start,
                halt,
            )
        else:
            out = self._sample(llm, tokens, grammar, max_tokens, stop, emit, start, halt)
        if out.prefill_ms is not None and out.decoded:
            decode_s = (time.perf_counter() - start) - out.prefill_ms / 1000.0
            self._learn_rate(out.decoded, decode_s)
        return Completion(
            text=out.text,
            backend=self.name,
            prompt_tokens=len(tokens),
            completion_tokens=out.decoded + out.forced,
            cached_tokens=cached,
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
            first_token_ms=out.first_ms,
            finish_reason=out.reason,
            forced_tokens=out.forced,
            prefill_ms=out.prefill_ms or 0.0,
        )

    def _sample(
        self,
        llm: Any,
        tokens: list[int],
        grammar: str | None,
        max_tokens: int,
        stop: list[str] | None,
        emit: Callable[[str], None],
        start: float,
        halt: threading.Event,
    ) -> _Decoded:
        """Temperature sampling through llama-cpp-python's streaming completion."""
        options: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "stream": True,
            "stop": stop or [],
            "seed": self.seed,
        }
        if grammar and self.supports_grammar:
            options["grammar"] = self._grammar(grammar)
        text = []
        first: float | None = None
        reason = "stop"
        stream = llm.create_completion(tokens, **options)
        try:
            for chunk in stream:
                if self._abort.is_set() or halt.is_set():
                    reason = "cancelled"
                    break
                piece = chunk["choices"][0].get("text", "")
                if first is None:
                    first = (time.perf_counter() - start) * 1000.0
                if piece:
                    text.append(piece)
                    emit(piece)
                if chunk["choices"][0].get("finish_reason") == "length":
                    reason = "length"
        except RuntimeError as exc:
            if not self._abort.is_set():
                raise ModelError(f"llama.cpp failed: {exc}") from exc
            reason = "cancelled"
        finally:
            stream.close()
        reply = "".join(text)
        generated = len(llm.tokenize(reply.encode("utf-8"), add_bos=False)) if reply else 0
        return _Decoded(reply, reason, first, generated)

    def _matcher(self, grammar: str) -> Matcher | None:
        """The character-level recogniser of `grammar` (cached), None if it cannot be read."""
        if grammar not in self._matchers:
            try:
                matcher: Matcher | None = Matcher(grammar)
            except GrammarSyntaxError as exc:
                _LOGGER.warning("jump-forward off for this grammar: %s", exc)
                matcher = None
            if len(self._matchers) > 32:
                self._matchers.clear()
            self._matchers[grammar] = matcher
        return self._matchers[grammar]

    @staticmethod
    def _keep(llm: Any, matcher: Matcher, state: Any, forced: str) -> str:
        """The part of `forced` to append: without its last token when a character the
        grammar may put after it would merge into that token (``{`` + ``"`` is the one
        token ``{"``), so the model still writes the boundary as its tokenizer would."""
        if not forced:
            return forced
        encode = forced.encode("utf-8")
        mine = llm.tokenize(encode, add_bos=False, special=False)
        after = matcher.advance(state, forced)
        for ch in sorted(matcher.next_chars(after)):
            merged = llm.tokenize(encode + ch.encode("utf-8"), add_bos=False, special=False)
            if merged[: len(mine)] != mine:
                kept = llm.detokenize(mine[:-1])
                try:
                    return kept.decode("utf-8")
                except UnicodeDecodeError:
                    return ""
        return forced

    def _force(self, llm: Any, sampler: Any, text: str, check: Any) -> tuple[Any, bool]:
        """Advance the grammar sampler over `text`: (sampler to use from now on, ok).

        The tokens are checked one by one against a clone of the sampler before they are
        accepted, so a text llama.cpp's grammar would reject (which would abort inside
        llama.cpp) leaves the original sampler as it was.
        """
        import llama_cpp

        if sampler is None:
            return None, True
        clone = llama_cpp.llama_sampler_clone(sampler)
        for token in llm.tokenize(text.encode("utf-8"), add_bos=False, special=False):
            if not check(clone, token):
                llama_cpp.llama_sampler_free(clone)
                return sampler, False
            llama_cpp.llama_sampler_accept(clone, token)
        llama_cpp.llama_sampler_free(sampler)
        return clone, True

    def _decode(
        self,
        llm: Any,
        tokens: list[int],
        cached: int,
        grammar: str | None,
        max_tokens: int,
        stop: list[str] | None,
        emit: Callable[[str], None],
        start: float,
        halt: threading.Event,
    ) -> _Decoded:
        """Greedy or sampled decoding under the grammar, with jump-forward over forced text.

        With `temperature` 0 the most likely token is taken; above 0 a token is drawn from
        the model's distribution at that temperature (numpy's generator seeded with `seed`,
        one sequence per reply). When the grammar refuses the token drawn, the draw is
        repeated among the tokens it admits, which is the model's distribution restricted
        to the grammar and renormalised (P(t | admitted) = p(t) / P(admitted)), as
        llama.cpp's grammar sampler gives. Jump-forward is exact under sampling too: where
        the grammar admits one continuation only, every draw would produce it (its
        probability under the restricted distribution is 1), so appending it unsampled
        changes nothing but the tokenisation, which is the tokenizer's own.

        Applying a GBNF grammar to the whole vocabulary (150k tokens for Qwen2.5) at every
        step halves the decoding speed; like llama.cpp's own sampler, this checks only the
        most likely token and applies the grammar to all tokens when that one is rejected.

        Where the grammar admits exactly one continuation (labels, the rest of a tool name
        once it is unique, JSON keys and punctuation), that text is not decoded token by
        token: it is tokenised together with the token just chosen (so the boundary is
        tokenised as the tokenizer would), appended in one batched evaluation, and the
        grammar sampler is advanced over it. Trailing spaces of a forced span are left to
        the model, whose tokens carry a word's leading space. When nothing but the end is
        admissible, decoding stops without asking the model for its end-of-generation
        token. The first line (the Thought) is cut at `thought_tokens` tokens.
        """
        import llama_cpp
        import numpy as np

        vocab = llm._model.vocab
        n_vocab = llm.n_vocab()
        out = _Decoded()
        temperature = self.temperature
        rng = np.random.default_rng(self.seed) if temperature > 0.0 else None

        def pick(values: Any) -> int:
            """Index of the token to take from `values` (logits; -inf where refused)."""
            if rng is None:
                return int(np.argmax(values))
            scaled = values.astype(np.float64) / temperature
            scaled -= scaled[np.isfinite(scaled)].max()
            probs = np.exp(scaled)
            probs /= probs.sum()
            return int(rng.choice(len(probs), p=probs))

        sampler = None
        if grammar:
            sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
            if not sampler:
                raise ModelError("llama.cpp rejected the grammar")
        matcher = self._matcher(grammar) if grammar and self.jump_forward else None
        state = matcher.start() if matcher is not None else None
        one = (llama_cpp.llama_token_data * 1)()
        one_array = llama_cpp.llama_token_data_array(one, 1, -1, False)
        every = np.zeros(
            n_vocab, dtype=[("id", np.int32), ("logit", np.float32), ("p", np.float32)]
        )
        every_array = llama_cpp.llama_token_data_array(
            every.ctypes.data_as(llama_cpp.llama_token_data_p), n_vocab, -1, False
        )

        def admitted(smpl: Any, token: int, logit: float = 0.0) -> bool:
            one[0].id, one[0].logit, one[0].p = token, logit, 0.0
            one_array.size, one_array.selected, one_array.sorted = 1, -1, False
            llama_cpp.llama_sampler_apply(smpl, ctypes.byref(one_array))
            return math.isfinite(one[0].logit)

        newline = llm.tokenize(b"\n", add_bos=False, special=False)
        newline_token = newline[0] if len(newline) == 1 else None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        reuse = min(cached, len(tokens) - 1)
        llm.n_tokens = reuse
        pending = list(tokens[reuse:])
        thought = 0  # tokens decoded on the first line
        done = False

        def jump(forced: str, boundary: int | None) -> list[int]:
            """Tokens to evaluate for the chosen `boundary` token followed by `forced`."""
            nonlocal sampler, matcher, state
            sampler, ok = self._force(llm, sampler, forced, admitted)
            if not ok:
                _LOGGER.debug("grammar sampler refused forced text %r: jump-forward off", forced)
                matcher = None
                return [] if boundary is None else [boundary]
            state = matcher.advance(state, forced) if matcher is not None else state
            out.text += forced
            out.marked.append(f"«{forced}»")
            emit(forced)
            if boundary is None:
                batch = llm.tokenize(forced.encode("utf-8"), add_bos=False, special=False)
                out.forced += len(batch)
                return batch
            head = llm.detokenize([boundary])
            try:
                head.decode("utf-8")
            except UnicodeDecodeError:  # part of a character: keep the model's own token
                tail = llm.tokenize(forced.encode("utf-8"), add_bos=False, special=False)
                out.forced += len(tail)
                return [boundary, *tail]
            batch = llm.tokenize(head + forced.encode("utf-8"), add_bos=False, special=False)
            out.forced += max(0, len(batch) - 1)
            return batch

        try:
            if matcher is not None and state is not None:
                opening, _ = matcher.forced(state)
                opening = self._keep(llm, matcher, state, opening.rstrip(" "))
                if opening:
                    pending += jump(opening, None)
            while out.decoded + out.forced < max_tokens:
                if self._abort.is_set() or halt.is_set():
                    out.reason = "cancelled"
                    break
                if done:  # the grammar is complete: no need to evaluate the forced tail
                    break
                began = time.perf_counter()
                llm.eval(pending)
                if out.prefill_ms is None:
                    out.prefill_ms = (time.perf_counter() - began) * 1000.0
                pointer = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
                logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,))
                token = pick(logits)
                cut = (
                    self.thought_tokens > 0
                    and thought >= self.thought_tokens
                    and "\n" not in out.text
                    and newline_token is not None
                )
                if cut and (sampler is None or admitted(sampler, newline_token)):
                    token = newline_token
                elif sampler is not None and not admitted(sampler, token, float(logits[token])):
                    out.rejected += 1
                    every["id"] = np.arange(n_vocab, dtype=np.int32)
                    every["logit"] = logits
                    every_array.size, every_array.selected = n_vocab, -1
                    every_array.sorted = False
                    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(every_array))
                    size = int(every_array.size)
                    admissible = every["logit"][:size]
                    if not np.isfinite(admissible).any():
                        out.reason = "stop"  # nothing the grammar admits
                        break
                    token = int(every["id"][pick(admissible)])
                if sampler is not None:
                    llama_cpp.llama_sampler_accept(sampler, token)
                out.decoded += 1
                if "\n" not in out.text:
                    thought += 1
                if out.first_ms is None:
                    out.first_ms = (time.perf_counter() - start) * 1000.0
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    out.reason = "stop"
                    break
                piece = decoder.decode(llm.detokenize([token]))
                pending = [token]
                out.marked.append(f"[{piece}]")
                if piece:
                    out.text += piece
                    hit = min(
                        (out.text.find(s) for s in stop or [] if s and s in out.text), default=-1
                    )
                    if hit >= 0:
                        out.text = out.text[:hit]
                        out.reason = "stop"
                        break
                    emit(piece)
                    if matcher is not None and state is not None:
                        state = matcher.advance(state, piece)
                        if not state:
                            _LOGGER.debug("recogniser lost the grammar at %r", out.text)
                            matcher = None
                if matcher is None or state is None or decoder.getstate()[0]:
                    continue  # no jump in the middle of a character
                if matcher.complete(state):
                    out.reason = "stop"
                    break
                if (
                    self.thought_tokens > 0
                    and thought >= self.thought_tokens
                    and "\n" not in out.text
                    and matcher.admits(state, "\n")
                ):
                    after = matcher.advance(state, "\n")
                    forced = "\n" + forced_continuation(
                        matcher, after, out.text + "\n", compact_json=self.compact_json
                    )
                else:
                    forced = forced_continuation(
                        matcher, state, out.text, compact_json=self.compact_json
                    )
                forced = self._keep(llm, matcher, state, forced.rstrip(" "))
                if forced:
                    pending = jump(forced, token)
                    if matcher is not None and state is not None and matcher.complete(state):
                        done = True
                        out.reason = "stop"
            else:
                out.reason = "length"
        except RuntimeError as exc:
            if not self._abort.is_set():
                raise ModelError(f"llama.cpp failed: {exc}") from exc
            out.reason = "cancelled"
        finally:
            if sampler is not None:
                llama_cpp.llama_sampler_free(sampler)
        if _LOGGER.isEnabledFor(logging.DEBUG):
            _LOGGER.debug(
                "decoded [] and forced «»: %s (%d refused by the grammar)",
                "".join(out.marked),
                out.rejected,
            )
        return out

    async def complete(
        self,
        messages: list[Message],
        *,
        grammar: str | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        cancel: asyncio.Event | None = None,
        on_token: TokenCallback | None = None,
    ) -> Completion:
        """Generate one reply in the worker thread; see `ChatModel.complete`.

        Raises ModelUnavailable when the model cannot load and ModelError when llama.cpp
        fails. The asyncio `cancel` event is watched and stops generation between tokens.
        In a task where `SPECULATIVE` is true the reply is computed as usual and kept: the
        next ordinary call with the same prompt, grammar and limits gets it (waiting for it
        if it is still being computed) instead of generating again; any other call stops it
        at the next token.
        """
        loop = asyncio.get_running_loop()
        prompt = render_chatml(messages)
        limit = max_tokens or self.max_tokens
        key = (prompt, grammar, limit, tuple(stop or ()), self.temperature)
        if SPECULATIVE.get():
            return await self._speculate(key, prompt, grammar, limit, stop, cancel)
        requested = time.perf_counter()
        kept, self._speculative = self._speculative, None
        if kept is not None:
            if kept.key == key and not kept.halt.is_set():
                reply = await self._reuse(kept, requested, cancel)
                if reply is not None:
                    return reply
            kept.halt.set()
        self._abort.clear()

        def emit(piece: str) -> None:
            if on_token is not None:
                loop.call_soon_threadsafe(on_token, piece)

        future = loop.run_in_executor(
            self._executor, self._generate, prompt, grammar, limit, stop, emit
        )
        watcher = None
        if cancel is not None:

            async def watch() -> None:
                await cancel.wait()
                self._abort.set()

            watcher = asyncio.ensure_future(watch())
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            self._abort.set()
            raise
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _speculate(
        self,
        key: tuple[Any, ...],
        prompt: str,
        grammar: str | None,
        limit: int,
        stop: list[str] | None,
        cancel: asyncio.Event | None,
    ) -> Completion:
        halt = threading.Event()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(
            self._executor, self._generate, prompt, grammar, limit, stop, lambda _p: None, halt
        )
        old, self._speculative = (
            self._speculative,
            _Speculative(key, future, halt, time.perf_counter()),
        )
        if old is not None:
            old.halt.set()
        watcher = None
        if cancel is not None:

            async def watch() -> None:
                await cancel.wait()
                halt.set()

            watcher = asyncio.ensure_future(watch())
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            halt.set()
            raise
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _reuse(
        self, kept: _Speculative, requested: float, cancel: asyncio.Event | None
    ) -> Completion | None:
        """The kept speculative reply for this request (None: generate it anew). Its times
        are made relative to this request: a first token made before it counts as 0 ms."""
        waiter = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
        try:
            waits = {asyncio.shield(kept.future), *([waiter] if waiter else [])}
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if waiter is not None and waiter in done:
                kept.halt.set()
                return None  # cancelled: the ordinary path returns at once
            reply = kept.future.result()
        except (ModelError, RuntimeError) as exc:
            _LOGGER.debug("speculative reply failed: %s", exc)
            return None
        finally:
            if waiter is not None:
                waiter.cancel()
        if reply.finish_reason == "cancelled":
            return None
        now = time.perf_counter()
        ahead_ms = (requested - kept.started) * 1000.0
        first = reply.first_token_ms
        self.speculative_hits += 1
        _LOGGER.info(
            "reply ready from the partial transcript (started %.0f ms before the request, "
            "%.0f ms waited)",
            ahead_ms,
            (now - requested) * 1000.0,
        )
        return dataclasses.replace(
            reply,
            elapsed_ms=(now - requested) * 1000.0,
            first_token_ms=None if first is None else max(0.0, first - ahead_ms),
            prefill_ms=max(0.0, reply.prefill_ms - ahead_ms),
        )

    def stop_speculation(self) -> None:
        """Stop and drop the kept speculative reply (its guess turned out wrong)."""
        kept, self._speculative = self._speculative, None
        if kept is not None:
            kept.halt.set()

    async def warm(self, messages: list[Message]) -> float:
        """Evaluate `messages` (e.g. the system prompt) into the KV cache; returns ms taken.

        With a `state_dir`, a fresh model first loads the state saved there by an earlier
        warm-up of this model file and context size (`state_file`); the prompt's tokens
        that match the saved ones are reused, only the rest is evaluated (the library's
        titles sit at the end of the system prompt), and the new state is saved again.
        `last_warm` reports the counts.
        """
        prompt = render_chatml(messages, add_generation_prompt=False)

        def run() -> float:
            start = time.perf_counter()
            llm = self._load_sync()
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            path = self.state_file()
            saved = 0
            if path is not None and int(getattr(llm, "n_tokens", 0)) == 0 and path.is_file():
                saved = self._load_state(llm, path)
            cached = self._cached_prefix(llm, tokens)
            if cached < len(tokens):
                llm.n_tokens = cached
                llm.eval(tokens[cached:])
            evaluated = len(tokens) - cached
            if path is not None and evaluated:
                self._save_state(llm, path)
            ms = (time.perf_counter() - start) * 1000.0
            self.last_warm = {
                "tokens": len(tokens),
                "from_state": min(saved, cached),
                "evaluated": evaluated,
                "ms": round(ms, 1),
            }
            _LOGGER.info(
                "prompt: %d tokens, %d from the saved state, %d evaluated (%.2f s)",
                len(tokens),
                min(saved, cached),
                evaluated,
                ms / 1000.0,
            )
            return ms

        return await asyncio.get_running_loop().run_in_executor(self._executor, run)

    # -- saved prompt state

    def state_file(self) -> Path | None:
        """Where this model's evaluated prompt is saved: one file per model file (size,
        mtime and a hash of its first and last MiB), context size, batch size and
        llama.cpp build, under `state_dir`; None without one. The prompt's own tokens are
        stored inside and compared at load, so a changed prompt reuses what still matches."""
        if self.state_dir is None:
            return None
        try:
            import llama_cpp

            version = getattr(llama_cpp, "__version__", "?")
        except ImportError:
            version = "?"
        key = f"{model_fingerprint(self.path)}|{self.n_ctx}|{self.n_batch}|{version}"
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        return Path(self.state_dir) / f"prompt-{self.path.stem}-{digest}.llama-state"

    def _load_state(self, llm: Any, path: Path) -> int:
        """Load the saved KV state into `llm`; returns its token count (0 if unusable)."""
        import llama_cpp

        started = time.perf_counter()
        buffer = (llama_cpp.llama_token * self.n_ctx)()
        count = ctypes.c_size_t(0)
        ok = llama_cpp.llama_state_load_file(
            llm._ctx.ctx, str(path).encode(), buffer, self.n_ctx, ctypes.byref(count)
        )
        if not ok or count.value > self.n_ctx:
            _LOGGER.warning("saved prompt state %s unusable: evaluating the prompt", path.name)
            llm.n_tokens = 0
            path.unlink(missing_ok=True)
            return 0
        n = int(count.value)
        llm.input_ids[:n] = buffer[:n]
        llm.n_tokens = n
        _LOGGER.info(
            "saved prompt state loaded: %d tokens in %.0f ms",
            n,
            (time.perf_counter() - started) * 1000,
        )
        return n

    def _save_state(self, llm: Any, path: Path) -> None:
        """Write the KV state of the evaluated prompt to `path` (whole files only)."""
        import llama_cpp

        n = int(llm.n_tokens)
        tokens = (llama_cpp.llama_token * n)(*llm.input_ids[:n].tolist())
        temp = path.with_name(path.name + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not llama_cpp.llama_state_save_file(llm._ctx.ctx, str(temp).encode(), tokens, n):
                raise OSError("llama.cpp could not write the state")
            os.replace(temp, path)
        except OSError as exc:
            _LOGGER.warning("prompt state not saved to %s: %s", path.parent, exc)
            temp.unlink(missing_ok=True)
            return
        for old in path.parent.glob(f"prompt-{self.path.stem}-*.llama-state"):
            if old != path:  # an earlier model file, context size or llama.cpp build
                old.unlink(missing_ok=True)
        _LOGGER.info("prompt state saved: %d tokens, %.1f MB", n, path.stat().st_size / 1e6)


def model_fingerprint(path: Path) -> str:
    """A cheap identity of a model file: size, mtime and sha256 of its first and last MiB."""
    stat = path.stat()
    digest = hashlib.sha256(f"{stat.st_size}|{stat.st_mtime_ns}".encode())
    with open(path, "rb") as handle:
        digest.update(handle.read(1 << 20))
        if stat.st_size > 2 << 20:
            handle.seek(-(1 << 20), os.SEEK_END)
            digest.update(handle.read(1 << 20))
    return digest.hexdigest()
