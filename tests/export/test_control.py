"""The rewrite of `.ss` ifs and loops into blocks that torch.cond and torch.while_loop run."""

from __future__ import annotations

import ast

from shapescript.analysis import check
from shapescript.export.module import build_export
from shapescript.syntax.source import SourceFile
from tests.export.programs import CONTROL, COUNTED, RETURNING


def function_source(text: str, name: str, exported: str | None = None) -> str:
    checked = check(SourceFile.from_text("control.ss", text))
    module = build_export(checked, exported or name)
    tree = ast.parse(module.text)
    (found,) = [
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    return ast.unparse(found)


def test_ifs_and_loops_become_block_functions() -> None:
    source = function_source(CONTROL, "f")
    assert "def _ss_body_1(i, y):" in source
    assert "y, = _ss_loop(0, n, _ss_body_1, (y,))" in source
    assert "total, y = _ss_loop(0, 3, _ss_body_2, (total, y))" in source
    assert "y, = _ss_cond(y.sum() > 0, _ss_then_3, _ss_else_3, (y,))" in source
    assert "for " not in source and "_ss_bool" not in source


def test_a_block_with_a_return_stays_python() -> None:
    source = function_source(RETURNING, "g")
    assert "if flip:" in source and "_ss_cond" not in source


def test_each_line_of_a_block_maps_to_its_ss_line() -> None:
    checked = check(SourceFile.from_text("control.ss", CONTROL))
    module = build_export(checked, "f")
    lines = module.text.split("\n")
    mapped = {lines[number - 1].strip(): origin for number, origin in module.lines.items()}
    assert mapped["y = _ss_torch.matmul(y, w)"] == 4
    assert mapped["y = -y"] == 12


def test_uses_of_a_blocks_host_numbers_after_it_take_a_0_d_tensor() -> None:
    source = function_source(COUNTED, "counted")
    assert "y = y + _ss_at(w, i)" in source
    assert "_ss_cond(_ss_and(count > 2, _ss_not(big)), _ss_then_" in source
    assert "_ss_at(w, count - 1)" in source
    assert "_ss_host_tensor(count, dtype=" in source
    assert "if count" not in source


def test_a_functions_host_parameters_may_be_a_blocks_0_d_tensors() -> None:
    source = function_source(COUNTED, "times", exported="counted")
    assert "_ss_cond(_ss_and(on, k > 1), _ss_then_" in source
