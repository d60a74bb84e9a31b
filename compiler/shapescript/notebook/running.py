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
DEVICE = "_ss_dev"
#: How a notebook declares its devices, for the error of a cell that needs them first.
HOW_TO_DECLARE = (
    "declare them with a `devices cpu` line in a %%shapescript cell, "
    'or from Python with `shapescript.devices("cpu")` (or "cuda[0]", "mps")'
)


def run_program(
    checked,
    combined: Combined,
    program: SourceFile,
    cell: SourceFile,
    fn,
    arguments: list[Any],
    python_values: dict[str, Any],
    kept: dict[str, Any] | None = None,
    label: str = "cell",
) -> tuple[list[Diagnostic], tuple[types.ModuleType, dict[str, Any]] | None]:
    """Compile and run the program of a cell: the generator's errors, or the module and
    the values the cell's statements bound (by Python name). `kept` replaces what the
    module defines by those Python names; the cell's statements run in a function that
    tracebacks and debuggers call `label`, as `In [3]`."""
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
            _ask_for_device_when_used(node)
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
        cell_function = module.__dict__[function]
        cell_function.__code__ = cell_function.__code__.replace(co_name=label, co_qualname=label)
        try:
            local_values = cell_function(*arguments)
        except Exception as error:
            _say_how_a_notebook_declares_devices(error)
            raise
    return [], (module, local_values)


def _ask_for_device_when_used(node: ast.FunctionDef) -> None:
    """Ask for the device in the cell only when its statements make a tensor, so a
    notebook without devices runs what needs none (functions it calls still ask): without
    devices, the checks that the earlier cells' values are on the device are left out."""
    loads = [
        part
        for part in ast.walk(node)
        if isinstance(part, ast.Name) and part.id == DEVICE and isinstance(part.ctx, ast.Load)
    ]
    checks = [part for part in ast.walk(node) if _is_device_check(part)]
    if len(loads) > len(checks):
        return
    for stmt in node.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == DEVICE
        ):
            stmt.value = ast.Attribute(ast.Name("_ss_devices", ast.Load()), "_device", ast.Load())
            ast.fix_missing_locations(ast.copy_location(stmt.value, stmt))
    for check in checks:
        # `x.device != (_ss_dev or x.device)`: no check without devices.
        own = ast.Attribute(check.left.value, "device", ast.Load())
        check.comparators = [ast.BoolOp(ast.Or(), [check.comparators[0], own])]
        for part in ast.walk(check):
            ast.copy_location(part, check)


def _is_device_check(node: ast.AST) -> bool:
    """`x.device != _ss_dev`, an argument's check."""
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.NotEq)
        and isinstance(node.left, ast.Attribute)
        and node.left.attr == "device"
        and isinstance(node.comparators[0], ast.Name)
        and node.comparators[0].id == DEVICE
    )


def _say_how_a_notebook_declares_devices(error: Exception) -> None:
    """A cell that needs devices before any are declared: say how a notebook declares them."""
    from shapescript.rt import devices
    from shapescript.rt.errors import DeviceError

    if (
        isinstance(error, DeviceError)
        and devices.declared() is None
        and error.message.startswith("no devices have been declared")
    ):
        error.message = f"no devices have been declared: {HOW_TO_DECLARE}"
        error.args = (str(error),)


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
                named = node.elts[3] if len(node.elts) > 3 else None
                if isinstance(named, ast.Constant) and named.value == CELL_FN:
                    # The cell's statements aren't a fn to the user.
                    named.value = None
                moved = cell_line(combined, line_node.value)
                if moved is not None:
                    line_node.value = moved[0]
                    if isinstance(column, ast.Constant) and isinstance(column.value, int):
                        column.value = max(column.value - moved[1], 1)
