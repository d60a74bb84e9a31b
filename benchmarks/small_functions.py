"""Programs made of many small functions, for measuring what the checker keeps per function.

`small_functions_program(size, seed)` writes about `size` characters of ShapeScript: a few
dims, then functions of one to four lines, each with one to three tensor parameters, that
add, scale, normalise, contract and rearrange their arguments; about a third of them call
an earlier function of one parameter. The same seed always gives the same text, and the
program checks without diagnostics.

    python -m benchmarks.small_functions [SIZE] [SEED]   # prints a program
"""

from __future__ import annotations

import random
import sys

HEADER = [
    "# Many small functions, made by benchmarks/small_functions.py.",
    "dim D = 64",
    "dim H = 4",
    "dim Dh = D / H",
    "dim F = 4 * D",
    "",
]


def _function(index: int, rng: random.Random, callable_: list[int]) -> list[str]:
    """One function `f<index>` of a few lines; it may call one of `callable_`, the
    functions of one `[b n D]` parameter so far, and adds itself there if it is one."""
    name = f"f{index}"
    kind = rng.randrange(6)
    calls = callable_ and rng.random() < 0.35
    callee = f"f{rng.choice(callable_)}" if calls else None
    if kind == 0:
        body = f"{callee}(x) * 2.0 + 1.0" if callee else "x * 2.0 + 1.0"
        callable_.append(index)
        return [f"fn {name}(x: [b n D]) -> [b n D] = {body}"]
    if kind == 1:
        start = f"{callee}(x)" if callee else "x"
        return [
            f"fn {name}(x: [b n D], y: [b n D]) -> [b n D]:",
            f"    s = {start} + y",
            "    return s * 0.5",
        ]
    if kind == 2:
        return [
            f"fn {name}(x: [b n D], w: [D F]) -> [b n F]:",
            "    h = x @ w",
            "    return relu(h)",
        ]
    if kind == 3:
        start = f"{callee}(x)" if callee else "x"
        return [
            f"fn {name}(x: [b n D], g: [D], c: [D]) -> [b n D]:",
            f"    m = {start} - mean(x, over=D)",
            "    v = mean(m * m, over=D)",
            "    return m / (sqrt(v) + 1.0) * g + c",
        ]
    if kind == 4:
        return [
            f"fn {name}(q: [b n D], k: [b m D]) -> [b n m]:",
            "    return einsum(q, k: b n D, b m D -> b n m) / sqrt(64.0) |> softmax(over=m)",
        ]
    return [
        f"fn {name}(x: [b n D]) -> [b n H Dh]:",
        "    return x |> rearrange(b n (H Dh) -> b n H Dh)",
    ]


def small_functions_program(size: int = 1_000_000, seed: int = 0) -> str:
    """A program of about `size` characters made of small functions."""
    rng = random.Random(seed)
    lines = list(HEADER)
    length = sum(len(line) + 1 for line in lines)
    callable_: list[int] = []
    index = 0
    while length < size:
        for line in [*_function(index, rng, callable_), ""]:
            lines.append(line)
            length += len(line) + 1
        index += 1
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    size = int(argv[0]) if argv else 1_000_000
    seed = int(argv[1]) if len(argv) > 1 else 0
    sys.stdout.write(small_functions_program(size, seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
