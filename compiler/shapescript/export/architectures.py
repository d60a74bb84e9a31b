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


def _rope(x, positions, base):
    """Rotary embeddings on neighbouring features, as llama.cpp's llama computes them."""
    dim = x.shape[-1]
    freq = base ** (-torch.arange(0, dim, 2, dtype=x.dtype) / dim)
    angle = positions.to(x.dtype)[:, None, :, None] * freq
    x1, x2 = x[..., 0::2], x[..., 1::2]
    turned = torch.stack((x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()))
    return turned.permute(1, 2, 3, 4, 0).reshape(x.shape)


def _rms(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def llama_logits(t: dict, s: Settings, ids, positions):
    x = t["token_embd.weight"][ids]
    for i in range(s.layers):
        p = f"blk.{i}."
        h = _rms(x, t[p + "attn_norm.weight"], s.eps)
        q = _rope(_heads(h @ t[p + "attn_q.weight"].T, s.heads), positions, s.rope_base)
        k = _rope(_heads(h @ t[p + "attn_k.weight"].T, s.kv_heads), positions, s.rope_base)
        v = _heads(h @ t[p + "attn_v.weight"].T, s.kv_heads)
        repeat = s.heads // s.kv_heads
        k, v = k.repeat_interleave(repeat, 1), v.repeat_interleave(repeat, 1)
        a = _attention(q, k, v).transpose(1, 2).reshape(x.shape)
        x = x + a @ t[p + "attn_output.weight"].T
        h = _rms(x, t[p + "ffn_norm.weight"], s.eps)
        gate = F.silu(h @ t[p + "ffn_gate.weight"].T) * (h @ t[p + "ffn_up.weight"].T)
        x = x + gate @ t[p + "ffn_down.weight"].T
    x = _rms(x, t["output_norm.weight"], s.eps)
    return x @ t.get("output.weight", t["token_embd.weight"]).T


def _gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def gpt2_logits(t: dict, s: Settings, ids, positions):
    x = t["token_embd.weight"][ids] + t["position_embd.weight"][positions]
    width = x.shape[-1]
    for i in range(s.layers):
        p = f"blk.{i}."
        h = F.layer_norm(x, (width,), t[p + "attn_norm.weight"], t[p + "attn_norm.bias"], s.eps)
        qkv = h @ t[p + "attn_qkv.weight"].T + t[p + "attn_qkv.bias"]
        q, k, v = (_heads(part, s.heads) for part in qkv.split(width, -1))
        a = _attention(q, k, v).transpose(1, 2).reshape(x.shape)
        x = x + a @ t[p + "attn_output.weight"].T + t[p + "attn_output.bias"]
        h = F.layer_norm(x, (width,), t[p + "ffn_norm.weight"], t[p + "ffn_norm.bias"], s.eps)
        up = _gelu_tanh(h @ t[p + "ffn_up.weight"].T + t[p + "ffn_up.bias"])
        x = x + up @ t[p + "ffn_down.weight"].T + t[p + "ffn_down.bias"]
    x = F.layer_norm(x, (width,), t["output_norm.weight"], t["output_norm.bias"], s.eps)
    return x @ t.get("output.weight", t["token_embd.weight"]).T


LOGITS = {"llama": llama_logits, "gpt2": gpt2_logits}
