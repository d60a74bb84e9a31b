"""The PyTorch that benchmarks/vs_torch.py measures ShapeScript against, written by hand twice.

Naive is what a beginner writes from torch's tensor operations, without torch.nn.functional:
`x @ w + b` with weights stored `[in out]`, `q @ k.transpose(-1, -2)`, `masked_fill` with a
causal mask made once (as nanoGPT's registered buffer), `torch.softmax`, `@ v`; layer norm from
`mean` and `var`, gelu from `torch.erf`, cross-entropy from `log_softmax` and `gather`,
embedding by indexing; `loss.backward()` and `torch.optim.AdamW` with its CPU default (one
tensor at a time).

Expert is what someone who knows PyTorch's fast paths writes: weights stored `[out in]` for
`F.linear`, `F.scaled_dot_product_attention(is_causal=True)`, `F.layer_norm`, `F.gelu`,
`F.embedding`, `F.cross_entropy`, `loss.backward()` and `torch.optim.AdamW(fused=True)`
(`foreach=True` where this torch has no fused CPU AdamW).

Each side's params are a dict of leaf tensors named as the ShapeScript program's fields; a
GPT's blocks, held models `h.l.name` in ShapeScript (`h: [L] Block`, an `nn.ModuleList`), are
`name.l` here.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

Params = dict[str, torch.Tensor]

#: The matrices each side multiplies by: stored `[in out]` by naive, `[out in]` by expert.
LINEAR_WEIGHTS = frozenset({"w1", "w2", "w_qkv", "w_o", "w_fc", "w_proj"})
HEAD = 64
EPS = 1e-5


def hand_params(state: Params, *, transposed: bool) -> Params:
    """Leaf copies of a ShapeScript model's params for a hand-written side: a held block's
    `h.l.name` as `name.l`, and linear weights `[out in]` when `transposed`."""
    params: Params = {}
    for key, value in state.items():
        name, block = _hand_name(key)
        if transposed and name in LINEAR_WEIGHTS:
            value = value.t()
        hand_key = f"{name}.{block}" if block is not None else name
        params[hand_key] = value.detach().clone().contiguous().requires_grad_(True)
    return params


def _hand_name(key: str) -> tuple[str, int | None]:
    """A state-dict key's field name and block number: `h.1.w_o` is (`w_o`, 1)."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "h":
        return parts[2], int(parts[1])
    return key, None


def as_written(values: Params, *, transposed: bool) -> Params:
    """Values named and laid out as the hand-written params are, back in the ShapeScript
    program's names and layout: `name.l` as `h.l.name`, linear weights `[in out]`."""
    result: Params = {}
    for key, value in values.items():
        name, _, block = key.partition(".")
        value = value.t() if transposed and name in LINEAR_WEIGHTS else value
        result[f"h.{block}.{name}" if block else name] = value
    return result


def causal_mask(n: int) -> torch.Tensor:
    return torch.ones(n, n, dtype=torch.bool).tril()


def _heads(qkv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """q, k and v as `[b H n Dh]` from the fused projection `[b n 3D]`."""
    b, n, three_d = qkv.shape
    width = three_d // 3
    q, k, v = qkv.split(width, dim=-1)
    return tuple(t.view(b, n, width // HEAD, HEAD).transpose(1, 2) for t in (q, k, v))


def _merge(y: torch.Tensor) -> torch.Tensor:
    b, heads, n, dh = y.shape
    return y.transpose(1, 2).contiguous().view(b, n, heads * dh)


# Naive.


def naive_attention(x, w_qkv, w_o, mask):
    q, k, v = _heads(x @ w_qkv)
    att = (q @ k.transpose(-1, -2)) / math.sqrt(HEAD)
    n = x.shape[1]
    att = att.masked_fill(~mask[:n, :n], float("-inf"))
    att = torch.softmax(att, dim=-1)
    return _merge(att @ v) @ w_o


def naive_layer_norm(x, weight, bias):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + EPS) * weight + bias


def naive_gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def naive_mlp(p: Params, x):
    return naive_gelu(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def naive_block(p: Params, x, mask, suffix: str = ""):
    def at(name: str) -> torch.Tensor:
        return p[name + suffix]

    h = naive_layer_norm(x, at("ln1_w"), at("ln1_b"))
    x = x + naive_attention(h, at("w_qkv"), at("w_o"), mask)
    h = naive_gelu(naive_layer_norm(x, at("ln2_w"), at("ln2_b")) @ at("w_fc") + at("b_fc"))
    return x + h @ at("w_proj") + at("b_proj")


def naive_gpt_loss(p: Params, ids, targets, mask, layers: int):
    n = ids.shape[1]
    x = p["wte"][ids] + p["wpe"][:n]
    for layer in range(layers):
        x = naive_block(p, x, mask, f".{layer}")
    logits = naive_layer_norm(x, p["lnf_w"], p["lnf_b"]) @ p["wte"].t()
    picked = torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1))
    return -picked.mean()


# Expert.


def expert_attention(x, w_qkv, w_o):
    q, k, v = _heads(F.linear(x, w_qkv))
    return F.linear(_merge(F.scaled_dot_product_attention(q, k, v, is_causal=True)), w_o)


def expert_mlp(p: Params, x):
    return F.linear(F.gelu(F.linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])


def expert_block(p: Params, x, suffix: str = ""):
    def at(name: str) -> torch.Tensor:
        return p[name + suffix]

    width = x.shape[-1]
    h = F.layer_norm(x, (width,), at("ln1_w"), at("ln1_b"), EPS)
    x = x + expert_attention(h, at("w_qkv"), at("w_o"))
    h = F.layer_norm(x, (width,), at("ln2_w"), at("ln2_b"), EPS)
    return x + F.linear(F.gelu(F.linear(h, at("w_fc"), at("b_fc"))), at("w_proj"), at("b_proj"))


def expert_gpt_loss(p: Params, ids, targets, layers: int):
    n = ids.shape[1]
    x = F.embedding(ids, p["wte"]) + p["wpe"][:n]
    for layer in range(layers):
        x = expert_block(p, x, f".{layer}")
    width = x.shape[-1]
    logits = F.linear(F.layer_norm(x, (width,), p["lnf_w"], p["lnf_b"], EPS), p["wte"])
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))


# Backward and training steps, the same for both sides.


def grads_of(loss: Callable[[], torch.Tensor], params: Params) -> Params:
    """`loss().backward()` from cleared grads, as a training loop does, and the grads."""
    for value in params.values():
        value.grad = None
    loss().backward()
    return {name: value.grad for name, value in params.items()}


def adamw(params: Params, lr: float, *, expert: bool) -> torch.optim.AdamW:
    """PyTorch's AdamW with its defaults: fused (or multi-tensor) for the expert side."""
    values = list(params.values())
    if not expert:
        return torch.optim.AdamW(values, lr=lr)
    try:
        opt = torch.optim.AdamW(values, lr=lr, fused=True)
    except (RuntimeError, ValueError):
        return torch.optim.AdamW(values, lr=lr, foreach=True)
    return opt


def train_step(loss: Callable[[], torch.Tensor], opt: torch.optim.Optimizer) -> torch.Tensor:
    """One step: clear the grads, the loss's backward pass, the optimizer's step; the loss."""
    opt.zero_grad(set_to_none=True)
    value = loss()
    value.backward()
    opt.step()
    return value.detach()
