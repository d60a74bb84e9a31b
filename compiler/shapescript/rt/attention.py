"""Fused attention in functions that take padding: the keys' padding mask joins SDPA's.

Compiled code calls `padded` for an attention pattern whose key axis can be padded. With
no mask (the call wasn't padded), or with padding turned off, it is the plain
`F.scaled_dot_product_attention`; otherwise the padded keys are left out as the masked
softmax leaves them out (`rt.padding.softmax`).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from shapescript.rt import padding


def padded(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    keys: torch.Tensor | None,
    *,
    attn_mask: torch.Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    """SDPA with the keys where `keys` (a bool tensor along the key axis) is False left
    out, on top of the causal, boolean or additive mask."""
    if keys is None or not padding.fixed_shapes_on():
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, is_causal=is_causal, scale=scale
        )
    keys = keys.reshape(1, -1)  # along the keys, for every query
    if is_causal:
        rows, columns = q.shape[-2], k.shape[-2]
        attn_mask = torch.ones(rows, columns, dtype=torch.bool, device=q.device).tril()
    if attn_mask is None:
        mask = keys
    elif attn_mask.dtype == torch.bool:
        mask = attn_mask & keys
    else:
        mask = attn_mask.masked_fill(~keys, -math.inf)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
