"""The example a function's picture runs: small dims, values each type allows, and the
functions that aren't run. No torch here: the example is plain data."""

from __future__ import annotations

import math

import pytest

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from shapescript_lsp.pictures.examples import example, why_not_run

DOMAINS = """\
dim D = 768
dim C = 10

fn f(p: [n C] Prob over C, i: [n] Index[C], m: [n C] Mask, u: [n D] Unit, k: int,
     s: float, b: bool, w: [D C], lp: [C n] LogProb over C, bytes: [n D] u8) -> [n C]:
    return p
"""


def _checked(text: str, path: str = "example.ss"):
    return check(SourceFile.from_text(path, text))


def _arguments(text: str, name: str = "f"):
    built = example(_checked(text), name)
    assert built is not None
    return built, {argument.name: argument for argument in built.arguments}


def test_literal_dims_are_made_small_and_generic_axes_get_three():
    built, arguments = _arguments(DOMAINS)
    assert built.dims == {"D": 6, "C": 6}
    assert len(arguments["p"].value["tensor"]) == 3
    assert "D = 6" in built.code and "768" not in built.code


def test_each_domain_gets_values_it_allows():
    _, arguments = _arguments(DOMAINS)
    for row in arguments["p"].value["tensor"]:
        assert math.isclose(sum(row), 1.0) and all(value > 0 for value in row)
    columns = list(zip(*arguments["lp"].value["tensor"], strict=True))
    for column in columns:
        assert math.isclose(sum(math.exp(value) for value in column), 1.0)
    index = arguments["i"].value
    assert index["dtype"] == "int64" and all(0 <= value < 6 for value in index["tensor"])
    assert len(set(index["tensor"])) > 1
    mask = [value for row in arguments["m"].value["tensor"] for value in row]
    assert arguments["m"].value["dtype"] == "bool" and set(mask) == {True, False}
    unit = [value for row in arguments["u"].value["tensor"] for value in row]
    assert all(0 <= value <= 1 for value in unit)
    data = [value for row in arguments["bytes"].value["tensor"] for value in row]
    assert arguments["bytes"].value["dtype"] == "uint8" and all(0 <= v <= 255 for v in data)
    assert (arguments["k"].value, arguments["s"].value, arguments["b"].value) == (2, 1.0, True)


def test_a_parameter_whose_sizes_are_all_fixed_is_a_weight():
    _, arguments = _arguments(DOMAINS)
    assert arguments["w"].weight and not arguments["p"].weight


def test_the_example_is_the_same_each_time():
    assert _arguments(DOMAINS)[0].request() == _arguments(DOMAINS)[0].request()


def test_a_dim_size_that_doesnt_check_tries_the_next():
    text = (
        "dim D = 768\ndim H = 12\n"
        "fn f(x: [n D]) -> [n H (D/H)] = rearrange(x, n (h d) -> n h d, h=H)\n"
    )
    checked = _checked(text)
    if checked.errors:
        pytest.skip("the division isn't written this way")
    built = example(checked, "f")
    assert built is not None and built.dims["D"] % built.dims["H"] == 0


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("fn f(x: [n]) -> [n]:\n    print(x)\n    return x\n", "calls print"),
        (
            "fn g(x: [n]) -> [n]:\n    print(x)\n    return x\nfn f(x: [n]) -> [n] = g(x)\n",
            "`g` calls print",
        ),
        ('extern fn h(x: [n]) -> [n] = "numpy.h"\nfn f(x: [n]) -> [n] = h(x)\n', "extern fn h"),
        (
            "import python math\nfn f(x: [n]) -> [n]:\n    y = math.floor(2.5)\n    return x\n",
            "uses Python",
        ),
        ("fn f(x: [n]) -> [n] = y\n", "errors"),
    ],
)
def test_functions_the_reference_doesnt_allow_are_not_run(text, reason):
    found = why_not_run(_checked(text), "f")
    assert found is not None and reason in found
    assert example(_checked(text), "f") is None


def test_a_mut_parameter_isnt_run():
    text = """\
dim D = 4
model M:
    param w: [D D] = zeros

fn f(mut m: M, x: [n D]) -> [n D]:
    return x @ m.w
"""
    checked = _checked(text)
    assert not checked.errors
    assert why_not_run(checked, "f") == "`f` takes a mut parameter"


def test_a_torch_extern_is_run():
    text = 'extern fn erfc(x: [n]) -> [n] = "torch.special.erfc"\nfn f(x: [n]) -> [n] = erfc(x)\n'
    assert why_not_run(_checked(text), "f") is None


def test_a_file_that_imports_another_isnt_run(tmp_path):
    (tmp_path / "lib.ss").write_text("fn g(x: [n]) -> [n] = x\n")
    text = "import lib\nfn f(x: [n]) -> [n] = x\n"
    checked = _checked(text, str(tmp_path / "main.ss"))
    assert not checked.errors
    assert why_not_run(checked, "f") == "the file imports other .ss files"


MODEL = """\
dim D = 768
model Mlp:
    param w: [D D] = normal(std=0.02)
    buffer shift: [D] = zeros

fn f(m: Mlp, x: [n D]) -> [n D]:
    return x @ m.w + m.shift
"""


def test_a_model_parameter_is_made_by_init_with_seed_0_and_is_a_weight():
    built, arguments = _arguments(MODEL)
    assert arguments["m"].value == {"model": "Mlp", "seed": 0}
    assert arguments["m"].weight and not arguments["x"].weight
    assert "class Mlp(_ss_Model):" in built.code
    assert "('w', 'param', (6, 6), 'f32'" in built.code
    assert "can't be compiled yet" not in built.code
    assert built.changed() == (1, [1, 0])


def test_a_mode_parameter_is_eval():
    text = "fn f(x: [n], mode: Mode) -> [n] = dropout(x, 0.5, mode)\n"
    checked = _checked(text)
    assert not checked.errors, checked.errors
    assert why_not_run(checked, "f") is None
    built, arguments = _arguments(text)
    assert arguments["mode"].value == {"mode": "Eval"}
    assert "_ss_Eval = _ss_Mode(None)" in built.code and "_ss_rt" not in built.code


def test_a_function_with_a_default_after_its_tensors_is_run_with_its_default():
    text = "fn f(x: [n], k: float = 2.0, on: bool = true) -> [n] = x * k\n"
    assert why_not_run(_checked(text), "f") is None
    built, arguments = _arguments(text)
    assert list(arguments) == ["x"]
