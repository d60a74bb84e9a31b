"""save and load: the file format, round trips, and the errors for files that don't fit."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest
import torch

import shapescript
from shapescript.rt.checkpoints import SGD, AdamW, OptimizerType, load, save
from shapescript.rt.errors import ShapeError
from shapescript.rt.gradients import Grad, value_and_grad
from shapescript.rt.models import Field, Model, fields_of, params_of
from shapescript.rt.optimizers import adamw, cosine, sgd, update, warmup
from tests.rt_training.nets import Mlp, Other, Tiny, tiny_loss
from tests.snapshot import assert_matches_snapshot

HERE = Path(__file__).parent


def _trained_tiny(steps: int = 3, **options: Any) -> tuple[Tiny, Any]:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=warmup(2, cosine(0.1, 10)), **options)
    _train(m, opt, steps)
    return m, opt


def _train(m: Tiny, opt: Any, steps: int, first: int = 0) -> None:
    for step in range(first, first + steps):
        x = torch.full((5, 3), 0.1 * (step + 1))
        _value, g = value_and_grad(tiny_loss, m, x)
        update(m, opt, g)


def _assert_same_fields(first: Model, second: Model) -> None:
    mine, theirs = fields_of(first), fields_of(second)
    assert list(mine) == list(theirs)
    for name in mine:
        assert torch.equal(mine[name], theirs[name]), name
        assert mine[name].dtype == theirs[name].dtype


def _torch_state(opt: Any) -> dict[str, Any]:
    return opt.torch.state_dict()


def _assert_same_torch_state(first: Any, second: Any) -> None:
    mine, theirs = _torch_state(first), _torch_state(second)
    # A group's lr is set from the schedule before each update, so it isn't state.
    assert [{**group, "lr": None} for group in mine["param_groups"]] == [
        {**group, "lr": None} for group in theirs["param_groups"]
    ]
    assert mine["state"].keys() == theirs["state"].keys()
    for index, entry in mine["state"].items():
        assert entry.keys() == theirs["state"][index].keys()
        for key, value in entry.items():
            assert torch.equal(value, theirs["state"][index][key]), (index, key)


def test_a_model_adamw_state_and_an_int_round_trip(tmp_path: Path) -> None:
    m, opt = _trained_tiny()
    path = tmp_path / "ckpt.pt"
    save(path, m, opt, 3)
    m2, opt2, done = load(path, Tiny, AdamW[Tiny], int)
    assert type(m2) is Tiny and m2 is not m
    _assert_same_fields(m, m2)
    assert all(isinstance(p, torch.nn.Parameter) and p.requires_grad for p in params_of(m2))
    assert isinstance(m2.count, torch.Tensor) and not isinstance(m2.count, torch.nn.Parameter)
    assert opt2.steps == 3 and opt2.lr == opt.lr and opt2.name == "adamw"
    assert all(a is b for a, b in zip(opt2._params, params_of(m2), strict=True))
    _assert_same_torch_state(opt, opt2)
    assert done == 3 and type(done) is int
    assert list(os.listdir(tmp_path)) == ["ckpt.pt"]


def test_sgd_state_keeps_its_hyperparameters_and_momentum(tmp_path: Path) -> None:
    m = Tiny.init(seed=1)
    opt = sgd(m, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=False)
    _train(m, opt, 2)
    save(tmp_path / "sgd.pt", opt, m)
    opt2, m2 = load(tmp_path / "sgd.pt", SGD[Tiny], Tiny)
    group = opt2.torch.param_groups[0]
    assert (group["momentum"], group["dampening"], group["weight_decay"]) == (0.9, 0.1, 0.01)
    assert opt2.lr == 0.05 and opt2.steps == 2
    assert all(a is b for a, b in zip(opt2._params, params_of(m2), strict=True))
    _assert_same_torch_state(opt, opt2)


def test_a_schedule_carries_on_from_the_saved_update_count(tmp_path: Path) -> None:
    m, opt = _trained_tiny(steps=4)
    save(tmp_path / "c.pt", m, opt)
    _m2, opt2 = load(tmp_path / "c.pt", Tiny, AdamW[Tiny])
    assert opt2.lr == warmup(2, cosine(0.1, 10))
    assert opt2.torch.param_groups[0]["lr"] == opt2.lr(4)
    hyper = {k: v for k, v in opt2.torch.param_groups[0].items() if k not in ("params", "lr")}
    assert hyper == {
        k: v for k, v in opt.torch.param_groups[0].items() if k not in ("params", "lr")
    }


def test_one_type_gives_one_value_and_an_int_loads_as_a_float(tmp_path: Path) -> None:
    save(tmp_path / "n.pt", 7)
    value = load(tmp_path / "n.pt", float)
    assert value == 7.0 and type(value) is float
    save(tmp_path / "b.pt", True, 2.5)
    assert load(tmp_path / "b.pt", bool, float) == (True, 2.5)


def test_state_saved_without_its_model_moves_to_the_model_update_is_given(tmp_path: Path) -> None:
    m, opt = _trained_tiny(steps=2)
    save(tmp_path / "m.pt", m)
    save(tmp_path / "opt.pt", opt)
    m2 = load(tmp_path / "m.pt", Tiny)
    opt2 = load(tmp_path / "opt.pt", AdamW[Tiny])
    assert not any(a is b for a, b in zip(opt2._params, params_of(m2), strict=True))
    _train(m, opt, 2, first=2)
    _train(m2, opt2, 2, first=2)
    _assert_same_fields(m, m2)
    _assert_same_torch_state(opt, opt2)


def test_the_file_is_the_documented_dict(tmp_path: Path) -> None:
    m, opt = _trained_tiny(steps=1)
    save(tmp_path / "c.pt", 2, m, opt, 0.5, False)
    data = torch.load(tmp_path / "c.pt", weights_only=True)
    assert data.keys() == {"format", "version", "values", "checksums"}
    assert (data["format"], data["version"]) == ("shapescript.checkpoint", 2)
    scalar, model, state, number, flag = data["values"]
    assert scalar == {"kind": "int", "value": 2}
    assert number == {"kind": "float", "value": 0.5}
    assert flag == {"kind": "bool", "value": False}
    assert model.keys() == {"kind", "type", "fields", "tensors"}
    assert (model["kind"], model["type"]) == ("model", "Tiny")
    assert model["fields"] == [
        {"name": "w", "kind": "param", "shape": [3, 2], "dtype": "float32"},
        {"name": "b", "kind": "param", "shape": [2], "dtype": "float32"},
        {"name": "unused", "kind": "param", "shape": [4], "dtype": "float32"},
        {"name": "count", "kind": "buffer", "shape": [], "dtype": "int64"},
    ]
    assert list(model["tensors"]) == ["w", "b", "unused", "count"]
    assert type(model["tensors"]["w"]) is torch.Tensor
    assert state.keys() == {"kind", "type", "optimizer", "model", "fields", "of", "state"}
    assert (state["type"], state["optimizer"], state["model"], state["of"]) == (
        "AdamW[Tiny]",
        "adamw",
        "Tiny",
        1,
    )
    assert state["fields"] == model["fields"][:3]
    assert state["state"]["steps"] == 1
    assert state["state"]["lr"] == {
        "schedule": "warmup",
        "steps": 2,
        "then": {"schedule": "cosine", "peak": 0.1, "steps": 10, "end": 0.0},
    }


def mlp_class(hidden: int, *, extra: bool = False) -> type[Model]:
    """An `Mlp` of another hidden size (and, with `extra`, other fields)."""
    fields = [
        Field("w1", "param", (784, hidden), "f32", ("zeros", {})),
        Field("w2", "param", (hidden, 10), "f32", ("zeros", {})),
        Field("w3", "param", (10,), "f32", ("zeros", {})),
    ]
    if extra:
        fields = [
            Field("w1", "param", (784, hidden), "f16", ("zeros", {})),
            Field("w2", "buffer", (hidden, 10), "f32", ("zeros", {})),
            Field("b2", "param", (10,), "f32", ("zeros", {})),
        ]
    return type("Mlp", (Model,), {"_ss_fields": tuple(fields)})


def _mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *types: Any) -> str:
    monkeypatch.chdir(tmp_path)
    small = mlp_class(128)
    m = small.init(seed=0)
    save("ckpt.pt", m, adamw(m, lr=1e-3), 3)
    before = Path("ckpt.pt").read_bytes()
    with pytest.raises(ShapeError) as raised:
        load("ckpt.pt", *types, where="train.ss:9:20")
    assert Path("ckpt.pt").read_bytes() == before
    assert (raised.value.path, raised.value.line, raised.value.column) == ("train.ss", 9, 20)
    assert isinstance(raised.value, ValueError)
    return f"ShapeError: {raised.value}"


def test_a_file_of_other_shapes_lists_every_difference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = mlp_class(256)
    message = _mismatch(tmp_path, monkeypatch, big, AdamW[big], int)
    assert_matches_snapshot(message, HERE / "mismatch.expected")


def test_fields_the_file_lacks_or_adds_and_values_of_other_types_are_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = mlp_class(128, extra=True)
    message = _mismatch(tmp_path, monkeypatch, other, SGD[other], bool)
    assert_matches_snapshot(message, HERE / "mismatch_fields.expected")
    message = _mismatch(tmp_path, monkeypatch, other, AdamW[other], float)
    assert_matches_snapshot(message, HERE / "mismatch_state_fields.expected")


def test_another_number_of_values_names_both_lists(tmp_path: Path) -> None:
    m, opt = _trained_tiny(steps=1)
    path = tmp_path / "ckpt.pt"
    save(path, m, opt, 3)
    with pytest.raises(ShapeError) as raised:
        load(path, Tiny, AdamW[Tiny], where="train.ss:9:20")
    assert str(raised.value) == (
        f"train.ss:9:20: `{path}` holds 3 values (Tiny, AdamW[Tiny], int), "
        "but `load` was given 2 types (Tiny, AdamW[Tiny])"
    )
    save(path, 1)
    with pytest.raises(ShapeError, match=r"holds 1 value \(int\), but `load` was given 2 types"):
        load(path, int, int)


def test_a_truncated_file_is_a_shape_error(tmp_path: Path) -> None:
    m, opt = _trained_tiny(steps=1)
    path = tmp_path / "ckpt.pt"
    save(path, m, opt)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 30, 10):
        path.write_bytes(data[:cut])
        with pytest.raises(ShapeError, match="can't be loaded: it isn't a checkpoint save wrote"):
            load(path, Tiny, AdamW[Tiny], where="train.ss:3:5")


def test_a_file_save_didnt_write_is_a_shape_error(tmp_path: Path) -> None:
    path = tmp_path / "other.pt"
    path.write_text("epoch,loss\n1,0.5\n")
    with pytest.raises(ShapeError, match="`.*other.pt` can't be loaded"):
        load(path, int)
    torch.save({"w1": torch.zeros(3)}, path)
    with pytest.raises(ShapeError, match="isn't a ShapeScript checkpoint: it holds a dict"):
        load(path, int)
    torch.save([1, 2], path)
    with pytest.raises(ShapeError, match="isn't a ShapeScript checkpoint: it holds a list"):
        load(path, int)
    torch.save({"format": "shapescript.checkpoint", "version": 3, "values": []}, path)
    with pytest.raises(
        ShapeError, match="version 3 checkpoint; this shapescript reads versions 1 and 2"
    ):
        load(path, int)


def test_a_checkpoint_whose_contents_disagree_with_themselves_is_a_shape_error(
    tmp_path: Path,
) -> None:
    m, opt = _trained_tiny(steps=1)
    path = tmp_path / "c.pt"
    save(path, m, opt)
    data = torch.load(path, weights_only=True)
    data["values"][0]["tensors"]["w"] = torch.zeros(5)
    torch.save(data, path)
    with pytest.raises(ShapeError, match="isn't a checkpoint save wrote: value 1's tensor `w`"):
        load(path, Tiny, AdamW[Tiny])
    data = torch.load(tmp_path / "c.pt", weights_only=True)
    save(path, m, opt)
    data = torch.load(path, weights_only=True)
    data["values"][1]["of"] = 1
    torch.save(data, path)
    with pytest.raises(ShapeError, match="value 2 is bound to a value that isn't its model"):
        load(path, Tiny, AdamW[Tiny])


class Payload:
    """A pickle that would create a file if unpickling ran it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_loading_never_runs_code_from_the_file(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pt"
    checkpoint = {"format": "shapescript.checkpoint", "version": 1, "values": [Payload(marker)]}
    torch.save(checkpoint, path)
    with pytest.raises(ShapeError, match="holds Python objects other than tensors"):
        load(path, int)
    with path.open("wb") as file:
        pickle.dump(Payload(marker), file)
    with pytest.raises(ShapeError, match="can't be loaded"):
        load(path, int)
    assert not marker.exists()
    pickle.loads(pickle.dumps(Payload(marker)))
    assert marker.exists()


@pytest.mark.parametrize(
    ("value", "what"),
    [
        (torch.zeros(3), "a tensor"),
        ("epoch 3", "a str"),
        (None, "a NoneType"),
        (Tiny, "a type"),
    ],
)
def test_save_raises_type_error_for_what_a_checkpoint_cant_hold(
    tmp_path: Path, value: Any, what: str
) -> None:
    path = tmp_path / "c.pt"
    save(path, 1)
    before = path.read_bytes()
    with pytest.raises(TypeError) as raised:
        save(path, Tiny.init(seed=0), value, where="train.ss:12:5")
    assert str(raised.value).startswith(
        f"train.ss:12:5: save: value 2 is {what}, which a checkpoint can't hold"
    )
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["c.pt"]


def test_save_and_load_need_a_path_and_values_or_types(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="at least one value"):
        save(tmp_path / "c.pt")
    with pytest.raises(TypeError, match="the path is a string or a path, not int"):
        save(3, 1)
    save(tmp_path / "c.pt", 1)
    with pytest.raises(TypeError, match="at least one type"):
        load(tmp_path / "c.pt")


@pytest.mark.parametrize("declared", [Grad, "int", torch.Tensor, Model, str])
def test_load_raises_type_error_for_what_isnt_a_checkpoint_type(
    tmp_path: Path, declared: Any
) -> None:
    save(tmp_path / "c.pt", 1)
    with pytest.raises(TypeError, match="type 1 is .*, which a checkpoint can't hold"):
        load(tmp_path / "c.pt", declared)


def test_a_failed_write_leaves_the_previous_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.pt"
    save(path, 1)
    before = path.read_bytes()

    def fail(*args: Any, **kwargs: Any) -> None:
        args[1].write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", fail)
    with pytest.raises(OSError, match="disk full"):
        save(path, 2)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["c.pt"]


def test_called_from_python_errors_name_the_callers_line(tmp_path: Path) -> None:
    save(tmp_path / "c.pt", 1)
    with pytest.raises(ShapeError) as raised:
        load(tmp_path / "c.pt", bool)  # the line the error names
    assert raised.value.path == __file__
    named = Path(__file__).read_text(encoding="utf-8").splitlines()[raised.value.line - 1]
    assert named.endswith("# the line the error names")


def test_optimizer_state_types_from_python() -> None:
    assert shapescript.AdamW[Mlp] == OptimizerType("AdamW", Mlp)
    assert shapescript.SGD[Mlp] != shapescript.AdamW[Mlp]
    assert shapescript.AdamW[Mlp].text == "AdamW[Mlp]"
    assert shapescript.save is save and shapescript.load is load
    with pytest.raises(TypeError, match="takes a compiled model class"):
        shapescript.AdamW[torch.nn.Linear]
    with pytest.raises(TypeError):
        shapescript.SGD[Model]


def test_a_model_of_another_name_is_another_type(tmp_path: Path) -> None:
    save(tmp_path / "c.pt", Other.init(seed=0))
    with pytest.raises(
        ShapeError, match="value 1: the file has `Other`, but `load` was given `Tiny`"
    ):
        load(tmp_path / "c.pt", Tiny)


def test_state_loads_into_a_model_whose_fields_are_declared_in_another_order(
    tmp_path: Path,
) -> None:
    m, opt = _trained_tiny(steps=2)
    save(tmp_path / "c.pt", m, opt)
    reordered = type("Tiny", (Model,), {"_ss_fields": tuple(reversed(Tiny._ss_fields))})
    m2, opt2 = load(tmp_path / "c.pt", reordered, AdamW[reordered])
    assert list(fields_of(m2)) == ["count", "unused", "b", "w"]
    _train(m, opt, 2, first=2)
    _train(m2, opt2, 2, first=2)
    for name, tensor in fields_of(m).items():
        assert torch.equal(fields_of(m2)[name], tensor), name


def test_fused_adamw_state_loads_fused_and_steps_on_as_if_never_saved(tmp_path: Path) -> None:
    m, opt = _trained_tiny(fused=True)
    twin, twin_opt = _trained_tiny(fused=True)
    path = tmp_path / "ckpt.pt"
    save(path, m, opt)
    m2, opt2 = load(path, Tiny, AdamW[Tiny])
    assert all(group["fused"] for group in opt2.torch.param_groups)
    _assert_same_torch_state(opt, opt2)
    _train(m2, opt2, 2, first=3)
    _train(twin, twin_opt, 2, first=3)
    _assert_same_fields(m2, twin)
