"""Random small programs, seeded: name broadcasting, the same in an elementwise chain
stage, and rearrange as views, each against a reference written with einops."""

from __future__ import annotations

import operator
import random

import einops
import pytest
import torch

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from tests.codegen.compiled import load

SIZES = {"a": 2, "b": 3, "c": 4, "d": 5, "e": 6, "n": 7}
TRIALS = 40
OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def shape(names: list[str]) -> str:
    return "[" + " ".join(names) + "] f64"


def tensor(names: list[str]) -> torch.Tensor:
    return torch.randn([SIZES[name] for name in names], dtype=torch.float64)


def lift(value: torch.Tensor, names: list[str], result: list[str]) -> torch.Tensor:
    """An operand with size-1 axes for the result's other names, in the result's order."""
    names = list(names)
    for name in result:
        if name not in names:
            value, names = value.unsqueeze(-1), [*names, name]
    if not names:
        return value
    return einops.rearrange(value, f"{' '.join(names)} -> {' '.join(result)}")


def checks(text: str) -> bool:
    return not check(SourceFile.from_text("random.ss", text)).errors


def operands(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """Two operands' axis names, one's within the other's, and the result's by the order
    rule (the left operand's order when both have the same names)."""
    big = rng.sample(["a", "b", "c", "d"], rng.randint(1, 4))
    small = rng.sample(big, rng.randint(0, len(big)))
    left, right = (big, small) if rng.random() < 0.5 else (small, big)
    return left, right, left if set(left) == set(right) else big


@pytest.mark.parametrize("seed", range(TRIALS))
def test_broadcasting_by_name(seed: int) -> None:
    rng = random.Random(seed)
    left, right, result = operands(rng)
    op = rng.choice("+-*")
    text = f"fn f(x: {shape(left)}, y: {shape(right)}) -> {shape(result)} = x {op} y\n"
    assert checks(text), text
    x, y = tensor(left), tensor(right)
    expected = OPERATORS[op](lift(x, left, result), lift(y, right, result))
    torch.testing.assert_close(load(text, f"random{seed}.ss").f(x, y), expected, msg=text)


@pytest.mark.parametrize("seed", range(TRIALS))
def test_broadcasting_in_an_elementwise_stage(seed: int) -> None:
    rng = random.Random(seed)
    left, right, result = operands(rng)
    op = rng.choice("+-*")
    indexed = rng.choice([(True, True), (True, False), (False, True)])
    full = [["n", *left] if indexed[0] else left, ["n", *right] if indexed[1] else right]
    x_i, y_i = ("x[i]" if indexed[0] else "x"), ("y[i]" if indexed[1] else "y")
    text = (
        f"fn f(x: {shape(full[0])}, y: {shape(full[1])}) -> {shape(['n', *result])} = "
        f"n |> map(i => {x_i} {op} {y_i})\n"
    )
    checked = check(SourceFile.from_text("random.ss", text))
    assert not checked.errors, text
    assert list(checked.items[0].body.facts.stage_kinds.values()) == ["elementwise"]
    x, y = tensor(full[0]), tensor(full[1])
    rows = []
    for i in range(SIZES["n"]):
        xi, yi = (x[i] if indexed[0] else x), (y[i] if indexed[1] else y)
        rows.append(OPERATORS[op](lift(xi, left, result), lift(yi, right, result)))
    expected = torch.stack(rows)
    torch.testing.assert_close(load(text, f"stage{seed}.ss").f(x, y), expected, msg=text)


def groups(rng: random.Random, names: list[str]) -> list[list[str]]:
    found, start = [], 0
    while start < len(names):
        end = start + rng.choice([1, 1, 2, 3])
        found.append(names[start:end])
        start = end
    return found


def side(groups_: list[list[str]]) -> str:
    return " ".join(g[0] if len(g) == 1 else "(" + " ".join(g) + ")" for g in groups_)


def size(group: list[str]) -> int:
    total = 1
    for name in group:
        total *= SIZES[name]
    return total


@pytest.mark.parametrize("seed", range(TRIALS))
def test_rearrange(seed: int) -> None:
    rng = random.Random(seed)
    names = rng.sample(["a", "b", "c", "d", "e"], rng.randint(2, 5))
    inputs = groups(rng, names)
    order = rng.sample(names, len(names))
    outputs = groups(rng, order)
    keywords = {name: SIZES[name] for group in inputs if len(group) > 1 for name in group[1:]}
    given = "".join(f", {name}={value}" for name, value in keywords.items())
    in_shape = " ".join(str(size(group)) for group in inputs)
    out_shape = " ".join(str(size(group)) for group in outputs)
    text = (
        f"fn f(x: [{in_shape}] f64) -> [{out_shape}] f64 = "
        f"rearrange(x, {side(inputs)} -> {side(outputs)}{given})\n"
    )
    assert checks(text), text
    x = torch.randn([size(group) for group in inputs], dtype=torch.float64)
    expected = einops.rearrange(x, f"{side(inputs)} -> {side(outputs)}", **keywords)
    torch.testing.assert_close(load(text, f"rearrange{seed}.ss").f(x), expected, msg=text)


ALONG = {
    "sum": lambda x, dim: x.sum(dim),
    "mean": lambda x, dim: x.mean(dim),
    "max": lambda x, dim: x.amax(dim),
    "logsumexp": torch.logsumexp,
    "norm": lambda x, dim: torch.linalg.vector_norm(x, dim=dim),
    "softmax": torch.softmax,
    "cumsum": torch.cumsum,
}


@pytest.mark.parametrize("seed", range(TRIALS))
def test_operations_along_a_named_axis(seed: int) -> None:
    """over= on any axis, directly, in a vmapped lambda, and as a stage given by name."""
    rng = random.Random(seed)
    names = rng.sample(["a", "b", "c", "d"], rng.randint(2, 4))
    over = rng.choice(names)
    name = rng.choice(sorted(ALONG))
    keeps = name in ("softmax", "cumsum")
    iterated = rng.choice([axis for axis in names if axis != over])
    inner = [axis for axis in names if axis != iterated]
    function = rng.choice([f"row => {name}(row, over={over})", f"{name}(over={over})"])
    result = [iterated, *(inner if keeps else [axis for axis in inner if axis != over])]
    text = f"fn f(x: {shape(names)}) -> {shape(result)} = x |> map({function}, over={iterated})\n"
    assert checks(text), text
    x = tensor(names)
    rows = x.movedim(names.index(iterated), 0)
    expected = torch.stack([ALONG[name](row, inner.index(over)) for row in rows])
    torch.testing.assert_close(load(text, f"along{seed}.ss").f(x), expected, msg=text)
