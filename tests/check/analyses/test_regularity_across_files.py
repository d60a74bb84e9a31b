"""Regularity beyond the file: calls of another `.ss` file's functions use that file's
summaries (with the operation's file and line in E3001), extern fns and Python calls get a
class from what they call (a known torch function, or the extern's own `regularity:` doc
line), and anything else is counted as discontinuous."""

from __future__ import annotations

import re
from pathlib import Path

from shapescript.check.analyses.regularity import analyse_checked
from shapescript.check.analyses.regularity_externs import PYTHON_CLASSES
from shapescript.check.analyses.regularity_operations import (
    DISCONTINUOUS,
    DISCONTINUOUS_OPERATIONS,
    PIECEWISE,
    PIECEWISE_OPERATIONS,
    SMOOTH,
)
from shapescript.check.checker import check_source, check_text
from shapescript.check.declarations.import_session import clear_cache
from shapescript.check.declarations.prelude import load_prelude
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.regularity_hover import regularity_line

LIB = """\
dim C = 3

## The position of the best score, as a float.
fn hard_pick(h: [b C]) -> [b] = argmax(h, over=C) to f32

fn soft(h: [b C]) -> [b C] = softmax(h, over=C)

fn kinked(h: [b C]) -> [b C] = h |> relu
"""

MAIN = """\
import lib

dim D = 4

model Net:
    param w: [D lib.C] = zeros

fn loss(m: Net, x: [b D]) -> [] = mean(lib.{callee}(x @ m.w))

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    return g
"""


def _files(tmp_path: Path, callee: str, lib: str = LIB) -> tuple[str, str]:
    (tmp_path / "lib.ss").write_text(lib)
    main = MAIN.replace("{callee}", callee)
    path = tmp_path / "main.ss"
    path.write_text(main)
    return main, str(path)


def _errors(checked) -> list[str]:
    return [d.code for d in checked.diagnostics if d.code.startswith("E")]


def test_a_loss_through_an_imported_argmax_is_refused_with_its_file_and_line(tmp_path):
    clear_cache()
    text, path = _files(tmp_path, "hard_pick")
    checked = check_text(text, path)
    (error,) = [d for d in checked.diagnostics if d.code == "E3001"]
    assert "`argmax`" in error.message
    assert "line 4 of lib.ss" in error.message
    (note,) = error.notes
    assert re.search(
        r"`m` \(line \d+\) → `m.w` \(line 8\) → `lib.hard_pick` \(line 8\) → .*"
        r"`argmax` \(line 4 of lib.ss\)",
        note,
    ), note
    (secondary,) = error.secondary
    assert text[secondary.span.start : secondary.span.end] == "lib.hard_pick"
    assert "softmax" in (error.help or "")


def test_an_imported_smooth_function_is_differentiated(tmp_path):
    clear_cache()
    text, path = _files(tmp_path, "soft")
    assert _errors(check_text(text, path)) == []


def test_an_imported_piecewise_smooth_function_is_differentiated(tmp_path):
    clear_cache()
    text, path = _files(tmp_path, "kinked")
    checked = check_text(text, path)
    assert _errors(checked) == []
    summaries = analyse_checked(checked, ["loss"]).summaries
    assert summaries["loss"].results[0].grade == PIECEWISE


def test_an_edit_of_the_imported_file_updates_the_importer(tmp_path):
    clear_cache()
    text, path = _files(tmp_path, "kinked")
    first = check_source(SourceFile.from_text(path, text))
    assert _errors(first) == []
    (tmp_path / "lib.ss").write_text(LIB.replace("h |> relu", "h |> round"))
    again = check_source(SourceFile.from_text(path, text), first)
    (error,) = [d for d in again.diagnostics if d.code == "E3001"]
    assert "`round` at line 8 of lib.ss" in error.message
    (tmp_path / "lib.ss").write_text(LIB)
    fixed = check_source(SourceFile.from_text(path, text), again)
    assert _errors(fixed) == []


def test_a_function_of_the_models_file_found_by_its_model_is_followed(tmp_path):
    clear_cache()
    (tmp_path / "net.ss").write_text(
        "dim D = 4\ndim C = 3\n\nmodel Net:\n    param w: [D C] = zeros\n\n"
        "fn loss(m: Net, x: [b D]) -> [] = mean(argmax(x @ m.w, over=C) to f32)\n"
    )
    main = (
        "import net\n\n"
        "fn step(m: net.Net, x: [b net.D]) -> Grad[net.Net]:\n"
        "    l, g = value_and_grad(net.loss, m, x)\n"
        "    return g\n"
    )
    checked = check_text(main, str(tmp_path / "main.ss"))
    (error,) = [d for d in checked.diagnostics if d.code == "E3001"]
    assert "line 7 of net.ss" in error.message
    # `loss(m, x)` named without the file: found next to the model, in net.ss.
    found_by_model = (
        "import net\n\n"
        "fn mine(m: net.Net, x: [b net.D]) -> [] = loss(m, x) + 1.0\n\n"
        "fn step(m: net.Net, x: [b net.D]) -> Grad[net.Net]:\n"
        "    l, g = value_and_grad(mine, m, x)\n"
        "    return g\n"
    )
    checked = check_text(found_by_model, str(tmp_path / "main.ss"))
    (error,) = [d for d in checked.diagnostics if d.code == "E3001"]
    assert "`argmax` at line 7 of net.ss" in error.message


def test_the_hover_of_a_caller_gives_the_imported_functions_class(tmp_path):
    clear_cache()
    text, path = _files(tmp_path, "kinked")
    line = regularity_line(check_text(text, path), "loss")
    assert line.startswith("Regularity: piecewise-smooth in `m` (`relu`, line 8 of lib.ss)")
    text, path = _files(tmp_path, "hard_pick")
    line = regularity_line(check_text(text, path), "loss")
    assert line.startswith("Regularity: discontinuous in `m` (`argmax`, line 4 of lib.ss)")


# ---------------------------------------------------------------------- extern fns

EXTERN = """\
dim D = 4
dim C = 3

model Net:
    param w: [D C] = zeros

{declaration}

fn loss(m: Net, x: [b D]) -> [] = mean(f(x @ m.w))

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    return g
"""


def _extern(declaration: str):
    checked = check_text(EXTERN.replace("{declaration}", declaration))
    grade = analyse_checked(checked, ["loss"]).summaries["loss"].results[0].grade
    return checked, grade


def test_an_extern_fn_of_a_known_smooth_torch_function_is_smooth():
    checked, grade = _extern('extern fn f(x: [b C]) -> [b C] = "torch.nn.functional.mish"')
    assert _errors(checked) == []
    assert grade == SMOOTH


def test_an_extern_fn_of_a_known_kinked_torch_function_is_piecewise_smooth():
    checked, grade = _extern('extern fn f(x: [b C]) -> [b C] = "torch.nn.functional.relu6"')
    assert _errors(checked) == []
    assert grade == PIECEWISE


def test_an_unknown_extern_fn_is_discontinuous_and_the_help_says_how_to_declare_it():
    checked, grade = _extern('extern fn f(x: [b C]) -> [b C] = "mylib.ops.wobble"')
    assert grade == DISCONTINUOUS
    (error,) = [d for d in checked.diagnostics if d.code == "E3001"]
    assert "`f`" in error.message and "mylib.ops.wobble" in error.message
    assert "## regularity: smooth" in (error.help or "")


def test_an_extern_fn_declares_its_class_in_its_doc_comment():
    declared = (
        "## A smooth wobble.\n## regularity: smooth\n"
        'extern fn f(x: [b C]) -> [b C] = "mylib.ops.wobble"'
    )
    checked, grade = _extern(declared)
    assert _errors(checked) == []
    assert grade == SMOOTH
    kinked = '## regularity: piecewise-smooth\nextern fn f(x: [b C]) -> [b C] = "mylib.ops.w"'
    assert _extern(kinked)[1] == PIECEWISE


def test_an_extern_fn_that_hides_a_library_name_is_classed_by_what_it_calls():
    text = EXTERN.replace(
        "{declaration}", 'extern fn exp(x: [b C]) -> [b C] = "mylib.ops.wobble"'
    ).replace("mean(f(", "mean(exp(")
    summary = analyse_checked(check_text(text), ["loss"]).summaries["loss"]
    assert summary.results[0].grade == DISCONTINUOUS


def test_a_python_call_is_classed_by_the_torch_function_it_names():
    program = EXTERN.replace("{declaration}", "import python torch")
    smooth = program.replace("mean(f(x @ m.w))", "mean(torch.tanh(x @ m.w) as [b C])")
    checked = check_text(smooth)
    assert analyse_checked(checked, ["loss"]).summaries["loss"].results[0].grade == SMOOTH
    unknown = program.replace("mean(f(x @ m.w))", "mean(torch.special.zeta(x @ m.w) as [b C])")
    checked = check_text(unknown)
    (error,) = [d for d in checked.diagnostics if d.code == "E3001"]
    assert "torch.special.zeta" in error.message
    assert "extern fn" in (error.help or "")
    piped = program.replace("mean(f(x @ m.w))", "mean((x @ m.w |> torch.special.zeta) as [b C])")
    assert [d.code for d in check_text(piped).diagnostics] == ["E3001"]


def test_a_python_function_held_in_a_name_is_not_assumed_smooth():
    program = EXTERN.replace("{declaration}", "import python torch").replace(
        "fn loss(m: Net, x: [b D]) -> [] = mean(f(x @ m.w))",
        "fn loss(m: Net, x: [b D]) -> []:\n"
        "    f = torch.special.zeta\n"
        "    return mean(f(x @ m.w) as [b C])",
    )
    checked = check_text(program)
    (error,) = [d for d in checked.diagnostics if d.code == "E3001"]
    assert "`f` (a Python function, not known to be smooth)" in error.message


def test_the_preludes_python_functions_have_the_class_of_their_stubs():
    for name, signature in load_prelude().signatures.items():
        python = signature.decl.python_path.value
        expected = (
            PIECEWISE
            if name in PIECEWISE_OPERATIONS
            else DISCONTINUOUS
            if name in DISCONTINUOUS_OPERATIONS
            else SMOOTH
        )
        assert PYTHON_CLASSES.get(python) == expected, (name, python)
