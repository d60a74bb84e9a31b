"""Run-time errors of compiled programs, pinned as expected output in `errors/`.

Each message names the `.ss` file, line and column, the function and, for an argument,
the parameter. Rewrite the files with UPDATE_EXPECT=1 and read the diff.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import shapescript
from tests.codegen.compiled import load
from tests.snapshot import assert_matches_snapshot

EXPECTED = Path(__file__).resolve().parent / "errors"
f64 = torch.float64

PROGRAM = """\
dim D = 4
dim Dh = 16
dim V = 10
domain Temp = [0.05, 10]

fn scaled(x: [b D] f64) -> [b D] f64 = x * 2.0
fn pair(x: [b D] f64, y: [b D] f64) -> [b D] f64 = x + y
fn heads(x: [b n (h Dh)] f64) -> [b n (h Dh)] f64 = x
fn shifted(x: [b h+3] f64) -> [b h+3] f64 = x
fn lookup(table: [V D] f64, ids: [b t] Index[V]) -> [b t D] f64 = table[ids]
fn normalize(img: [b 3 h w]) -> [b 3 h w] Unit:
    return img as Unit
fn probabilities(p: [b D] Prob over D f64) -> [b D] f64 = p
fn heat(t: [n] Temp f64) -> [n] f64 = t * 2.0
fn keyworded(x: [n] f64, from: [n] f64) -> [n] f64 = x + from
fn unit(x: [n] Unit f64) -> [n] f64 = x
fn nonneg(x: [n] NonNeg f64) -> [n] f64 = x
fn repeat(x: [n] f64, k: int) -> [n] f64 = x * k
fn scaled_by(x: [n] f64, k: float) -> [n] f64 = x * k
fn flagged(x: [n] f64, on: bool) -> [n] f64 = x
fn counted(k: int, step: int = 1) -> int = k + step
fn patches(img: [b 3 16gh 16gw] f64) -> [b (gh gw) (16 16 3)] f64:
    return rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))
"""


def zeros(*shape: int, **options) -> torch.Tensor:
    return torch.zeros(*shape, dtype=f64, **options)


CASES: dict[str, tuple[type[Exception], Callable]] = {
    "wrong_rank": (shapescript.ShapeError, lambda m: m.scaled(zeros(2, 3, 4))),
    "wrong_size": (shapescript.ShapeError, lambda m: m.scaled(zeros(2, 5))),
    "wrong_dtype": (shapescript.ShapeError, lambda m: m.scaled(torch.zeros(2, 4))),
    "not_a_tensor": (shapescript.ShapeError, lambda m: m.scaled([[1.0, 2.0]])),
    "not_a_tensor_for_a_keyword_name": (
        shapescript.ShapeError,
        lambda m: m.keyworded(zeros(2), 3.0),
    ),
    "inconsistent_generic_size": (
        shapescript.ShapeError,
        lambda m: m.pair(zeros(2, 4), zeros(3, 4)),
    ),
    "some_whole_h": (shapescript.ShapeError, lambda m: m.heads(zeros(2, 5, 72))),
    "grouped_size_not_whole": (
        shapescript.ShapeError,
        lambda m: m.patches(zeros(1, 3, 225, 224)),
    ),
    "second_grouped_size_not_whole": (
        shapescript.ShapeError,
        lambda m: m.patches(zeros(1, 3, 224, 225)),
    ),
    "some_whole_h_plus_3": (shapescript.ShapeError, lambda m: m.shifted(zeros(2, 2))),
    "index_out_of_range": (
        shapescript.DomainError,
        lambda m: m.lookup(zeros(10, 4), torch.tensor([[1, 10], [0, 3]])),
    ),
    "as_unit_on_bytes": (
        shapescript.DomainError,
        lambda m: m.normalize(torch.tensor([0.0, 17.0, 128.0, 255.0]).expand(1, 3, 2, 4)),
    ),
    "probabilities_that_dont_sum_to_1": (
        shapescript.DomainError,
        lambda m: m.probabilities(torch.full((2, 4), 0.3, dtype=f64)),
    ),
    "outside_a_user_domain": (
        shapescript.DomainError,
        lambda m: m.heat(torch.tensor([0.0, 20.0], dtype=f64)),
    ),
    "nan_in_unit": (
        shapescript.DomainError,
        lambda m: m.unit(torch.tensor([0.5, float("nan")], dtype=f64)),
    ),
    "nan_in_nonneg": (
        shapescript.DomainError,
        lambda m: m.nonneg(torch.tensor([float("nan")], dtype=f64)),
    ),
    "nan_in_prob": (
        shapescript.DomainError,
        lambda m: m.probabilities(torch.tensor([[0.25, 0.25, 0.25, float("nan")]], dtype=f64)),
    ),
    "nan_in_a_user_domain": (
        shapescript.DomainError,
        lambda m: m.heat(torch.tensor([1.0, float("nan")], dtype=f64)),
    ),
    "float_for_an_int": (shapescript.ShapeError, lambda m: m.repeat(zeros(2), 2.5)),
    "bool_for_an_int": (shapescript.ShapeError, lambda m: m.repeat(zeros(2), True)),
    "tensor_for_an_int": (shapescript.ShapeError, lambda m: m.repeat(zeros(2), torch.tensor(2))),
    "huge_int": (shapescript.ShapeError, lambda m: m.repeat(zeros(2), 10**30)),
    "string_for_a_float": (shapescript.ShapeError, lambda m: m.scaled_by(zeros(2), "a")),
    "int_for_a_bool": (shapescript.ShapeError, lambda m: m.flagged(zeros(2), 1)),
    "host_function_float_for_an_int": (shapescript.ShapeError, lambda m: m.counted(1.5)),
    "missing_argument": (shapescript.CallError, lambda m: m.repeat(zeros(2))),
    "too_many_arguments": (shapescript.CallError, lambda m: m.repeat(zeros(2), 2, 3)),
    "other_device": (shapescript.DeviceError, lambda m: m.scaled(zeros(2, 4, device="meta"))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_runtime_error_message(name: str) -> None:
    kind, call = CASES[name]
    module = load(PROGRAM, "errors.ss", checks="always", value_checks="always")
    with pytest.raises(kind) as raised:
        call(module)
    error = raised.value
    assert error.path == "errors.ss"
    assert error.line is not None and error.column is not None
    assert error.function is not None
    assert_matches_snapshot(f"{type(error).__name__}: {error}\n", EXPECTED / f"{name}.expected")


def test_error_classes() -> None:
    assert issubclass(shapescript.CallError, TypeError)
    assert issubclass(shapescript.CallError, shapescript.CheckFailure)
    assert issubclass(shapescript.ShapeError, ValueError)
    assert issubclass(shapescript.DomainError, ValueError)
    assert issubclass(shapescript.DeviceError, RuntimeError)


def test_arguments_that_fit_pass() -> None:
    module = load(PROGRAM, "errors.ss", checks="always", value_checks="always")
    assert module.heads(zeros(2, 5, 64)).shape == (2, 5, 64)
    assert module.shifted(zeros(2, 3)).shape == (2, 3)
    assert module.patches(zeros(1, 3, 224, 32)).shape == (1, 28, 768)
    ids = torch.tensor([[1, 9]])
    assert module.lookup(zeros(10, 4), ids).shape == (1, 2, 4)
    assert module.normalize(torch.rand(2, 3, 2, 2)).shape == (2, 3, 2, 2)
    assert module.probabilities(torch.full((2, 4), 0.25, dtype=f64)).shape == (2, 4)
    assert module.heat(torch.tensor([0.05, 10.0], dtype=f64)).shape == (2,)
    assert module.repeat(zeros(2), 2**63 - 1).shape == (2,)
    assert module.repeat(zeros(2), -(2**63)).shape == (2,)
    assert module.scaled_by(zeros(2), 3).shape == (2,)
    assert module.scaled_by(zeros(2), float("nan")).shape == (2,)
    assert module.flagged(zeros(2), False).shape == (2,)
    assert module.counted(2) == 3
    assert module.counted(2, step=5) == 7
    assert module.counted(k=2) == 3


def test_host_checks_take_python_numbers_of_other_types() -> None:
    """Subclasses and numpy scalars are numbers as Python sees them (numbers.Integral)."""
    numpy = pytest.importorskip("numpy")

    class Count(int):
        pass

    module = load(PROGRAM, "errors.ss", checks="always", value_checks="always")
    assert module.repeat(zeros(2), Count(2)).tolist() == [0.0, 0.0]
    assert module.repeat(zeros(2), numpy.int64(2)).shape == (2,)
    assert module.scaled_by(zeros(2), numpy.float32(0.5)).shape == (2,)
    assert module.flagged(zeros(2), numpy.bool_(True)).shape == (2,)


def test_never_skips_the_host_value_and_call_checks() -> None:
    module = load(PROGRAM, "errors.ss", checks="never", value_checks="never")
    nan = torch.tensor([float("nan")], dtype=f64)
    assert module.unit(nan).isnan().all()
    assert module.repeat(zeros(2), 2.5).shape == (2,)
    with pytest.raises(TypeError) as raised:
        module.repeat(zeros(2))
    assert not isinstance(raised.value, shapescript.CheckFailure)


def test_the_signature_is_the_one_written() -> None:
    import inspect

    module = load(PROGRAM, "errors.ss", checks="always", value_checks="always")
    assert str(inspect.signature(module.counted)) == "(k, step=1)"
    assert str(inspect.signature(module.repeat)) == "(x, k)"


def test_dims_and_domains_are_on_the_module() -> None:
    module = load(PROGRAM, "errors.ss", checks="always", value_checks="always")
    assert (module.D, module.Dh, module.V) == (4, 16, 10)
    assert (module.Temp.name, module.Temp.interval) == ("Temp", "[0.05, 10]")
