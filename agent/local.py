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
import ctypes
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import ModelError, ModelUnavailable
from .models import Completion, Message, TokenCallback

_LOGGER = logging.getLogger(__name__)

__all__ = ["LocalModel", "render_chatml"]


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
    `default_threads()`: one core left for audio on a device with 3 or more); `max_tokens` the default reply limit; `temperature` 0 means greedy;
    `grammar` False ignores grammars (to measure their cost); `cache` False resets the KV
    cache before every call (to measure its effect). The model loads on first use or with
    `load()`; a missing or unreadable file raises ModelUnavailable.
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
        self.name = name
        self._factory = llama_factory
        self._llm: Any = None
        self._abort = threading.Event()
        self._abort_cb: Any = None
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llama")
        self._grammars: dict[str, Any] = {}
        self._load_lock = threading.Lock()

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
    ) -> Completion:
        start = time.perf_counter()
        llm = self._load_sync()
        if not self.cache:
            llm.reset()
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        if len(tokens) + max_tokens > self.n_ctx:
            max_tokens = max(1, self.n_ctx - len(tokens))
            if len(tokens) >= self.n_ctx:
                raise ModelError(f"prompt of {len(tokens)} tokens exceeds n_ctx {self.n_ctx}")
        cached = self._cached_prefix(llm, tokens)
        if self.temperature <= 0.0:
            text, reason, first, generated = self._greedy(
                llm,
                tokens,
                cached,
                grammar if self.supports_grammar else None,
                max_tokens,
                stop,
                emit,
                start,
            )
        else:
            text, reason, first, generated = self._sample(
                llm, tokens, grammar, max_tokens, stop, emit, start
            )
        return Completion(
            text=text,
            backend=self.name,
            prompt_tokens=len(tokens),
            completion_tokens=generated,
            cached_tokens=cached,
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
            first_token_ms=first,
            finish_reason=reason,
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
    ) -> tuple[str, str, float | None, int]:
        """Temperature sampling through llama-cpp-python's streaming completion:
        (text, finish reason, first-token ms, tokens generated)."""
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
                if self._abort.is_set():
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
        return reply, reason, first, generated

    def _greedy(
        self,
        llm: Any,
        tokens: list[int],
        cached: int,
        grammar: str | None,
        max_tokens: int,
        stop: list[str] | None,
        emit: Callable[[str], None],
        start: float,
    ) -> tuple[str, str, float | None, int]:
        """Greedy decoding with the grammar checked on the best token first.

        Applying a GBNF grammar to the whole vocabulary (150k tokens for Qwen2.5) at every
        step halves the decoding speed; like llama.cpp's own sampler, this checks only the
        most likely token and applies the grammar to all tokens when that one is rejected.
        Returns (text, finish reason, first-token ms, generated tokens).
        """
        import llama_cpp
        import numpy as np

        vocab = llm._model.vocab
        n_vocab = llm.n_vocab()
        reuse = min(cached, len(tokens) - 1)
        llm.n_tokens = reuse
        try:
            llm.eval(tokens[reuse:])
        except RuntimeError as exc:
            if self._abort.is_set():
                return "", "cancelled", None, 0
            raise ModelError(f"llama.cpp failed: {exc}") from exc
        sampler = None
        if grammar:
            sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
            if not sampler:
                raise ModelError("llama.cpp rejected the grammar")
        one = (llama_cpp.llama_token_data * 1)()
        one_array = llama_cpp.llama_token_data_array(one, 1, -1, False)
        every = np.zeros(
            n_vocab, dtype=[("id", np.int32), ("logit", np.float32), ("p", np.float32)]
        )
        every_array = llama_cpp.llama_token_data_array(
            every.ctypes.data_as(llama_cpp.llama_token_data_p), n_vocab, -1, False
        )
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = ""
        first: float | None = None
        reason = "length"
        generated = 0
        try:
            for _ in range(max_tokens):
                if self._abort.is_set():
                    reason = "cancelled"
                    break
                pointer = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
                logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,))
                token = int(np.argmax(logits))
                if sampler is not None:
                    one[0].id, one[0].logit, one[0].p = token, float(logits[token]), 0.0
                    one_array.size, one_array.selected, one_array.sorted = 1, -1, False
                    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(one_array))
                    if not math.isfinite(one[0].logit):
                        every["id"] = np.arange(n_vocab, dtype=np.int32)
                        every["logit"] = logits
                        every_array.size, every_array.selected = n_vocab, -1
                        every_array.sorted = False
                        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(every_array))
                        size = int(every_array.size)
                        best = int(np.argmax(every["logit"][:size]))
                        if not math.isfinite(float(every["logit"][best])):
                            reason = "stop"  # nothing the grammar admits
                            break
                        token = int(every["id"][best])
                    llama_cpp.llama_sampler_accept(sampler, token)
                generated += 1
                if first is None:
                    first = (time.perf_counter() - start) * 1000.0
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    reason = "stop"
                    break
                piece = decoder.decode(llm.detokenize([token]))
                if piece:
                    text += piece
                    hit = min((text.find(s) for s in stop or [] if s and s in text), default=-1)
                    if hit >= 0:
                        text = text[:hit]
                        reason = "stop"
                        break
                    emit(piece)
                llm.eval([token])
        except RuntimeError as exc:
            if not self._abort.is_set():
                raise ModelError(f"llama.cpp failed: {exc}") from exc
            reason = "cancelled"
        finally:
            if sampler is not None:
                llama_cpp.llama_sampler_free(sampler)
        return text, reason, first, generated

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
        """
        loop = asyncio.get_running_loop()
        prompt = render_chatml(messages)
        self._abort.clear()

        def emit(piece: str) -> None:
            if on_token is not None:
                loop.call_soon_threadsafe(on_token, piece)

        future = loop.run_in_executor(
            self._executor,
            self._generate,
            prompt,
            grammar,
            max_tokens or self.max_tokens,
            stop,
            emit,
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

    async def warm(self, messages: list[Message]) -> float:
        """Evaluate `messages` (e.g. the system prompt) into the KV cache; returns ms taken."""
        prompt = render_chatml(messages, add_generation_prompt=False)

        def run() -> float:
            start = time.perf_counter()
            llm = self._load_sync()
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            cached = self._cached_prefix(llm, tokens)
            if cached < len(tokens):
                llm.n_tokens = cached
                llm.eval(tokens[cached:])
            return (time.perf_counter() - start) * 1000.0

        return await asyncio.get_running_loop().run_in_executor(self._executor, run)
