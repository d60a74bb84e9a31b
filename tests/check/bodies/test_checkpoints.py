"""`save` and `load` in the checker: each diagnostic by code and span, the types `load`
gives, and that what it loads can be changed with mut."""

from __future__ import annotations

import pytest

from shapescript.check.algebra.types import INT, ModelType, OptimizerType, SeveralType
from shapescript.check.checker import check_text
from shapescript.syntax import ast

HEADER = """\
dim D = 4

logs StepLogs:
    loss: [] mean

model Mlp:
    param w: [D D] = zeros

model Other:
    param w: [D] = zeros

fn train(mut m: Mlp, mut opt: AdamW[Mlp], g: Grad[Mlp]):
    update(mut m, mut opt, g)

"""


def problems(*lines: str) -> list[tuple[str, str]]:
    """Each diagnostic's code and the source text its span covers."""
    text = HEADER + "\n".join(lines) + "\n"
    checked = check_text(text, "ckpt.ss")
    return [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]


PARAMS = (
    "fn f(m: Mlp, opt: AdamW[Mlp], g: Grad[Mlp], x: [b D], n: int, r: StepLogs, "
    "sink: LogSink, mode: Mode):"
)


def in_f(*lines: str) -> list[tuple[str, str]]:
    """Problems of lines in the body of a function with a parameter of each kind."""
    return problems(PARAMS, *lines)


# ---------------------------------------------------------------------- save


def test_save_takes_models_optimizer_state_and_host_scalars() -> None:
    assert in_f('    save("ckpt.pt", m, opt, n, n + 1, 0.5, true)') == []


def test_save_takes_a_python_path() -> None:
    text = ["import python os", "fn f(m: Mlp):", '    save(os.path.join("a", "b"), m)']
    assert problems(*text) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("x", [("E1601", "x")]),
        ("g", [("E1601", "g")]),
        ("mode", [("E1601", "mode")]),
        ("r", [("E1601", "r")]),
        ("sink", [("E1601", "sink")]),
        ('"text"', [("E1601", '"text"')]),
        ("sum(x)", [("E1601", "sum(x)")]),
        ("cosine(0.1, 10)", [("E1601", "cosine(0.1, 10)")]),
        ("value_and_grad(loss, m, x)", [("E1601", "value_and_grad(loss, m, x)")]),
    ],
)
def test_save_of_what_a_checkpoint_cant_hold_is_e1601(value: str, expected) -> None:
    lines = [
        "fn loss(m: Mlp, x: [b D]) -> [] = sum(x @ m.w)",
        PARAMS,
        f'    save("ckpt.pt", m, {value})',
    ]
    assert problems(*lines) == expected


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("save(m)", [("E1603", "m")]),
        ("save(n, m)", [("E1603", "n")]),
        ("save(x, m)", [("E1603", "x")]),
        ('save(path="ckpt.pt", m)', [("E1603", 'path="ckpt.pt"')]),
        ('save(m, path="ckpt.pt")', [("E1603", 'path="ckpt.pt"')]),
        ('save("ckpt.pt")', [("E0406", 'save("ckpt.pt")')]),
        ("save()", [("E0406", "save()")]),
        ('save("ckpt.pt", model=m)', [("E0406", "model=m")]),
        ('save("ckpt.pt", mut m)', [("E1101", "mut m")]),
    ],
)
def test_save_path_and_arguments(call: str, expected) -> None:
    assert in_f(f"    {call}") == expected


# ---------------------------------------------------------------------- load


def _types_of_load(text: str):
    checked = check_text(HEADER + text, "ckpt.ss")
    assert checked.diagnostics == []
    item = next(i for i in checked.items if isinstance(i.item, ast.FnDecl) and i.item.name == "f")
    call = item.item.body[0].value
    return item.body.facts, call


def test_load_gives_one_value_per_type() -> None:
    facts, call = _types_of_load(
        'fn f():\n    m, opt, done = load("ckpt.pt", Mlp, AdamW[Mlp], int)\n'
    )
    assert facts.types[call.span] == SeveralType(
        (ModelType("Mlp"), OptimizerType("AdamW", "Mlp"), INT)
    )
    types = [facts.types[arg.value.span] for arg in call.args[1:]]
    assert types == [ModelType("Mlp"), OptimizerType("AdamW", "Mlp"), INT]


def test_load_of_one_type_gives_one_value() -> None:
    facts, call = _types_of_load('fn f():\n    m = load("ckpt.pt", Other)\n')
    assert facts.types[call.span] == ModelType("Other")


def test_load_of_every_type_it_reads() -> None:
    line = '    a, b, c, d, e = load("ckpt.pt", Mlp, SGD[Other], int, float, bool)'
    assert problems("fn f():", line) == []


def test_what_load_makes_can_be_changed_and_returned() -> None:
    lines = [
        "fn resume(g: Grad[Mlp]) -> Mlp:",
        '    m, opt, done = load("ckpt.pt", Mlp, AdamW[Mlp], int)',
        "    train(mut m, mut opt, g)",
        "    return m",
        "fn resume_one(g: Grad[Mlp]) -> Mlp:",
        '    m = load("ckpt.pt", Mlp)',
        "    opt = adamw(m, lr=0.1)",
        "    train(mut m, mut opt, g)",
        "    return m",
    ]
    assert problems(*lines) == []


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        ("m", [("E1602", "m")]),
        ("n", [("E1602", "n")]),
        ("StepLogs", [("E1602", "StepLogs")]),
        ("Grad[Mlp]", [("E1602", "Grad[Mlp]")]),
        ("Schedule", [("E1602", "Schedule")]),
        ("Mode", [("E1602", "Mode")]),
        ("LogSink", [("E1602", "LogSink")]),
        ("f32", [("E1602", "f32")]),
        ("Real", [("E1602", "Real")]),
        ("D", [("E1602", "D")]),
        ("train", [("E1602", "train")]),
        ("relu", [("E1602", "relu")]),
        ('"Mlp"', [("E1602", '"Mlp"')]),
        ("Mlp.init(seed=0)", [("E1602", "Mlp.init(seed=0)")]),
        ("Nosuch", [("E0301", "Nosuch")]),
        ("AdamW[Nosuch]", [("E0301", "Nosuch")]),
        ("AdamW", [("E0303", "AdamW")]),
        ("AdamW[D]", [("E0303", "AdamW[D]")]),
        ("SGD[StepLogs]", [("E0303", "SGD[StepLogs]")]),
        ("AdamW[m]", [("E0303", "AdamW[m]")]),
    ],
)
def test_load_of_what_isnt_a_type_it_reads(types: str, expected) -> None:
    assert in_f(f'    v = load("ckpt.pt", {types})') == expected


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ('load("ckpt.pt")', [("E0406", 'load("ckpt.pt")')]),
        ("load(Mlp)", [("E1603", "Mlp")]),
        ("load(m, Mlp)", [("E1603", "m")]),
        ('load(path="ckpt.pt", Mlp)', [("E1603", 'path="ckpt.pt"')]),
        ('load("ckpt.pt", type=Mlp)', [("E0406", "type=Mlp")]),
    ],
)
def test_load_path_and_arguments(call: str, expected) -> None:
    assert in_f(f"    v = {call}") == expected


def test_a_different_number_of_names_is_e0411() -> None:
    lines = ["fn f():", '    m, opt = load("ckpt.pt", Mlp, AdamW[Mlp], int)']
    assert problems(*lines) == [("E0411", "m, opt")]
    lines = ["fn f():", '    m = load("ckpt.pt", Mlp, int)']
    assert problems(*lines) == [("E0411", "m")]


def test_a_loaded_value_has_its_type() -> None:
    lines = ["fn f() -> Other:", '    return load("ckpt.pt", Mlp)']
    assert problems(*lines) == [("E0904", 'load("ckpt.pt", Mlp)')]


def test_load_and_save_inside_a_stage_are_e2403() -> None:
    lines = ["fn f(x: [n]) -> [n]:", '    return x |> map(v => load("a", int) + v)']
    assert [code for code, _ in problems(*lines)] == ["E2403"]
