"""What the checker records about models for the compiler: fields, initializers, the field
each `m.w1` reads, and which params each function reads."""

from __future__ import annotations

from shapescript.check.algebra.types import GradType, ModelType, OptimizerType, TensorType
from shapescript.check.checker import check_source, check_text
from shapescript.check.declarations.model_info import Initializer
from shapescript.syntax.source import SourceFile

PROGRAM = """\
dim D = 4
dim Hd = 2 * D

## A model.
model Mlp:
    ## First layer.
    param w1: [D Hd] = normal(std=1 / D)
    param b1: [Hd] f64 = zeros
    param w2: [Hd D] = uniform(-0.5, 0.5)
    buffer steps: [] i64 = full(3)

fn forward(m: Mlp, x: [b D]) -> [b D] = (x @ m.w1) @ m.w2

fn loss(m: Mlp, x: [b D]) -> [] = sum(m |> forward(x))

fn through(m: Mlp, x: [b D]) -> [] = sum(x) + loss(m, x)

fn anything(m: Mlp) -> [] f64 = sum(m.b1) + 0 * sum(other(m))

extern fn other(m: Mlp) -> [D] = "mod.other"

fn step(mut m: Mlp, mut opt: AdamW[Mlp], x: [b D]):
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g)
"""


def test_models_record_fields_with_resolved_shapes_and_initializers() -> None:
    checked = check_text(PROGRAM, "m.ss")
    info = checked.models["Mlp"]
    assert info.ok and info.doc == "A model."
    assert list(info.fields) == ["w1", "b1", "w2", "steps"]
    w1 = info.fields["w1"]
    assert (w1.kind, w1.shape, w1.dtype, w1.doc) == ("param", (4, 8), "f32", "First layer.")
    assert w1.initializer == Initializer("normal", {"mean": 0.0, "std": 0.25})
    assert info.fields["b1"].dtype == "f64"
    assert info.fields["w2"].initializer == Initializer("uniform", {"lo": -0.5, "hi": 0.5})
    steps = info.fields["steps"]
    assert (steps.kind, steps.shape, steps.dtype) == ("buffer", (), "i64")
    assert steps.initializer == Initializer("full", {"value": 3})
    assert [field.name for field in info.params] == ["w1", "b1", "w2"]


def test_param_reads_follow_calls_and_pipes() -> None:
    reads = check_text(PROGRAM, "m.ss").param_reads
    assert reads["forward"] == {"m": ("w1", "w2")}
    assert reads["loss"] == {"m": ("w1", "w2")}
    assert reads["through"] == {"m": ("w1", "w2")}
    assert reads["anything"] == {"m": None}


def test_each_field_read_and_the_training_types_are_recorded() -> None:
    checked = check_text(PROGRAM, "m.ss")
    assert [d.code for d in checked.diagnostics] == ["W1101"]
    body = next(item for item in checked.items if getattr(item.item, "name", "") == "forward")
    assert sorted(body.body.facts.fields.values()) == [("Mlp", "w1"), ("Mlp", "w2")]
    step = next(item for item in checked.items if getattr(item.item, "name", "") == "step")
    types = list(step.body.facts.types.values())
    assert ModelType("Mlp") in types
    assert GradType("Mlp") in types
    assert OptimizerType("AdamW", "Mlp") in types
    offset = PROGRAM.index("m.w1") + 2
    assert isinstance(checked.type_at(offset), TensorType)
    assert checked.definition_at(offset).kind == "field"


def test_field_references_survive_an_edit_above_the_model() -> None:
    first = check_text(PROGRAM, "m.ss")
    edited = PROGRAM.replace("dim D = 4\n", "dim D = 4\n\n\n")
    second = check_source(SourceFile.from_text("m.ss", edited), first)
    offset = edited.index("m.w1") + 2
    symbol = second.definition_at(offset)
    assert symbol is not None and symbol.span.start == edited.index("w1: [D Hd]")
    assert len(second.references_to(symbol)) == 2


def test_reading_a_param_in_the_loss_clears_the_warning_after_an_edit() -> None:
    first = check_text(PROGRAM, "m.ss")
    assert [d.code for d in first.diagnostics] == ["W1101"]
    edited = PROGRAM.replace("sum(m |> forward(x))", "sum(m |> forward(x)) + sum(m.b1 to f32)")
    second = check_source(SourceFile.from_text("m.ss", edited), first)
    assert [d.code for d in second.diagnostics] == []
