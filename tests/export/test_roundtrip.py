"""Exported programs loaded back with torch alone give the compiled function's results."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript import cli
from shapescript.rt import devices
from tests.export.programs import ATTENTION, CONTROL, COUNTED, FILTERED, REFUSED, VALUES

pytestmark = pytest.mark.slow

#: Loads a program and runs it on saved inputs, in a Python that never imports shapescript.
LOAD = """
import sys
import torch

program = torch.export.load(sys.argv[1]).module()
inputs = torch.load(sys.argv[2])
outputs = [program(*args) for args in inputs]
assert not [name for name in sys.modules if name.split(".")[0] == "shapescript"]
torch.save(outputs, sys.argv[3])
"""

LOAD_AOTI = """
import sys
import torch

program = torch._inductor.aoti_load_package(sys.argv[1])
inputs = torch.load(sys.argv[2])
outputs = [program(*args) for args in inputs]
assert not [name for name in sys.modules if name.split(".")[0] == "shapescript"]
torch.save(outputs, sys.argv[3])
"""

#: (b, n) sizes: size 1 included, none of them the example sizes.
SIZES = [(1, 1), (3, 5), (2, 9)]

ROOT = Path(__file__).resolve().parents[2]

#: examples/gpt2.ss with small sizes: tracing on the CPU is slow.
SMALL_GPT2 = (
    (ROOT / "examples" / "gpt2.ss")
    .read_text()
    .replace("dim D = 64", "dim D = 16")
    .replace("dim V = 256", "dim V = 32")
    .replace("dim P = 128", "dim P = 16")
)


@pytest.fixture(autouse=True)
def cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    devices._reset_for_tests()
    yield
    devices._reset_for_tests()


def attention_inputs() -> list[tuple[torch.Tensor, ...]]:
    generator = torch.Generator().manual_seed(0)
    return [
        (
            torch.randn(b, n, 8, generator=generator),
            torch.randn(8, 24, generator=generator),
            torch.randn(8, 8, generator=generator),
        )
        for b, n in SIZES
    ]


def run_without_shapescript(script: str, program: Path, inputs: list) -> list[torch.Tensor]:
    torch.save(inputs, "inputs.pt")
    subprocess.run(
        [sys.executable, "-c", script, str(program), "inputs.pt", "outputs.pt"],
        check=True,
        timeout=600,
    )
    return torch.load("outputs.pt")


def expected(inputs: list) -> list[torch.Tensor]:
    module = shapescript.compile(ATTENTION, "attention.ss", devices="cpu")
    return [module.causal_attention(*args) for args in inputs]


def test_the_pt2_of_attention_runs_with_torch_alone_for_any_b_and_n() -> None:
    Path("attention.ss").write_text(ATTENTION)
    assert cli.main(["export", "attention.ss", "-o", "attention.pt2"]) == 0
    inputs = attention_inputs()
    got = run_without_shapescript(LOAD, Path("attention.pt2"), inputs)
    for have, want in zip(got, expected(inputs), strict=True):
        assert have.shape == want.shape
        torch.testing.assert_close(have, want, atol=1e-5, rtol=1e-5)


def test_export_from_python_returns_the_exported_program() -> None:
    Path("attention.ss").write_text(ATTENTION)
    program = shapescript.export("attention.ss", output="from_python.pt2")
    assert isinstance(program, torch.export.ExportedProgram)
    assert list(program.graph_signature.user_inputs) == ["x", "w_qkv", "w_o"]
    assert Path("from_python.pt2").is_file()
    args = attention_inputs()[0]
    torch.testing.assert_close(program.module()(*args), expected([args])[0])


def test_export_from_python_raises_for_a_missing_function() -> None:
    Path("attention.ss").write_text(ATTENTION)
    with pytest.raises(ValueError, match="no function `nope`"):
        shapescript.export("attention.ss", fn="nope")


def test_export_from_python_raises_shapescript_error_for_an_unexportable_function() -> None:
    Path("host.ss").write_text("fn shout(x: [n]) -> [n]:\n    print(x)\n    return x\n")
    with pytest.raises(shapescript.ShapeScriptError, match="E1704"):
        shapescript.export("host.ss", fn="shout")


@pytest.mark.skipif(
    not (shutil.which("c++") or shutil.which("g++")), reason="AOTInductor needs a C++ compiler"
)
def test_the_aoti_package_of_attention_runs_with_torch_alone() -> None:
    # In this process: the command's --aoti reaches the same step (tests/export/test_cli.py),
    # and a second Python importing torch only to compile would add to the slowest test.
    Path("attention.ss").write_text(ATTENTION)
    shapescript.export("attention.ss", output="attention.pt2", aoti=True)
    inputs = attention_inputs()
    got = run_without_shapescript(LOAD_AOTI, Path("attention.pt2"), inputs)
    for have, want in zip(got, expected(inputs), strict=True):
        torch.testing.assert_close(have, want, atol=1e-5, rtol=1e-5)


def test_loops_and_ifs_on_tensors_export_and_keep_their_results() -> None:
    Path("control.ss").write_text(CONTROL)
    program = shapescript.export("control.ss").module()
    compiled = shapescript.compile(CONTROL, "control.ss", devices="cpu")
    generator = torch.Generator().manual_seed(1)
    for n in (1, 2, 5):
        x = torch.randn(n, generator=generator)
        w = torch.randn(n, n, generator=generator) / n
        torch.testing.assert_close(program(x, w), compiled.f(x, w), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(program(-x, w), compiled.f(-x, w), atol=1e-5, rtol=1e-5)


def test_host_numbers_a_loop_or_an_if_assigns_are_usable_after_it() -> None:
    Path("counted.ss").write_text(COUNTED)
    program = shapescript.export("counted.ss").module()
    compiled = shapescript.compile(COUNTED, "counted.ss", devices="cpu")
    generator = torch.Generator().manual_seed(2)
    for n in (1, 2, 5):
        x = torch.randn(n, generator=generator).abs()
        w = torch.randn(n, n, generator=generator)
        for sign in (1, -1):
            want = compiled.counted(sign * x, w)
            torch.testing.assert_close(program(sign * x, w), want, atol=1e-5, rtol=1e-5)


def test_a_torch_error_while_tracing_is_exit_1_with_the_ss_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    Path("refused.ss").write_text(REFUSED)
    assert cli.main(["export", "refused.ss"]) == 1
    assert "refused.ss:5: error: torch.export failed" in capfd.readouterr().err
    assert not Path("refused.pt2").exists()


def test_value_checks_are_asserts_in_the_program_naming_the_ss_line() -> None:
    Path("values.ss").write_text(VALUES)
    program = shapescript.export("values.ss", value_checks="always").module()
    p = torch.softmax(torch.randn(3, 4), -1)
    assert program(p, torch.zeros(3, 4)).shape == (3, 4)
    with pytest.raises(RuntimeError, match="values.ss:3:17: .*parameter `p`"):
        program(torch.full((3, 4), 0.5), torch.zeros(3, 4))
    with pytest.raises(RuntimeError, match="values.ss:5:12: .*`as` claimed"):
        program(p, torch.full((3, 4), 5.0))


def test_a_filter_exports_with_a_data_dependent_size() -> None:
    Path("filtered.ss").write_text(FILTERED)
    program = shapescript.export("filtered.ss").module()
    for rows in (1, 6):
        x = torch.randn(rows, 4)
        want = x[x.sum(1) > 0].sum()
        torch.testing.assert_close(program(x), want)


def test_the_pt2_of_gpt2s_forward_holds_the_model_and_runs_with_torch_alone() -> None:
    assert "dim V = 32" in SMALL_GPT2
    Path("gpt2.ss").write_text(SMALL_GPT2)
    source = shapescript.compile(SMALL_GPT2, "gpt2.ss", devices="cpu")
    model = source.Gpt2.init(seed=3)
    shapescript.save("ckpt.pt", model)
    program = shapescript.export("gpt2.ss", fn="forward", output="gpt2.pt2", weights="ckpt.pt")
    assert list(program.graph_signature.user_inputs) == ["ids", "pos"]
    assert "m.wte" in program.graph_signature.parameters
    generator = torch.Generator().manual_seed(0)
    inputs = [
        (torch.randint(0, 32, (b, n), generator=generator), torch.arange(n).repeat(b, 1))
        for b, n in SIZES
    ]
    got = run_without_shapescript(LOAD, Path("gpt2.pt2"), inputs)
    with torch.no_grad():
        want = [source.forward(model, *args) for args in inputs]
    other = source.forward(source.Gpt2.init(seed=0), *inputs[1])
    assert not torch.allclose(other, want[1])  # so the weights are the checkpoint's
    for have, expect in zip(got, want, strict=True):
        assert have.shape == expect.shape
        torch.testing.assert_close(have, expect, atol=1e-5, rtol=1e-5)


#: A forward pass with dropout, written once for training and inference.
DROPPED = """dim D = 8

export fn f(x: [b D], w: [D D], mode: Mode) -> [b D]:
    return x @ w |> dropout(0.5, mode) |> relu
"""


def test_an_export_fn_with_a_mode_exports_with_dropout_off() -> None:
    Path("dropped.ss").write_text(DROPPED)
    program = shapescript.export("dropped.ss", output="dropped.pt2")
    assert list(program.graph_signature.user_inputs) == ["x", "w"]
    x, w = torch.randn(3, 8), torch.randn(8, 8)
    torch.testing.assert_close(program.module()(x, w), torch.relu(x @ w))
    from shapescript.analysis import check
    from shapescript.export.spec import describe, export_spec
    from shapescript.syntax.source import SourceFile

    checked = check(SourceFile.from_text("dropped.ss", DROPPED))
    assert not checked.errors, [diag.message for diag in checked.errors]
    assert "- `mode`: Eval (dropout off)" in describe(export_spec(checked, "f"))


def test_e1705_for_a_model_or_a_shapeless_type_gives_no_hint_about_defaults() -> None:
    from shapescript.analysis import check
    from shapescript.syntax.source import SourceFile

    text = "dim D = 4\n\nexport fn f(x: [D], y: Real) -> [D] = x\n"
    found = [d for d in check(SourceFile.from_text("e.ss", text)).errors if d.code == "E1705"]
    assert len(found) == 1 and "default" not in (found[0].help or "")
    text = "dim D = 4\n\nexport fn f(x: [D], k: int) -> [D] = x\n"
    found = [d for d in check(SourceFile.from_text("e.ss", text)).errors if d.code == "E1705"]
    assert len(found) == 1 and "default" in (found[0].help or "")


def test_an_as_that_bounds_the_length_is_kept_in_the_pt2() -> None:
    # Positions sliced from a 32-row table by n: `as [n D]` holds only for n <= 32.
    from tests.export.test_hf_cli import POSITIONS_FROM_N

    text = POSITIONS_FROM_N.replace("dim P = 128", "dim P = 32")
    Path("lm.ss").write_text(text)
    program = shapescript.export("lm.ss", fn="forward", output="lm.pt2")
    module = torch.export.load("lm.pt2").module()
    assert module(torch.zeros((1, 32), dtype=torch.long)).shape == (1, 32, 256)
    assert program.module()(torch.zeros((2, 5), dtype=torch.long)).shape == (2, 5, 256)
    with pytest.raises(Exception, match="32"):
        module(torch.zeros((1, 40), dtype=torch.long))
