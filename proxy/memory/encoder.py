"""A sentence-embedding model run in numpy: BERT-family sentence-transformers models, no torch.

all-MiniLM-L6-v2 (6 layers, 384 wide, 22M parameters) is what ``memory.embeddings.model`` is measured with.
Its forward pass is a few matrix products per layer, so numpy runs it as fast as torch does on a CPU, and the
proxy's extra stays small: numpy, tokenizers and safetensors (``pip install -e '.[embeddings]'``),
where sentence-transformers would bring torch. Any model saved in the sentence-transformers layout with a BERT
encoder (``config.json``, ``model.safetensors``, ``tokenizer.json``, mean or CLS pooling) loads.

Only :mod:`proxy.memory.embeddings` imports this module, and only when embeddings are on.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

BATCH = 32
MAX_TOKENS = 256  # when the model does not say (sentence_bert_config.json)
Array = np.ndarray[Any, Any]


class EncoderError(Exception):
    """The model directory is not one this encoder can run."""


class SentenceEncoder:
    def __init__(self, directory: str | Path) -> None:
        # One BLAS thread: a proxy's worker threads run the model beside requests on few cores, where BLAS's own
        # threads only wait for each other (a query took 30-300 ms with two, 8 ms with one, on a busy 2-core box).
        threadpool_limits(1, user_api="blas")
        root = Path(directory)
        try:
            config = json.loads((root / "config.json").read_text())
            weights = load_file(str(root / "model.safetensors"))
            self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        except (OSError, ValueError) as exc:
            raise EncoderError(f"{root}: not a sentence-transformers model directory ({exc})") from exc
        if config.get("model_type") not in ("bert", None) or config.get("hidden_act", "gelu") != "gelu":
            raise EncoderError(f"{root}: a {config.get('model_type')} model; only BERT encoders run here")
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.cls_pooling = _pooling(root) == "cls"
        max_tokens = _json(root / "sentence_bert_config.json").get("max_seq_length") or MAX_TOKENS
        self.tokenizer.enable_truncation(max_length=min(int(max_tokens), int(config["max_position_embeddings"])))
        self.tokenizer.no_padding()
        w = {name.removeprefix("bert."): value.astype(np.float32) for name, value in weights.items()}
        try:
            self.words = w["embeddings.word_embeddings.weight"]
            self.positions = w["embeddings.position_embeddings.weight"]
            self.types = w["embeddings.token_type_embeddings.weight"]
            self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
            self.layers = [_layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))]
        except KeyError as exc:
            raise EncoderError(f"{root}: model.safetensors has no {exc}: not a BERT encoder") from exc
        self.dimensions = int(self.words.shape[1])

    def encode(self, texts: list[str]) -> Array:
        """Unit-length float32 vectors, one row per text; similar lengths are batched together."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.float32)
            for row, i in enumerate(rows):
                ids[row, : len(encodings[i].ids)] = encodings[i].ids
                mask[row, : len(encodings[i].ids)] = 1.0
            out[rows] = self._forward(ids, mask)
        return out

    def _forward(self, ids: Array, mask: Array) -> Array:
        batch, width = ids.shape
        x = (self.words[ids] + self.positions[:width] + self.types[0]).reshape(batch * width, -1)
        x = _layer_norm(x, *self.norm, self.eps)
        hidden = x.shape[-1]
        size = hidden // self.heads
        padding = ((1.0 - mask) * -1e9)[:, None, None, :]  # no attention to padding
        scale = np.float32(1 / math.sqrt(size))
        for layer in self.layers:
            heads = (x @ layer.qkv + layer.qkv_bias).reshape(batch, width, 3, self.heads, size).transpose(2, 0, 3, 1, 4)
            q, k, v = heads[0], heads[1], heads[2]  # (batch, heads, width, size) each
            scores = (q * scale) @ k.transpose(0, 1, 3, 2) + padding
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * width, hidden)
            x = _layer_norm(x + context @ layer.out + layer.out_bias, *layer.norm1, self.eps)
            x = _layer_norm(
                x + _gelu(x @ layer.up + layer.up_bias) @ layer.down + layer.down_bias, *layer.norm2, self.eps
            )
        x = x.reshape(batch, width, hidden)
        if self.cls_pooling:
            pooled = x[:, 0]
        else:
            pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer's weights, transposed once for ``x @ W``, with Q, K and V side by side."""

    qkv: Array
    qkv_bias: Array
    out: Array
    out_bias: Array
    norm1: tuple[Array, Array]
    up: Array
    up_bias: Array
    down: Array
    down_bias: Array
    norm2: tuple[Array, Array]


def _layer(w: dict[str, Array], p: str) -> _Layer:
    attention = p + "attention.self."
    qkv = np.concatenate([w[f"{attention}{n}.weight"].T for n in ("query", "key", "value")], axis=1)
    return _Layer(
        qkv=np.ascontiguousarray(qkv),
        qkv_bias=np.concatenate([w[f"{attention}{n}.bias"] for n in ("query", "key", "value")]),
        out=np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
        out_bias=w[p + "attention.output.dense.bias"],
        norm1=(w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
        up=np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
        up_bias=w[p + "intermediate.dense.bias"],
        down=np.ascontiguousarray(w[p + "output.dense.weight"].T),
        down_bias=w[p + "output.dense.bias"],
        norm2=(w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
    )


def _layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(variance + eps) * weight + bias


def _gelu(x: Array) -> Array:
    """BERT's exact GELU, x * Phi(x), with erf from Abramowitz and Stegun 7.1.26 (error under 1.5e-7)."""
    z = np.abs(x) * (1 / math.sqrt(2))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * x * (1.0 + np.sign(x) * erf)


def _pooling(root: Path) -> str:
    config = _json(root / "1_Pooling" / "config.json")
    return "cls" if config.get("pooling_mode_cls_token") else "mean"


def _json(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}
