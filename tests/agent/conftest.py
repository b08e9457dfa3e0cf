"""Fixtures for the agent tests: a tiny random-weight Qwen2 GGUF written at test time.

The tokenizer comes from ``ggml-vocab-qwen2.gguf``, the vocab-only GGUF inside the
llama-cpp-python sdist (path in ``XIAOTING_LLAMA_SDIST``), so the real llama.cpp code path
(tokenizer, grammar sampler, KV cache) runs in seconds without real weights.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import numpy as np
import pytest

SDIST = Path(
    os.environ.get(
        "XIAOTING_LLAMA_SDIST",
        "/root/.cache/xiaoting/wheels/sdist/llama_cpp_python-0.3.36.tar.gz",
    )
)
VOCAB_MEMBER = "vendor/llama.cpp/models/ggml-vocab-qwen2.gguf"


def require_models() -> bool:
    """True under CI (``XIAOTING_REQUIRE_MODELS=1``), where a missing file is a failure."""
    return os.environ.get("XIAOTING_REQUIRE_MODELS", "") not in ("", "0")


def _extract_vocab(directory: Path) -> Path:
    with tarfile.open(SDIST) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith(VOCAB_MEMBER))
        source = archive.extractfile(member)
        assert source is not None
        target = directory / "ggml-vocab-qwen2.gguf"
        target.write_bytes(source.read())
    return target


def write_tiny_qwen2(vocab_path: Path, target: Path, *, n_embd: int = 32, n_layer: int = 1) -> Path:
    """Write a random-weight Qwen2 GGUF with the tokenizer of `vocab_path` to `target`."""
    import gguf

    reader = gguf.GGUFReader(str(vocab_path))
    writer = gguf.GGUFWriter(str(target), "qwen2")
    n_head, n_head_kv, n_ff = 4, 2, 64
    n_vocab = len(reader.fields["tokenizer.ggml.tokens"].contents())
    writer.add_context_length(4096)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head_kv)
    writer.add_rope_freq_base(1_000_000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(0)
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        sub_type = field.types[1] if len(field.types) > 1 else None
        writer.add_key_value(key, field.contents(), field.types[0], sub_type)
    rng = np.random.default_rng(7)

    def rand(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    n_kv = n_embd // n_head * n_head_kv
    writer.add_tensor("token_embd.weight", rand(n_vocab, n_embd))
    writer.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    for i in range(n_layer):
        p = f"blk.{i}."
        writer.add_tensor(p + "attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(p + "attn_q.weight", rand(n_embd, n_embd))
        writer.add_tensor(p + "attn_q.bias", rand(n_embd))
        writer.add_tensor(p + "attn_k.weight", rand(n_kv, n_embd))
        writer.add_tensor(p + "attn_k.bias", rand(n_kv))
        writer.add_tensor(p + "attn_v.weight", rand(n_kv, n_embd))
        writer.add_tensor(p + "attn_v.bias", rand(n_kv))
        writer.add_tensor(p + "attn_output.weight", rand(n_embd, n_embd))
        writer.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(p + "ffn_gate.weight", rand(n_ff, n_embd))
        writer.add_tensor(p + "ffn_up.weight", rand(n_ff, n_embd))
        writer.add_tensor(p + "ffn_down.weight", rand(n_embd, n_ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target


@pytest.fixture(scope="session")
def vocab_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The vocab-only Qwen2 GGUF extracted from the llama-cpp-python sdist."""
    pytest.importorskip("llama_cpp")
    if not SDIST.exists():
        message = f"llama-cpp-python sdist not found at {SDIST} (set XIAOTING_LLAMA_SDIST)"
        if require_models():
            pytest.fail(message)
        pytest.skip(message)
    return _extract_vocab(tmp_path_factory.mktemp("vocab"))


@pytest.fixture(scope="session")
def tiny_gguf(vocab_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random-weight Qwen2 GGUF (about 20 MB) with the real Qwen2 tokenizer."""
    return write_tiny_qwen2(vocab_gguf, tmp_path_factory.mktemp("tiny") / "tiny-qwen2.gguf")
