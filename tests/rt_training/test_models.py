from __future__ import annotations

import copy
import hashlib

import pytest
import torch

from shapescript import ShapeError
from shapescript.rt.models import Field, Model, check_model, set_field
from tests.rt_training.nets import Mlp, Other, Tiny

WHERE = {"path": "mlp.ss", "line": 9, "column": 5, "function": "step", "parameter": "m"}


def _fields(*fields: Field) -> type[Model]:
    return type("Net", (Model,), {"_ss_fields": fields})


W = Field("w", "param", (4, 3), "f32", ("normal", {"mean": 0.0, "std": 1.0}))
V = Field("v", "param", (5,), "f32", ("uniform", {"lo": -0.1, "hi": 0.1}))
U = Field("u", "buffer", (2,), "f32", ("normal", {"mean": 1.0, "std": 2.0}))


def test_the_same_seed_gives_the_same_fields_and_another_seed_others() -> None:
    first, again, other = Mlp.init(seed=0), Mlp.init(seed=0), Mlp.init(seed=1)
    for name, value in first.state_dict().items():
        assert torch.equal(value, again.state_dict()[name])
    assert not torch.equal(first.w1, other.w1)


def test_adding_or_reordering_fields_leaves_the_others_unchanged() -> None:
    alone = _fields(W).init(seed=3)
    more = _fields(V, U, W).init(seed=3)
    reordered = _fields(U, W, V).init(seed=3)
    assert torch.equal(alone.w, more.w)
    assert torch.equal(alone.w, reordered.w)
    assert torch.equal(more.v, reordered.v)
    assert torch.equal(more.u, reordered.u)


def test_a_field_is_drawn_from_its_own_generator_seeded_from_sha256() -> None:
    seed = int.from_bytes(hashlib.sha256(b"5/w").digest()[:8], "big")
    expected = torch.empty(4, 3).normal_(0.0, 1.0, generator=torch.Generator().manual_seed(seed))
    assert torch.equal(_fields(W).init(seed=5).w, expected)


def test_an_f64_field_is_drawn_in_f64_and_others_in_f32_then_converted() -> None:
    wide = Field("w", "param", (4, 3), "f64", ("normal", {"mean": 0.0, "std": 1.0}))
    half = Field("w", "param", (4, 3), "bf16", ("normal", {"mean": 0.0, "std": 1.0}))
    seed = int.from_bytes(hashlib.sha256(b"2/w").digest()[:8], "big")
    drawn = torch.empty(4, 3, dtype=torch.float64)
    drawn.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(seed))
    made = _fields(wide).init(seed=2).w
    assert made.dtype == torch.float64
    assert torch.equal(made, drawn)
    narrow = _fields(half).init(seed=2).w
    assert narrow.dtype == torch.bfloat16
    assert torch.equal(narrow, _fields(W).init(seed=2).w.to(torch.bfloat16))


def test_initializers_fill_their_values_with_the_field_dtype() -> None:
    tiny = Tiny.init(seed=0)
    assert torch.equal(tiny.b, torch.full((2,), 0.5))
    assert tiny.count.dtype == torch.int64 and tiny.count.item() == 7
    assert tiny.unused.min() >= -1.0 and tiny.unused.max() < 1.0


def test_params_are_parameters_buffers_are_buffers_and_state_dict_holds_exactly_the_fields() -> (
    None
):
    m = Mlp.init(seed=0)
    assert list(m.state_dict()) == ["w1", "b1", "w2", "b2", "mean"]
    assert [name for name, _ in m.named_parameters()] == ["w1", "b1", "w2", "b2"]
    assert [name for name, _ in m.named_buffers()] == ["mean"]
    assert all(isinstance(p, torch.nn.Parameter) for p in m.parameters())
    assert m.w1.device.type == "cpu"


def test_a_model_refuses_attributes_it_does_not_declare() -> None:
    m = Mlp.init(seed=0)
    for value in (torch.zeros(3), torch.nn.Linear(2, 2), 3, "text"):
        with pytest.raises(AttributeError, match="declared fields"):
            m.extra = value
    with pytest.raises(AttributeError):
        m._hidden = torch.zeros(3)
    m.train(False)
    assert not m.training
    assert list(m.state_dict()) == ["w1", "b1", "w2", "b2", "mean"]


def test_a_model_is_made_with_init_and_a_keyword_int_seed() -> None:
    with pytest.raises(TypeError, match=r"Mlp\.init\(seed=\.\.\.\)"):
        Mlp()
    with pytest.raises(TypeError):
        Mlp.init(0)  # type: ignore[misc]
    for seed in (1.5, "1", True):
        with pytest.raises(TypeError, match="seed is an int"):
            Mlp.init(seed=seed)  # type: ignore[arg-type]


def test_a_bad_field_declaration_fails_when_the_class_is_made() -> None:
    for field in (
        Field("train", "param", (2,), "f32", ("zeros", {})),
        Field("training", "param", (2,), "f32", ("zeros", {})),
        Field("class", "param", (2,), "f32", ("zeros", {})),
        Field("_w", "param", (2,), "f32", ("zeros", {})),
        Field("w", "param", (2,), "i64", ("zeros", {})),
        Field("w", "buffer", (2,), "i64", ("normal", {})),
        Field("w", "param", (2,), "f32", ("xavier", {})),
    ):
        with pytest.raises(TypeError, match="field"):
            _fields(field)


def test_set_field_copies_in_place_and_keeps_the_parameter() -> None:
    m = Tiny.init(seed=0)
    param = m.w
    new = torch.arange(6.0).reshape(3, 2).requires_grad_()
    set_field(m, "w", new * 2)
    assert m.w is param
    assert isinstance(m.w, torch.nn.Parameter) and m.w.requires_grad
    assert torch.equal(m.w, torch.arange(6.0).reshape(3, 2) * 2)
    assert m.w.grad_fn is None
    set_field(m, "count", torch.tensor(9))
    assert m.count.item() == 9


def test_set_field_refuses_another_shape_or_dtype() -> None:
    m = Tiny.init(seed=0)
    with pytest.raises(ShapeError, match=r"\[2 3\] f32 to Tiny\.w, which is \[3 2\] f32"):
        set_field(m, "w", torch.zeros(2, 3))
    with pytest.raises(ShapeError, match="f64"):
        set_field(m, "w", torch.zeros(3, 2, dtype=torch.float64))
    with pytest.raises(AttributeError):
        set_field(m, "nothing", torch.zeros(1))


def test_check_model_names_the_parameter_and_line() -> None:
    m = Tiny.init(seed=0)
    check_model(m, Tiny, WHERE)
    with pytest.raises(ShapeError, match=r"mlp\.ss:9:5: in fn step, argument for parameter `m`"):
        check_model(Other.init(seed=0), Tiny, WHERE)
    with pytest.raises(ShapeError, match="expected a Tiny model, got Tensor"):
        check_model(torch.zeros(3), Tiny, WHERE)
    with torch.no_grad():
        m.b.data = torch.zeros(5)
    with pytest.raises(ShapeError, match=r"field b is \[5\] f32, not \[2\] f32"):
        check_model(m, Tiny, WHERE)


def test_making_a_model_leaves_the_global_random_state_alone() -> None:
    before = torch.get_rng_state()
    Mlp.init(seed=4)
    assert torch.equal(before, torch.get_rng_state())


def test_a_model_works_with_pytorch_code_that_copies_moves_and_prints_it() -> None:
    m = Tiny.init(seed=0)
    twin = copy.deepcopy(m)
    assert type(twin) is Tiny and torch.equal(twin.w, m.w) and twin.w is not m.w
    m.eval()
    m.to("cpu")
    m.load_state_dict(Tiny.init(seed=1).state_dict())
    assert torch.equal(m.w, Tiny.init(seed=1).w)
    assert repr(m) == "Tiny(param w: [3 2] f32, param b: [2] f32, param unused: [4] f32, " + (
        "buffer count: [] i64)"
    )


def test_the_runtime_modules_are_reachable_from_shapescript_rt() -> None:
    import shapescript.rt as rt

    assert rt.models.Model is Model
    assert callable(rt.optimizers.adamw) and callable(rt.gradients.value_and_grad)
    assert rt.randomness.Eval.training is False
