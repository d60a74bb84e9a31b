"""llama.cpp's llama and gpt2 as it computes them, in torch, on GGUF-named tensors.

`--gguf` computes these and the source on the same random weights, in f64, to find which
architecture the source is and which field is which tensor.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from shapescript.records import field, record


@record
class Settings:
    """An architecture's numbers: heads, key and value heads, norm eps, rotary base."""

    layers: int
    heads: int
    kv_heads: int
    eps: float
    rope_base: float = 10000.0
    extra: dict = field(default_factory=dict)


#: Each architecture's tensors: (name, per block, kind); kind says which shape it has.
LLAMA = [
    ("token_embd.weight", False, "embed"),
    ("attn_norm.weight", True, "vector"),
    ("attn_q.weight", True, "square"),
    ("attn_k.weight", True, "kv"),
    ("attn_v.weight", True, "kv"),
    ("attn_output.weight", True, "square"),
    ("ffn_norm.weight", True, "vector"),
    ("ffn_gate.weight", True, "up"),
    ("ffn_up.weight", True, "up"),
    ("ffn_down.weight", True, "down"),
    ("output_norm.weight", False, "vector"),
    ("output.weight", False, "embed"),
]

GPT2 = [
    ("token_embd.weight", False, "embed"),
    ("position_embd.weight", False, "positions"),
    ("attn_norm.weight", True, "vector"),
    ("attn_norm.bias", True, "vector"),
    ("attn_qkv.weight", True, "qkv"),
    ("attn_qkv.bias", True, "qkv_bias"),
    ("attn_output.weight", True, "square"),
    ("attn_output.bias", True, "vector"),
    ("ffn_norm.weight", True, "vector"),
    ("ffn_norm.bias", True, "vector"),
    ("ffn_up.weight", True, "up"),
    ("ffn_up.bias", True, "up_bias"),
    ("ffn_down.weight", True, "down"),
    ("ffn_down.bias", True, "vector"),
    ("output_norm.weight", False, "vector"),
    ("output_norm.bias", False, "vector"),
]

ARCHITECTURES = {"llama": LLAMA, "gpt2": GPT2}


def _attention(q, k, v):
    """Causal attention of [b h n d] queries, keys and values, scaled by 1/sqrt(d)."""
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _heads(x, heads):
    b, n, width = x.shape
    return x.reshape(b, n, heads, width // heads).transpose(1, 2)


def _rope(x, positions, base, layout="pairs"):
    """Rotary embeddings on neighbouring features, as llama.cpp's llama computes them
    (`layout="halves"`: on the first and second halves, as GPT-NeoX does, for naming why a
    source isn't llama)."""
    dim = x.shape[-1]
    freq = base ** (-torch.arange(0, dim, 2, dtype=x.dtype) / dim)
    angle = positions.to(x.dtype)[:, None, :, None] * freq
    if layout == "halves":
        x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
        return torch.cat(
            (x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()), -1
        )
    x1, x2 = x[..., 0::2], x[..., 1::2]
    turned = torch.stack((x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()))
    return turned.permute(1, 2, 3, 4, 0).reshape(x.shape)


def _rms(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def _norm(kind: str, x, weight, bias, eps):
    """The architecture's norm, or the other kind (layer norm without a bias for llama,
    RMS norm for gpt2), which `Settings.extra["norm"]` picks to name a cause."""
    if kind == "rms":
        return _rms(x, weight, eps) + (bias if bias is not None else 0)
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def _activation(kind: str, x):
    return {"silu": F.silu, "gelu": F.gelu, "gelu_tanh": _gelu_tanh, "relu": F.relu}[kind](x)


#: The differences from each architecture a refusal can name: (what, the source's
#: computation written as `Settings.extra`, the sentence that names it).
VARIANTS = {
    "llama": [
        (
            {"activation": "gelu"},
            "the feed-forward's gate is exact GELU, and llama.cpp's llama gates with SiLU",
        ),
        (
            {"activation": "gelu_tanh"},
            "the feed-forward's gate is GELU (tanh), and llama.cpp's llama gates with SiLU",
        ),
        (
            {"norm": "layer"},
            "the norms are layer norms, and llama.cpp's llama uses RMS norms",
        ),
        (
            {"rope": "halves"},
            "the rotary embeddings turn the halves of each head (GPT-NeoX's layout), and "
            "llama.cpp's llama turns neighbouring features",
        ),
    ],
    "gpt2": [
        (
            {"activation": "gelu"},
            "the feed-forward's activation is exact GELU (`gelu`), and llama.cpp's gpt2 "
            "uses GELU's tanh approximation (`gelu_tanh`)",
        ),
        (
            {"activation": "relu"},
            "the feed-forward's activation is ReLU, and llama.cpp's gpt2 uses GELU's tanh "
            "approximation (`gelu_tanh`)",
        ),
        (
            {"norm": "rms"},
            "the norms are RMS norms, and llama.cpp's gpt2 uses layer norms",
        ),
        (
            {"qkv": "heads"},
            "the fused query, key and value projection is laid out per head "
            "(`(H 3 Dh)`), and llama.cpp's gpt2 reads it as `(3 H Dh)`",
        ),
    ],
}


def llama_logits(t: dict, s: Settings, ids, positions):
    norm = s.extra.get("norm", "rms")
    activation = s.extra.get("activation", "silu")
    layout = s.extra.get("rope", "pairs")
    x = t["token_embd.weight"][ids]
    for i in range(s.layers):
        p = f"blk.{i}."
        h = _norm(norm, x, t[p + "attn_norm.weight"], None, s.eps)
        q = _heads(h @ t[p + "attn_q.weight"].T, s.heads)
        k = _heads(h @ t[p + "attn_k.weight"].T, s.kv_heads)
        q = _rope(q, positions, s.rope_base, layout)
        k = _rope(k, positions, s.rope_base, layout)
        v = _heads(h @ t[p + "attn_v.weight"].T, s.kv_heads)
        repeat = s.heads // s.kv_heads
        k, v = k.repeat_interleave(repeat, 1), v.repeat_interleave(repeat, 1)
        a = _attention(q, k, v).transpose(1, 2).reshape(x.shape)
        x = x + a @ t[p + "attn_output.weight"].T
        h = _norm(norm, x, t[p + "ffn_norm.weight"], None, s.eps)
        gate = _activation(activation, h @ t[p + "ffn_gate.weight"].T)
        x = x + (gate * (h @ t[p + "ffn_up.weight"].T)) @ t[p + "ffn_down.weight"].T
    x = _norm(norm, x, t["output_norm.weight"], None, s.eps)
    return x @ t.get("output.weight", t["token_embd.weight"]).T


def _gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _split_qkv(qkv, heads: int, layout: str):
    """Queries, keys and values of a fused projection: `(3 H Dh)` as llama.cpp's gpt2
    reads it, or `(H 3 Dh)` (per head) to name that cause."""
    if layout == "heads":
        b, n, width = qkv.shape
        parts = qkv.reshape(b, n, heads, 3, width // (3 * heads)).permute(3, 0, 2, 1, 4)
        return parts[0], parts[1], parts[2]
    width = qkv.shape[-1] // 3
    return tuple(_heads(part, heads) for part in qkv.split(width, -1))


def gpt2_logits(t: dict, s: Settings, ids, positions):
    norm = s.extra.get("norm", "layer")
    activation = s.extra.get("activation", "gelu_tanh")
    layout = s.extra.get("qkv", "fused")
    x = t["token_embd.weight"][ids] + t["position_embd.weight"][positions]
    for i in range(s.layers):
        p = f"blk.{i}."
        h = _norm(norm, x, t[p + "attn_norm.weight"], t[p + "attn_norm.bias"], s.eps)
        qkv = h @ t[p + "attn_qkv.weight"].T + t[p + "attn_qkv.bias"]
        q, k, v = _split_qkv(qkv, s.heads, layout)
        a = _attention(q, k, v).transpose(1, 2).reshape(x.shape)
        x = x + a @ t[p + "attn_output.weight"].T + t[p + "attn_output.bias"]
        h = _norm(norm, x, t[p + "ffn_norm.weight"], t[p + "ffn_norm.bias"], s.eps)
        up = _activation(activation, h @ t[p + "ffn_up.weight"].T + t[p + "ffn_up.bias"])
        x = x + up @ t[p + "ffn_down.weight"].T + t[p + "ffn_down.bias"]
    x = _norm(norm, x, t["output_norm.weight"], t["output_norm.bias"], s.eps)
    return x @ t.get("output.weight", t["token_embd.weight"]).T


LOGITS = {"llama": llama_logits, "gpt2": gpt2_logits}
