"""Hostile programs: each class of deep or long input, generated at a chosen size.

Each function takes the depth or length `n` and returns the text of a whole file.
"""

from __future__ import annotations

import random
from collections.abc import Callable

DEPTH = 10_000


def nested_calls(n: int) -> str:
    return f"fn f(x: [n]) -> [n] = {'gelu(' * n}x{')' * n}\n"


def nested_parens(n: int) -> str:
    return f"fn f(x: [n]) -> [n] = {'(' * n}x{')' * n}\n"


def nested_parens_in_dim(n: int) -> str:
    return f"dim D = {'(' * n}4{')' * n}\n"


def nested_parens_in_shape(n: int) -> str:
    return f"fn f(x: [{'(' * n}n{')' * n}]) -> [n] = x\n"


def nested_blocks(n: int, keyword: str = "if") -> str:
    header = "if true:" if keyword == "if" else "for i in 0..2:"
    lines = ["fn f(x: [n]) -> [n]:"]
    lines += [f"{' ' * (level + 1)}{header}" for level in range(n)]
    lines.append(f"{' ' * (n + 1)}x")
    lines.append(" return x")
    return "\n".join(lines) + "\n"


def binary_chain(n: int, op: str = "+") -> str:
    return f"fn f(x: [n]) -> [n] = x{f' {op} x' * n}\n"


def unary_run(n: int, op: str = "-") -> str:
    if op == "!":
        return f"fn f(x: bool) -> bool = {'!' * n}x\n"
    return f"fn f(x: [n]) -> [n] = {'- ' * n}x\n"


def index_chain(n: int) -> str:
    return f"fn f(x: [n]) -> [n] = x{'[0]' * n}\n"


def member_chain(n: int) -> str:
    return f"model M:\n    w: [4]\n\nfn f(m: M) -> [4] = m{'.w' * n}\n"


def call_chain(n: int) -> str:
    return f"fn f(x: [n]) -> [n] = gelu{'(x)' * n}\n"


def cast_chain(n: int) -> str:
    return f"fn f(x: [n]) -> [n] = x{' as [n]' * n}\n"


def lambda_chain(n: int) -> str:
    return f"fn f(x: [n]) -> [n]:\n    g = {'a => ' * n}x\n    return x\n"


def dim_terms(n: int) -> str:
    return f"dim D = 1{' + 1' * n}\n"


def dims_in_reverse(n: int) -> str:
    lines = [f"dim D{i} = D{i + 1} + 1" for i in range(n)]
    lines.append(f"dim D{n} = 1")
    return "\n".join(lines) + "\n"


def dims_in_a_cycle(n: int) -> str:
    lines = [f"dim D{i} = D{(i + 1) % n}" for i in range(n)]
    return "\n".join(lines) + "\n"


def shape_size_chain(n: int) -> str:
    return f"fn f(x: [n{' + n' * n}]) -> [n] = x\n"


def long_integer(digits: int) -> str:
    return f"fn f() -> int = {'7' * digits}\n"


def long_integer_in_dim(digits: int) -> str:
    return f"dim D = {'7' * digits}\n"


def overflowing_product() -> str:
    return "fn f() -> int = 18446744073709551615 * 18446744073709551615\n"


def random_bytes(size: int, seed: int = 9) -> bytes:
    return random.Random(seed).randbytes(size)


DEEP: dict[str, Callable[[int], str]] = {
    "nested_calls": nested_calls,
    "nested_parens": nested_parens,
    "nested_parens_in_dim": nested_parens_in_dim,
    "nested_parens_in_shape": nested_parens_in_shape,
    "nested_if": lambda n: nested_blocks(n, "if"),
    "nested_for": lambda n: nested_blocks(n, "for"),
    "plus_chain": binary_chain,
    "times_chain": lambda n: binary_chain(n, "*"),
    "and_chain": lambda n: binary_chain(n, "and"),
    "minus_run": unary_run,
    "not_run": lambda n: unary_run(n, "!"),
    "index_chain": index_chain,
    "member_chain": member_chain,
    "call_chain": call_chain,
    "cast_chain": cast_chain,
    "lambda_chain": lambda_chain,
    "dim_terms": dim_terms,
    "dims_in_reverse": dims_in_reverse,
    "dims_in_a_cycle": dims_in_a_cycle,
    "shape_size_chain": shape_size_chain,
    "long_integer": long_integer,
    "long_integer_in_dim": long_integer_in_dim,
}


def aliases_in_reverse(n: int) -> str:
    lines = [f"dim A{i} = [A{i + 1}]" for i in range(n)]
    lines.append(f"dim A{n} = [n D]")
    lines.append("fn f(x: A0) -> A0 = x")
    return "\n".join(lines) + "\n"


def aliases_in_a_cycle(n: int) -> str:
    lines = [f"dim A{i} = [A{(i + 1) % n}]" for i in range(n)]
    return "\n".join(lines) + "\n"


def inferred_functions_in_reverse(n: int) -> str:
    lines = [f"fn f{i}(x: [n]) = f{i + 1}(x)" for i in range(n)]
    lines.append(f"fn f{n}(x: [n]) = x")
    return "\n".join(lines) + "\n"


def inferred_functions_in_a_cycle(n: int) -> str:
    lines = [f"fn f{i}(x: [n]) = f{(i + 1) % n}(x)" for i in range(n)]
    return "\n".join(lines) + "\n"


CROSS_ITEM: dict[str, Callable[[int], str]] = {
    "dims_in_reverse": dims_in_reverse,
    "dims_in_a_cycle": dims_in_a_cycle,
    "aliases_in_reverse": aliases_in_reverse,
    "aliases_in_a_cycle": aliases_in_a_cycle,
    "inferred_functions_in_reverse": inferred_functions_in_reverse,
    "inferred_functions_in_a_cycle": inferred_functions_in_a_cycle,
}
DEEP.update(CROSS_ITEM)


def nested_math(n: int) -> str:
    return f"## The size ${'{' * n}x{'}' * n}$ of it.\ndim D = 4\n"


def nested_math_fractions(n: int) -> str:
    fraction = "\\frac{1}{"
    return f"## The size ${fraction * n}x{'}' * n}$ of it.\ndim D = 4\n"


DEEP["nested_math"] = nested_math
DEEP["nested_math_fractions"] = nested_math_fractions


def unclosed_calls(n: int) -> str:
    return f"fn f(x: [n]) -> [n] = {'gelu(' * n}x\n"


def typed_functions_in_reverse(n: int) -> str:
    lines = [f"fn f{i}(x: [n]) -> [n] = f{i + 1}(x) * 2.0" for i in range(n)]
    lines.append(f"fn f{n}(x: [n]) -> [n] = sigmoid(x)")
    lines.append("fn g(x: [n]) -> [n] Unit = f0(x)")
    return "\n".join(lines) + "\n"


DEEP["typed_functions_in_reverse"] = typed_functions_in_reverse


def effects_through_functions(n: int) -> str:
    lines = [f"fn f{i}(x: [n]) -> [n] = f{i + 1}(x)" for i in range(n)]
    lines.append(f"fn f{n}(x: [n]) -> [n] = x")
    lines.append("fn g(x: [k n]) -> [k n] = x |> map(v => f0(v), over=k)")
    return "\n".join(lines) + "\n"


DEEP["effects_through_functions"] = effects_through_functions


# Chains of functions for the padding analysis, which follows each call into its callee:
# an axis given to the next function (blocked at the end, or masked there), shapeless
# functions calling each other, a step's work through a chain of calls, and a callee
# named by a long member chain.


def padding_chain_blocked(n: int) -> str:
    lines = [f"fn f{i}(x: [n]) -> [n] = f{i + 1}(x)" for i in range(n)]
    lines.append(f"fn f{n}(x: [n]) -> [n] = sort(x, over=n)")
    return "\n".join(lines) + "\n"


def padding_chain_masked(n: int) -> str:
    lines = [f"fn f{i}(x: [n]) -> [] = f{i + 1}(x)" for i in range(n)]
    lines.append(f"fn f{n}(x: [n]) -> [] = sum(x, over=n)")
    return "\n".join(lines) + "\n"


def padding_chain_elementwise(n: int) -> str:
    lines = ["fn f(x: [n]) -> [n] = g0(x)"]
    lines += [f"fn g{i}(x: Real) -> Real = g{i + 1}(x)" for i in range(n)]
    lines.append(f"fn g{n}(x: Real) -> Real = relu(x)")
    return "\n".join(lines) + "\n"


def padding_chain_step(n: int) -> str:
    lines = [
        "model M:",
        "    param w: [4] = zeros",
        "",
        "fn step(mut m: M, mut opt: SGD[M], x: [4]):",
        "    l, g = value_and_grad(f0, m, x)",
        "    update(mut m, mut opt, g)",
        "",
    ]
    lines += [f"fn f{i}(m: M, x: [4]) -> [] = f{i + 1}(m, x)" for i in range(n)]
    lines += [f"fn f{n}(m: M, x: [4]) -> []:", "    print(x)", "    return sum(x * m.w)"]
    return "\n".join(lines) + "\n"


def padding_member_callee(n: int) -> str:
    return f"import python torch\n\nfn f(x: [n]) = x |> torch{'.a' * n}\n"


PADDING_CHAINS: dict[str, Callable[[int], str]] = {
    "padding_chain_blocked": padding_chain_blocked,
    "padding_chain_masked": padding_chain_masked,
    "padding_chain_elementwise": padding_chain_elementwise,
    "padding_chain_step": padding_chain_step,
    "padding_member_callee": padding_member_callee,
}
