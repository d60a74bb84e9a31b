"""Warm the checker up while the client waits for `initialize`, not for its first diagnostics.

A process's first check pays for more than the file: the prelude (read from the user
cache, or built), the first use of each syntax and type class (whose methods are
compiled then) and the regular expressions of the math in comments. Checking a short
program that uses the common constructs pays those before any document is open.
"""

from __future__ import annotations

import logging
import traceback

from shapescript.check.checker import check_text
from shapescript_lsp.features.diagnostics import publishable

log = logging.getLogger("shapescript_lsp")

SAMPLE = """\
## Width. $D = 8$
dim D = 8
dim H = 2
dim Dh = D / H

data Pair:
    x: [D]
    label: [] Index[D]

model Layer:
    param w: [D 3*D] = normal(std=0.02)
    param b: [D] = zeros

fn attend(x: [b n D], w: [D 3*D]) -> [b n D]:
    q, k, v = x @ w |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))

fn score(layer: Layer, batch: [b] Pair, mode: Mode) -> [] NonNeg:
    h = relu(batch.x + layer.b) |> dropout(0.1, mode)
    total = sum(h, over=D) + 1.0
    return cross_entropy(h, batch.label, over=D) * mean(sigmoid(total))

fn broken(x: [n]) -> [m] = x + missing
"""


def warm_up() -> None:
    """Check the sample program once; a failure here is logged and otherwise ignored."""
    try:
        publishable(check_text(SAMPLE, "<warm-up>"), "untitled:warm-up")
    except Exception:
        log.error("warming up failed:\n%s", traceback.format_exc())
