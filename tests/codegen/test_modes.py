"""Check modes: `never` generates no checks, `debug` puts them under `if __debug__` (so
they vanish under `python -O`), and `always` keeps them even there."""

from __future__ import annotations

import pytest
import torch

import shapescript
from tests.codegen.compiled import build, load

PROGRAM = """\
fn scaled(x: [b 4] f64) -> [b 4] f64 = x * 2.0
fn claimed(x: [b n] f64) -> [b 4] f64 = x as [b 4]
fn normalized(p: [b C] Prob over C f64) -> [b C] f64 = p * 1.0
fn unit(x: [b n] f64) -> [b n] Unit f64 = x as Unit
"""

WRONG = torch.zeros(2, 5, dtype=torch.float64)
BAD_PROB = torch.full((2, 3), 0.5, dtype=torch.float64)


def test_never_generates_no_checks() -> None:
    source = build(PROGRAM, checks="never", value_checks="never").source
    for helper in ("argument_error", "as_shape", "domain_error", "as_domain", "not_tensors"):
        assert helper not in source
    module = load(PROGRAM, "never.ss", checks="never", value_checks="never")
    assert module.scaled(WRONG).shape == (2, 5)
    assert module.claimed(WRONG).shape == (2, 5)
    assert module.normalized(BAD_PROB).shape == (2, 3)
    assert module.unit(WRONG + 2).shape == (2, 5)


def test_debug_checks_run_without_optimization() -> None:
    source = build(PROGRAM, checks="debug", value_checks="debug").source
    assert "if __debug__:" in source
    module = load(PROGRAM, "debug.ss", checks="debug", value_checks="debug", optimize=0)
    with pytest.raises(shapescript.ShapeError):
        module.scaled(WRONG)
    with pytest.raises(shapescript.ShapeError):
        module.claimed(WRONG)
    with pytest.raises(shapescript.DomainError):
        module.normalized(BAD_PROB)
    with pytest.raises(shapescript.DomainError):
        module.unit(WRONG + 2)


def test_debug_checks_vanish_under_optimization() -> None:
    module = load(PROGRAM, "debug.ss", checks="debug", value_checks="debug", optimize=2)
    assert module.scaled(WRONG).shape == (2, 5)
    assert module.claimed(WRONG).shape == (2, 5)
    assert module.normalized(BAD_PROB).shape == (2, 3)
    assert module.unit(WRONG + 2).shape == (2, 5)


def test_always_checks_stay_under_optimization() -> None:
    module = load(PROGRAM, "always.ss", checks="always", value_checks="always", optimize=2)
    with pytest.raises(shapescript.ShapeError):
        module.scaled(WRONG)
    with pytest.raises(shapescript.ShapeError):
        module.claimed(WRONG)
    with pytest.raises(shapescript.DomainError):
        module.normalized(BAD_PROB)
    with pytest.raises(shapescript.DomainError):
        module.unit(WRONG + 2)


def test_value_checks_off_with_shape_checks_on() -> None:
    module = load(PROGRAM, "shapes_only.ss", checks="always", value_checks="never")
    assert module.normalized(BAD_PROB).shape == (2, 3)
    with pytest.raises(shapescript.ShapeError):
        module.scaled(WRONG)


def test_value_checks_on_with_shape_checks_off() -> None:
    module = load(PROGRAM, "values_only.ss", checks="never", value_checks="always")
    assert module.scaled(WRONG).shape == (2, 5)
    with pytest.raises(shapescript.DomainError):
        module.normalized(BAD_PROB)


def test_standalone_checks_raise_plain_errors_naming_the_line() -> None:
    generated = build(PROGRAM, "standalone.ss", standalone=True, devices="cpu")
    assert "import shapescript" not in generated.source
    assert "from shapescript" not in generated.source
    module: dict = {}
    exec(compile(generated.tree, "standalone.ss", "exec"), module)
    with pytest.raises(ValueError, match=r"^standalone\.ss:1:11: in fn scaled, .* `x`"):
        module["scaled"](WRONG)
    with pytest.raises(ValueError, match=r"^standalone\.ss:2:\d+: in fn claimed: `as`"):
        module["claimed"](WRONG)
    with pytest.raises(ValueError, match=r"^standalone\.ss:3:\d+: in fn normalized, .* `p`"):
        module["normalized"](BAD_PROB)
    with pytest.raises(ValueError, match=r"in fn scaled, .* `x`"):
        module["scaled"]([1.0])
