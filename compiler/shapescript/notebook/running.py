"""Running a checked cell: its Python, with the cell's file and lines, in a fresh module."""

from __future__ import annotations

import ast
import builtins
import types
from typing import Any

from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.notebook.combine import CELL_FN, Combined, cell_line
from shapescript.syntax.source import SourceFile

SHOWN = "_ss_shown"


def run_program(
    checked,
    combined: Combined,
    program: SourceFile,
    cell: SourceFile,
    fn,
    arguments: list[Any],
    python_values: dict[str, Any],
    kept: dict[str, Any] | None = None,
) -> tuple[list[Diagnostic], tuple[types.ModuleType, dict[str, Any]] | None]:
    """Compile and run the program of a cell: the generator's errors, or the module and
    the values the cell's statements bound (by Python name). `kept` replaces what the
    module defines by those Python names."""
    from shapescript.codegen import BuildOptions, generate
    from shapescript.codegen.context import python_name
    from shapescript.rt.compiling import remember_lines

    generated = generate(checked, BuildOptions())
    if generated.tree is None or any(diag.is_error for diag in generated.diagnostics):
        return list(generated.diagnostics), None
    tree = generated.tree
    function = python_name(CELL_FN)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            _keep_locals(node, fn is not None and _ends_with_expression(fn))
    _move_lines(tree, combined, program.path, cell.path)
    remember_lines(cell.path, cell.text)
    code = builtins.compile(tree, cell.path, "exec", dont_inherit=True)
    module = types.ModuleType("_ss_notebook_cell")
    module.__file__ = cell.path
    module.__dict__.update(python_values)
    exec(code, module.__dict__)
    # Earlier cells' models, functions and the like stay the objects their values use.
    module.__dict__.update(kept or {})
    local_values: dict[str, Any] = {}
    if fn is not None:
        local_values = module.__dict__[function](*arguments)
    return [], (module, local_values)


def _ends_with_expression(fn) -> bool:
    from shapescript.syntax import ast as ss_ast

    body = fn.item.body or []
    return bool(body) and isinstance(body[-1], ss_ast.ExprStmt)


def _keep_locals(node: ast.FunctionDef, shows_last: bool) -> None:
    """Make the cell's function return its locals, the last expression's value as SHOWN."""
    body = node.body
    if shows_last:
        for index in range(len(body) - 1, -1, -1):
            if isinstance(body[index], ast.Expr):
                last = body[index]
                body[index] = ast.Assign(
                    targets=[ast.Name(SHOWN, ast.Store())], value=last.value, lineno=last.lineno
                )
                ast.copy_location(body[index], last)
                ast.copy_location(body[index].targets[0], last)
                break
    where = body[-1] if body else node
    returned = ast.Return(
        ast.Call(ast.Name("locals", ast.Load()), [], []),
    )
    body.append(returned)
    for part in ast.walk(returned):
        ast.copy_location(part, where)


def _move_lines(tree: ast.Module, combined: Combined, program_path: str, cell_path: str) -> None:
    """Give the code the cell's lines, and its error locations the cell's file and lines."""
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is not None:
            moved = cell_line(combined, line)
            if moved is not None:
                node.lineno = moved[0]
                node.col_offset = max(node.col_offset - moved[1], 0)
                end = cell_line(combined, node.end_lineno or line)
                node.end_lineno = end[0] if end is not None else moved[0]
                if node.end_col_offset is not None:
                    node.end_col_offset = max(node.end_col_offset - moved[1], 0)
        if isinstance(node, ast.Tuple) and len(node.elts) >= 3:
            first, line_node, column = node.elts[0], node.elts[1], node.elts[2]
            if (
                isinstance(first, ast.Constant)
                and first.value == program_path
                and isinstance(line_node, ast.Constant)
                and isinstance(line_node.value, int)
            ):
                first.value = cell_path
                moved = cell_line(combined, line_node.value)
                if moved is not None:
                    line_node.value = moved[0]
                    if isinstance(column, ast.Constant) and isinstance(column.value, int):
                        column.value = max(column.value - moved[1], 1)
