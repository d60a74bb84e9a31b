"""Every built-in of the checker's table runs, and computes what torch computes.

The table below has a case for each built-in; a built-in added to `BUILTINS` without a
case here (or in LATER, the ones a later issue compiles) fails `test_every_builtin_is_here`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch
import torch.nn.functional as F

from shapescript.check.declarations.builtin_table import BUILTINS
from tests.codegen.compiled import build, load

f64 = torch.float64

PROGRAM = """\
dim C = 5

fn b_sum(x: [b n] f64) -> [b] f64 = sum(x, over=n)
fn b_sum_all(x: [b n] f64) -> [] f64 = sum(x)
fn b_mean(x: [b n] f64) -> [b] f64 = mean(x, over=n)
fn b_max(x: [b n] f64) -> [b] f64 = max(x, over=n)
fn b_min(x: [b n] f64) -> [n] f64 = min(x, over=b)
fn b_prod(x: [b n] f64) -> [b] f64 = prod(x, over=n)
fn b_std(x: [b n] f64) -> [b] f64 = std(x, over=n)
fn b_var(x: [b n] f64) -> [n] f64 = var(x, over=b)
fn b_norm(x: [b n] f64) -> [b] f64 = norm(x, over=n)
fn b_logsumexp(x: [b n] f64) -> [b] f64 = logsumexp(x, over=n)
fn b_any(x: [b n] f64) -> [b] Mask = any(x > 0.0, over=n)
fn b_all(x: [b n] f64) -> [n] Mask = all(x > -1.0, over=b)
fn b_softmax(x: [b n] f64) -> [b n] Prob over b f64 = softmax(x, over=b)
fn b_log_softmax(x: [b n] f64) -> [b n] LogProb over n f64 = log_softmax(x, over=n)
fn b_cumsum(x: [b n] f64) -> [b n] f64 = cumsum(x, over=n)
fn b_cumprod(x: [b n] f64) -> [b n] f64 = cumprod(x, over=b)
fn b_sort(x: [b n] f64) -> [b n] f64 = sort(x, over=n)
fn b_argsort(x: [b n] f64) -> [b n] Index[n] = argsort(x, over=n)
fn b_argmax(x: [b n] f64) -> [b] Index[n] = argmax(x, over=n)
fn b_argmin(x: [b n] f64) -> [n] Index[b] = argmin(x, over=b)
fn b_topk(x: [b n] f64) -> [b 3] f64:
    values, indices = topk(x, 3, over=n)
    return values + (indices to f64)
fn b_cross_entropy(z: [b C] f64, y: [b] Index[C]) -> [] f64 = cross_entropy(z, y, over=C)
fn b_cross_entropy_3d(z: [C b t] f64, y: [b t] Index[C]) -> [] f64 = cross_entropy(z, y, over=C)
fn b_cat(x: [b n] f64, y: [b n] f64) -> [b 2*n] f64 = cat(x, y, over=n)
fn b_stack(x: [b n] f64, y: [b n] f64) -> [2 b n] f64 = stack(x, y, over=s)
fn b_gather(x: [b n] f64, idx: [b k] Index[n]) -> [b k] f64 = gather(x, idx, over=n)
fn b_scatter(x: [b n] f64, idx: [b k] Index[n], src: [b k] f64) -> [b n] f64:
    return scatter(x, idx, src, over=n)
fn b_masked_fill(x: [b n] f64, m: [b n] Mask) -> [b n] f64 = masked_fill(x, m, 0.5)
fn b_abs(x: [b n] f64) -> [b n] f64 = abs(x)
fn b_square(x: [b n] f64) -> [b n] f64 = square(x)
fn b_pow(x: [b n] f64) -> [b n] f64 = pow(x, 3)
fn b_clamp(x: [b n] f64) -> [b n] f64 = clamp(x, -0.5, 0.5)
fn b_clamp_lo(x: [b n] f64) -> [b n] f64 = x |> clamp(lo=0.0)
fn b_maximum(x: [b n] f64, y: [b n] f64) -> [b n] f64 = maximum(x, y)
fn b_minimum(x: [b n] f64) -> [b n] f64 = minimum(x, 0.25)
fn b_where(m: [b n] Mask, x: [b n] f64, y: [n] f64) -> [b n] f64 = where(m, x, y)
fn b_relu(x: [b n] f64) -> [b n] f64 = relu(x)
fn b_leaky_relu(x: [b n] f64) -> [b n] f64 = leaky_relu(x, negative_slope=0.2)
fn b_elu(x: [b n] f64) -> [b n] f64 = elu(x)
fn b_floor(x: [b n] f64) -> [b n] f64 = floor(x * 4.0)
fn b_ceil(x: [b n] f64) -> [b n] f64 = ceil(x * 4.0)
fn b_round(x: [b n] f64) -> [b n] f64 = round(x * 4.0)
fn b_add(x: [b n] f64, y: [b n] f64) -> [b n] f64 = add(x, y)
fn b_sub(x: [b n] f64) -> [b n] f64 = x |> sub(1.0, _)
fn b_mul(x: [b n] f64, y: [n] f64) -> [b n] f64 = mul(x, y)
fn b_div(x: [b n] f64, y: [b] f64) -> [b n] f64 = div(x, y)
fn b_zeros_like(x: [b n] f64) -> [b n] f64 = zeros_like(x)
fn b_rearrange(x: [b n d] f64) -> [n (b d)] f64 = rearrange(x, b n d -> n (b d))
fn b_reduce(x: [b n d] f64) -> [b d] f64 = reduce(x, b n d -> b d, mean)
fn b_reduce_ints(x: [b n] i64) -> [b] = reduce(x, b n -> b, mean)
fn b_mean_ints(x: [b n] i32) -> [b] = mean(x, over=n)
fn b_sum_mask(x: [b n] f64) -> [b] i64 = sum((x > 0.0) to i32, over=n)
fn b_repeat(x: [n d] f64) -> [n 3 d] f64 = repeat(x, n d -> n r d, r=3)
fn b_repeat_dim(x: [n d] f64) -> [(n C) d] f64 = repeat(x, n d -> (n C) d)
fn b_einsum(p: [i j] f64, q: [j k] f64, r: [k l] f64) -> [i l] f64:
    return einsum(p, q, r: i j, j k, k l -> i l)
fn b_split(x: [n 2*d] f64) -> [n d] f64:
    first, second = split(x, n (2 d) -> n d)
    return first - second
fn b_matmul(x: [b n] f64, w: [n m] f64) -> [b m] f64 = matmul(x, w)
fn b_causal(x: [n m] f64) -> [n m] Mask = causal[n m]
fn b_positions(x: [b n] f64) -> [b n] f64 = x + (positions(n) to f64)
fn b_print(x: [n] f64) -> [n] f64:
    print("x is", x)
    return x
fn b_map(x: [n d] f64) -> [n d] f64 = x |> map(row => relu(row), over=n)
fn b_filter(x: [n] f64) -> [] f64 = x |> filter(t => t > 0.0) |> sum
fn b_zip(x: [n d] f64, w: [n] f64) -> [n d] f64 = x |> zip(w, over=n) |> map((row, s) => row * s)
fn b_enumerate(x: [n d] f64) -> [n d] f64:
    return x |> enumerate(over=n) |> map((i, row) => row * (i to f64))
"""


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=f64)


def mask(*shape: int) -> torch.Tensor:
    return torch.rand(*shape) > 0.5


def index(high: int, *shape: int) -> torch.Tensor:
    return torch.randint(0, high, shape)


@dataclass(frozen=True)
class Case:
    """A compiled function of PROGRAM, its arguments, and what torch gives for them."""

    function: str
    arguments: Callable[[], tuple]
    reference: Callable[..., torch.Tensor]


def one(function: str, reference: Callable[..., torch.Tensor], *shape: int) -> Case:
    return Case(function, lambda: (randn(*shape),), reference)


CASES: dict[str, list[Case]] = {
    "sum": [
        one("b_sum", lambda x: x.sum(1), 3, 4),
        one("b_sum_all", lambda x: x.sum(), 3, 4),
        one("b_sum_mask", lambda x: (x > 0).int().sum(1), 3, 4),
    ],
    "mean": [
        one("b_mean", lambda x: x.mean(1), 3, 4),
        Case("b_mean_ints", lambda: (index(9, 3, 4).int(),), lambda x: x.float().mean(1)),
    ],
    "max": [one("b_max", lambda x: x.amax(1), 3, 4)],
    "min": [one("b_min", lambda x: x.amin(0), 3, 4)],
    "prod": [one("b_prod", lambda x: x.prod(1), 3, 4)],
    "std": [one("b_std", lambda x: x.std(1), 3, 4)],
    "var": [one("b_var", lambda x: x.var(0), 3, 4)],
    "norm": [one("b_norm", lambda x: torch.linalg.vector_norm(x, dim=1), 3, 4)],
    "logsumexp": [one("b_logsumexp", lambda x: torch.logsumexp(x, 1), 3, 4)],
    "any": [one("b_any", lambda x: (x > 0).any(1), 3, 4)],
    "all": [one("b_all", lambda x: (x > -1).all(0), 3, 4)],
    "softmax": [one("b_softmax", lambda x: torch.softmax(x, 0), 3, 4)],
    "log_softmax": [one("b_log_softmax", lambda x: torch.log_softmax(x, 1), 3, 4)],
    "cumsum": [one("b_cumsum", lambda x: torch.cumsum(x, 1), 3, 4)],
    "cumprod": [one("b_cumprod", lambda x: torch.cumprod(x, 0), 3, 4)],
    "sort": [one("b_sort", lambda x: torch.sort(x, 1).values, 3, 4)],
    "argsort": [one("b_argsort", lambda x: torch.argsort(x, dim=1, stable=True), 3, 4)],
    "argmax": [one("b_argmax", lambda x: torch.argmax(x, 1), 3, 4)],
    "argmin": [one("b_argmin", lambda x: torch.argmin(x, 0), 3, 4)],
    "topk": [
        one(
            "b_topk",
            lambda x: torch.topk(x, 3, 1).values + torch.topk(x, 3, 1).indices.to(f64),
            3,
            6,
        )
    ],
    "cross_entropy": [
        Case("b_cross_entropy", lambda: (randn(4, 5), index(5, 4)), F.cross_entropy),
        Case(
            "b_cross_entropy_3d",
            lambda: (randn(5, 2, 3), index(5, 2, 3)),
            lambda z, y: F.cross_entropy(z.permute(1, 0, 2), y),
        ),
    ],
    "cat": [Case("b_cat", lambda: (randn(3, 4), randn(3, 4)), lambda x, y: torch.cat((x, y), 1))],
    "stack": [
        Case("b_stack", lambda: (randn(3, 4), randn(3, 4)), lambda x, y: torch.stack((x, y)))
    ],
    "gather": [
        Case("b_gather", lambda: (randn(3, 6), index(6, 3, 2)), lambda x, i: x.gather(1, i))
    ],
    "scatter": [
        Case(
            "b_scatter",
            lambda: (randn(3, 6), index(6, 3, 2), randn(3, 2)),
            lambda x, i, s: x.scatter(1, i, s),
        )
    ],
    "masked_fill": [
        Case("b_masked_fill", lambda: (randn(3, 4), mask(3, 4)), lambda x, m: x.masked_fill(m, 0.5))
    ],
    "abs": [one("b_abs", torch.abs, 3, 4)],
    "square": [one("b_square", torch.square, 3, 4)],
    "pow": [one("b_pow", lambda x: x**3, 3, 4)],
    "clamp": [
        one("b_clamp", lambda x: x.clamp(-0.5, 0.5), 3, 4),
        one("b_clamp_lo", lambda x: x.clamp(min=0.0), 3, 4),
    ],
    "maximum": [Case("b_maximum", lambda: (randn(3, 4), randn(3, 4)), torch.maximum)],
    "minimum": [one("b_minimum", lambda x: x.clamp(max=0.25), 3, 4)],
    "where": [
        Case("b_where", lambda: (mask(3, 4), randn(3, 4), randn(4)), torch.where),
    ],
    "relu": [one("b_relu", torch.relu, 3, 4)],
    "leaky_relu": [one("b_leaky_relu", lambda x: F.leaky_relu(x, 0.2), 3, 4)],
    "elu": [one("b_elu", F.elu, 3, 4)],
    "floor": [one("b_floor", lambda x: torch.floor(x * 4), 3, 4)],
    "ceil": [one("b_ceil", lambda x: torch.ceil(x * 4), 3, 4)],
    "round": [one("b_round", lambda x: torch.round(x * 4), 3, 4)],
    "add": [Case("b_add", lambda: (randn(3, 4), randn(3, 4)), torch.add)],
    "sub": [one("b_sub", lambda x: 1.0 - x, 3, 4)],
    "mul": [Case("b_mul", lambda: (randn(3, 4), randn(4)), torch.mul)],
    "div": [Case("b_div", lambda: (randn(3, 4), randn(3)), lambda x, y: x / y[:, None])],
    "zeros_like": [one("b_zeros_like", torch.zeros_like, 3, 4)],
    "rearrange": [one("b_rearrange", lambda x: x.permute(1, 0, 2).reshape(4, 6), 3, 4, 2)],
    "reduce": [
        one("b_reduce", lambda x: x.mean(1), 3, 4, 2),
        Case("b_reduce_ints", lambda: (index(9, 3, 4),), lambda x: x.float().mean(1)),
    ],
    "repeat": [
        one("b_repeat", lambda x: x[:, None, :].expand(4, 3, 2), 4, 2),
        one("b_repeat_dim", lambda x: x.repeat_interleave(5, 0), 4, 2),
    ],
    "einsum": [
        Case(
            "b_einsum",
            lambda: (randn(2, 3), randn(3, 4), randn(4, 5)),
            lambda p, q, r: p @ q @ r,
        )
    ],
    "split": [one("b_split", lambda x: x.view(3, 2, 2)[:, 0] - x.view(3, 2, 2)[:, 1], 3, 4)],
    "matmul": [Case("b_matmul", lambda: (randn(3, 4), randn(4, 5)), torch.matmul)],
    "causal": [one("b_causal", lambda x: torch.ones(4, 4, dtype=torch.bool).tril(), 4, 4)],
    "positions": [one("b_positions", lambda x: x + torch.arange(4, dtype=f64), 3, 4)],
    "print": [one("b_print", lambda x: x, 3)],
    "map": [one("b_map", torch.relu, 3, 4)],
    "filter": [one("b_filter", lambda x: x[x > 0].sum(), 9)],
    "zip": [Case("b_zip", lambda: (randn(3, 4), randn(3)), lambda x, w: x * w[:, None])],
    "enumerate": [one("b_enumerate", lambda x: x * torch.arange(3, dtype=f64)[:, None], 3, 4)],
}

#: Built-ins a later issue compiles (datasets): a program using each, and what its
#: unsupported entry names (the construct compiling stops at).
LATER: dict[str, tuple[str, str]] = {
    "save": ('fn f(n: int):\n    save("a.pt", n)\n', "`save`"),
    "load": ('fn f() -> int:\n    a = load("a.pt", int)\n    return a\n', "`load`"),
    "value_and_grad": (
        "model M:\n    param w: [3] = zeros\n"
        "fn loss(m: M, x: [3]) -> [] = sum(x * m.w)\n"
        "fn f(m: M, x: [3]):\n    l, g = value_and_grad(loss, m, x)\n",
        "`M`",
    ),
    "update": (
        "import python torch\nfn f():\n    m = torch.nn.Linear(2, 2)\n"
        "    update(mut m, mut m, m)\n",
        "`update`",
    ),
    "sgd": (
        "model M:\n    param w: [3] = zeros\nfn f():\n    o = sgd(M.init(seed=0), lr=0.1)\n",
        "`sgd`",
    ),
    "adamw": (
        "model M:\n    param w: [3] = zeros\nfn f():\n    o = adamw(M.init(seed=0), lr=0.1)\n",
        "`adamw`",
    ),
    "clip_norm": (
        "import python torch\nfn f():\n    g = torch.nn.Linear(2, 2)\n    h = clip_norm(g, 1.0)\n",
        "`clip_norm`",
    ),
    "cosine": ("fn f():\n    s = cosine(0.1, 100)\n", "`cosine`"),
    "warmup": ("fn f():\n    s = warmup(10, 0.1)\n", "`warmup`"),
    "Train": ("fn f():\n    s = Train(seed=1)\n", "`Train`"),
    "Eval": ("fn f():\n    s = Eval\n", "`Eval`"),
}


#: Training and checkpoint built-ins, compiled to the runtime and run in test_training.py and
#: test_logs_runtime.py: a program using each, which compiles completely.
TRAINING_NAMES = ("value_and_grad", "update", "sgd", "adamw", "clip_norm", "cosine", "warmup")
TRAINING = {name: LATER.pop(name)[0] for name in (*TRAINING_NAMES, "Train", "Eval", "save", "load")}


_RECORD = "data R:\n    x: [3]\n"
DATASET_STAGES = {
    "shuffle": _RECORD + "fn f(d: Dataset[R]) -> Dataset[R] = d |> shuffle(seed=1)\n",
    "batches": _RECORD
    + "fn f(d: Dataset[R]):\n    for b in d |> batches(4):\n        print(b.x)\n",
}


def test_every_builtin_is_here() -> None:
    assert set(CASES) | set(LATER) | set(TRAINING) | set(DATASET_STAGES) == set(BUILTINS)
    assert not set(CASES) & set(LATER)


@pytest.mark.parametrize("name", sorted(DATASET_STAGES))
def test_dataset_stage_compiles(name: str) -> None:
    generated = build(DATASET_STAGES[name], f"dataset_{name}.ss")
    assert generated.unsupported == []
    assert f"_ss_rt.data.{name}(" in generated.source


@pytest.mark.parametrize("name", sorted(TRAINING))
def test_training_builtin_compiles(name: str) -> None:
    generated = build(TRAINING[name], f"training_{name}.ss", devices="cpu")
    assert generated.unsupported == []
    assert generated.tree is not None


@pytest.mark.parametrize("name", sorted(CASES))
def test_builtin_matches_torch(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    module = load(PROGRAM, "builtins_test.ss")
    torch.manual_seed(0)
    for case in CASES[name]:
        arguments = case.arguments()
        actual = getattr(module, case.function)(*arguments)
        expected = case.reference(*arguments)
        assert actual.dtype == expected.dtype, case.function
        torch.testing.assert_close(actual, expected, rtol=0, atol=1e-10, msg=case.function)
    if name == "print":
        assert capsys.readouterr().out.startswith("x is tensor(")


def test_argsort_keeps_ties_in_order() -> None:
    """Equal values keep their order, as `verify`'s exact run orders them (torch's default
    sort on CPU reorders ties in long rows)."""
    module = load(PROGRAM, "builtins_test.ss")
    x = torch.zeros(3, 5000, dtype=torch.float64)
    x[:, ::2] = 1
    order = module.b_argsort(x)
    evens = torch.arange(0, 5000, 2)
    odds = torch.arange(1, 5000, 2)
    assert torch.equal(order, torch.cat([odds, evens]).expand(3, -1))


@pytest.mark.parametrize("name", sorted(LATER))
def test_later_builtin_is_reported_unsupported(name: str) -> None:
    text, named = LATER[name]
    generated = build(text, f"later_{name}.ss", devices="cpu")
    messages = [message for message, _span in generated.unsupported]
    assert any(named in message and "can't be compiled yet" in message for message in messages)
    assert generated.tree is not None
