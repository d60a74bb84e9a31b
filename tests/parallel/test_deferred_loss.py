"""A loss's all-reduce sent with its gradients: a function whose result is a reduction over
the batch is differentiated from each worker's own numerator, and the loss and gradients
come out as with every reduction made at once (checked on a process group of one)."""

from __future__ import annotations

import pytest
import torch

from shapescript.rt import devices, gradients, padding
from shapescript.rt.parallel import collectives, deferral
from tests.parallel.programs import compiled

pytestmark = pytest.mark.usefixtures("group_of_one")


@pytest.fixture
def on_a_worker(monkeypatch):
    monkeypatch.setattr(gradients, "combine", collectives.combine_grads)
    monkeypatch.setattr(gradients, "seeded", collectives.seeded)
    monkeypatch.setattr(gradients, "deferral", deferral)
    monkeypatch.setattr(deferral, "_refused", set())
    monkeypatch.setattr(collectives, "_share", (5, 5))


@pytest.fixture(scope="module")
def lin(tmp_path_factory):
    text = "devices cpu\n\ndim D = 4\ndim C = 3\nmodel Lin:\n    param w: [D C] = normal(std=1.0)\n"
    yield compiled(text, tmp_path_factory.mktemp("lin") / "lin.ss").Lin
    # Leave no devices declared for the tests that run after these in this process.
    devices._reset_for_tests()


def _x() -> torch.Tensor:
    return torch.arange(20.0).reshape(5, 4) / 10


def _labels() -> torch.Tensor:
    return torch.tensor([0, 2, 1, 1, 0])


def _ce(m, x, y):
    keep = torch.tensor([True, True, True, False, True])
    return padding.all_cross_entropy(x @ m.w, y, -1, {"b": keep}, ((0, "b"),), "t.ss:3:5")


def _mean(m, x, y):
    return collectives.all_mean(((x @ m.w) ** 2).mean(), "t.ss:4:5")


def _twice(m, x, y):
    return _ce(m, x, y) * 2


def _plain(f, m, x, y):
    """What one device gives: every reduction made at once."""
    with torch.enable_grad():
        value = f(m, x, y)
        (grad,) = torch.autograd.grad(value, [m.w])
    return value.detach(), grad


@pytest.mark.usefixtures("on_a_worker")
@pytest.mark.parametrize("f", [_ce, _mean], ids=["cross_entropy", "mean"])
def test_a_loss_that_is_a_reduction_is_sent_with_the_gradients(f, lin, monkeypatch) -> None:
    m = lin.init(seed=0)
    sent = []
    combine = deferral.combine
    monkeypatch.setattr(deferral, "combine", lambda *a: sent.append(a) or combine(*a))
    value, grad = gradients.value_and_grad(f, m, _x(), _labels())
    assert len(sent) == 1
    expected_value, expected_grad = _plain(f, m, _x(), _labels())
    assert torch.allclose(value, expected_value)
    assert torch.allclose(grad["w"], expected_grad)


@pytest.mark.usefixtures("on_a_worker")
def test_a_loss_computed_from_a_reduction_runs_again_with_every_reduction_made(lin, monkeypatch):
    m = lin.init(seed=0)
    sent = []
    monkeypatch.setattr(deferral, "combine", lambda *a: sent.append(a))
    value, grad = gradients.value_and_grad(_twice, m, _x(), _labels())
    assert not sent and _twice in deferral._refused
    expected_value, expected_grad = _plain(_twice, m, _x(), _labels())
    assert torch.allclose(value, expected_value)
    assert torch.allclose(grad["w"], expected_grad)
    # Never tried again.
    gradients.value_and_grad(_twice, m, _x(), _labels())
    assert not sent


def test_outside_value_and_grad_a_reduction_is_made_at_once() -> None:
    x = torch.ones(3, requires_grad=True)
    assert deferral.stand_in(x.sum(), None, None) is None
    assert float(collectives.all_sum(x.sum()).detach()) == 3.0


@pytest.mark.usefixtures("on_a_worker")
def test_a_value_and_grad_inside_the_function_keeps_the_outer_one_s_reductions(lin, monkeypatch):
    m = lin.init(seed=0)

    def outer(m, x, y):
        first = _ce(m, x, y)
        inner, _ = gradients.value_and_grad(_mean, m, x, y)
        return first * inner.detach()

    value, grad = gradients.value_and_grad(outer, m, _x(), _labels())
    # `outer` computes more from its cross_entropy: it ran again, reducing at once.
    assert outer in deferral._refused
    expected_value, expected_grad = _plain(outer, m, _x(), _labels())
    assert torch.allclose(value, expected_value)
    assert torch.allclose(grad["w"], expected_grad)
