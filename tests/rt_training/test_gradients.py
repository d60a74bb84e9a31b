from __future__ import annotations

import copy
import pickle
import sys
from collections.abc import Callable
from types import FrameType

import pytest
import torch

from shapescript import ShapeError
from shapescript.rt.gradients import Grad, check_grad, clip_norm, norm, value_and_grad
from tests.rt_training import nets
from tests.rt_training.nets import Other, Tiny, tiny_loss

WHERE = {"path": "t.ss", "line": 3, "column": 1, "function": "step", "parameter": "g"}


def _grad(scale: float = 1.0) -> Grad:
    values = {
        "w": torch.arange(6.0).reshape(3, 2) * scale,
        "b": torch.tensor([1.0, -2.0]) * scale,
        "unused": torch.ones(4) * scale,
    }
    return Grad(Tiny, values)


def _same(first: Grad, second: Grad) -> None:
    assert first.keys() == second.keys()
    for name in first:
        torch.testing.assert_close(first[name], second[name], rtol=0, atol=0)


def test_a_grad_has_its_fields_as_attributes_and_items_in_order() -> None:
    g = _grad()
    assert g.keys() == ["w", "b", "unused"]
    assert g.w is g["w"]
    assert g.model_type is Tiny
    with pytest.raises(AttributeError):
        g.count  # noqa: B018
    with pytest.raises(AttributeError):
        g.w = torch.zeros(3, 2)


def test_grad_arithmetic() -> None:
    g, h = _grad(), _grad(3.0)
    _same(g + h, _grad(4.0))
    _same(h - g, _grad(2.0))
    _same(-g, _grad(-1.0))
    _same(g * 2, _grad(2.0))
    _same(2 * g, _grad(2.0))
    _same(torch.tensor(2.0) * g, _grad(2.0))
    _same(g * torch.tensor(2.0), _grad(2.0))
    _same(h / 3, _grad(1.0))
    _same(h / torch.tensor(3.0), _grad(1.0))


def test_grad_arithmetic_refuses_anything_else() -> None:
    g = _grad()
    other = Grad(Other, {"w": torch.ones(3, 2)})
    for bad in (
        lambda: g + other,
        lambda: g - other,
        lambda: g * g,
        lambda: g + torch.ones(3, 2),
        lambda: torch.ones(3, 2) + g,
        lambda: g * torch.ones(2),
        lambda: torch.ones(2) * g,
        lambda: 2 / g,
        lambda: g + 1,
        lambda: g * True,
    ):
        with pytest.raises(TypeError):
            bad()


def test_norm_is_the_norm_of_all_values_together() -> None:
    g = _grad()
    flat = torch.cat([value.flatten() for value in g.values()])
    torch.testing.assert_close(norm(g), flat.norm())
    assert norm(g).dim() == 0


def test_clip_norm_scales_as_clip_grad_norm_does() -> None:
    for max_norm in (1.0, 100.0):
        g = _grad()
        params = [torch.zeros_like(value, requires_grad=True) for value in g.values()]
        for param, value in zip(params, g.values(), strict=True):
            param.grad = value.clone()
        torch.nn.utils.clip_grad_norm_(params, max_norm)
        clipped = clip_norm(g, max_norm)
        for param, value in zip(params, clipped.values(), strict=True):
            torch.testing.assert_close(value, param.grad, rtol=0, atol=0)
        _same(g, _grad())


def test_value_and_grad_matches_autograd_and_gives_zeros_for_unused_params() -> None:
    m = Tiny.init(seed=1)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    value, g = value_and_grad(tiny_loss, m, x)
    expected = tiny_loss(m, x)
    dw, db = torch.autograd.grad(expected, [m.w, m.b])
    assert torch.equal(value, expected.detach())
    assert not value.requires_grad
    torch.testing.assert_close(g.w, dw)
    torch.testing.assert_close(g.b, db)
    assert torch.equal(g.unused, torch.zeros(4))
    assert g.keys() == ["w", "b", "unused"]
    assert all(param.grad is None for param in m.parameters())


def test_value_and_grad_works_under_no_grad_and_passes_keywords() -> None:
    m = Tiny.init(seed=1)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))

    def scaled(model: Tiny, x: torch.Tensor, *, k: float) -> torch.Tensor:
        return tiny_loss(model, x) * k

    with torch.no_grad():
        value, g = value_and_grad(scaled, m, x, k=2.0)
    _, plain = value_and_grad(tiny_loss, m, x)
    torch.testing.assert_close(g.w, plain.w * 2)
    assert value.dim() == 0


def test_value_and_grad_of_a_function_that_reads_no_param_is_zeros() -> None:
    m = Tiny.init(seed=1)
    value, g = value_and_grad(lambda model, x: x.sum(), m, torch.ones(3))
    assert value.item() == 3.0
    assert all(torch.equal(v, torch.zeros_like(v)) for v in g.values())


def test_value_and_grad_needs_a_scalar() -> None:
    m = Tiny.init(seed=1)
    with pytest.raises(ShapeError, match=r"must return a \[\] tensor"):
        value_and_grad(lambda model: model.w * 2, m)


def test_check_grad() -> None:
    check_grad(_grad(), Tiny, WHERE)
    with pytest.raises(
        ShapeError, match="t.ss:3:1: .*expected a Grad\\[Tiny\\], got a Grad\\[Other\\]"
    ):
        check_grad(Grad(Other, {"w": torch.ones(3, 2)}), Tiny, WHERE)
    with pytest.raises(ShapeError, match="got Tensor"):
        check_grad(torch.ones(3), Tiny, WHERE)
    bad = Grad(Tiny, {"w": torch.ones(2, 3), "b": torch.ones(2), "unused": torch.ones(4)})
    with pytest.raises(ShapeError, match=r"field w is \[2 3\] f32, not \[3 2\] f32"):
        check_grad(bad, Tiny, WHERE)


def test_a_grad_copies_and_pickles() -> None:
    g = _grad()
    _same(copy.deepcopy(g), g)
    _same(pickle.loads(pickle.dumps(g)), g)


def test_norm_is_worked_out_again_once_a_value_changes_in_place() -> None:
    g = Grad(Tiny, {"w": torch.ones(4, 3), "b": torch.ones(4), "unused": torch.zeros(4)})
    first = norm(g)
    assert torch.equal(first, torch.tensor(4.0))
    first.add_(1.0)
    assert torch.equal(norm(g), torch.tensor(4.0))
    g.w.mul_(2.0)
    assert torch.allclose(norm(g), torch.tensor((48.0 + 4.0) ** 0.5))


def test_norm_of_inference_tensors() -> None:
    with torch.inference_mode():
        g = Grad(Tiny, {"w": torch.ones(4, 3), "b": torch.ones(4), "unused": torch.zeros(4)})
    assert torch.equal(norm(g), torch.tensor(4.0))


def test_value_and_grad_of_plain_tensors_skips_autograd_grads_python_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # torch.autograd.grad's own checks cost more than a small model's backward pass; with
    # a plain [] float loss and plain params nothing they catch can happen, so the
    # backward pass is run without them, to the same numbers.
    m = Tiny.init(seed=1)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    expected = torch.autograd.grad(tiny_loss(m, x), [m.w, m.b])

    def refused(*args: object, **kw: object) -> None:
        raise AssertionError("torch.autograd.grad called for plain tensors")

    monkeypatch.setattr(torch.autograd, "grad", refused)
    value, g = value_and_grad(tiny_loss, m, x)
    assert torch.equal(g.w, expected[0])
    assert torch.equal(g.b, expected[1])
    assert torch.equal(g.unused, torch.zeros(4))
    assert not value.requires_grad


class _Logged(torch.overrides.TorchFunctionMode):
    """A torch function mode that counts the calls it sees."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        return func(*args, **(kwargs or {}))


def test_value_and_grad_under_a_torch_function_mode_goes_through_autograd_grad(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m = Tiny.init(seed=1)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    _, plain = value_and_grad(tiny_loss, m, x)
    calls: list[object] = []
    grad = torch.autograd.grad

    def counted(*args: object, **kw: object) -> object:
        calls.append(args)
        return grad(*args, **kw)

    monkeypatch.setattr(torch.autograd, "grad", counted)
    mode = _Logged()
    with mode:
        _, seen = value_and_grad(tiny_loss, m, x)
    assert calls
    assert mode.calls > 0
    _same(seen, plain)


def test_value_and_grad_of_a_complex_loss_is_refused_as_autograd_refuses() -> None:
    m = Tiny.init(seed=1)
    with pytest.raises(RuntimeError):
        value_and_grad(lambda model: model.w.sum().to(torch.complex64), m)


def _runtime_calls(run: Callable[[], object]) -> list[str]:
    """The Python-level calls `run` makes outside the test's own code: the runtime's and
    torch's Python, one entry per call (a generator counts each time it resumes)."""
    here = __file__
    seen: list[str] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_filename not in (here, nets.__file__):
            seen.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return [call for call in seen if not call.endswith("module.py:__getattr__")]


def test_value_and_grad_makes_the_same_few_python_calls_whatever_the_model() -> None:
    # Per call, value_and_grad's own Python is a fixed cost on top of the loss's torch ops:
    # it must not grow with the number of params (a generator or comprehension per param)
    # nor go through a context manager's Python to turn gradients on.
    tiny, x = Tiny.init(seed=1), torch.randn(5, 3)
    mlp = nets.Mlp.init(seed=1)
    features = torch.randn(2, nets.D)

    def small_loss(m: Tiny, x: torch.Tensor) -> torch.Tensor:
        return (x @ m.w + m.b).square().mean()

    def mlp_loss(m: nets.Mlp, x: torch.Tensor) -> torch.Tensor:
        return nets.forward(m, x).mean()

    value_and_grad(small_loss, tiny, x)
    value_and_grad(mlp_loss, mlp, features)
    small = _runtime_calls(lambda: value_and_grad(small_loss, tiny, x))
    larger = _runtime_calls(lambda: value_and_grad(mlp_loss, mlp, features))
    ours = [call for call in larger if "/shapescript/" in call]
    torch_python = [call for call in larger if "/shapescript/" not in call]
    assert len(small) == len(larger), (small, larger)
    assert not any("grad_mode" in call or "_contextlib" in call for call in larger), larger
    assert len(ours) <= 4, ours
    # torch's own: the engine's entry (`_engine_run_backward`) and its logging level check.
    assert len(torch_python) <= 2, torch_python
