"""What the debugger shows of a `.ss` frame: which names to hide, each value's
ShapeScript type (as hover gives it), and tensors' sizes named after their axes.

The debugpy extension (`pydevd_plugins/extensions/pydevd_plugin_shapescript.py`) calls
these; they never raise, since the debugger must go on whatever they meet.
"""

from __future__ import annotations

import os
import sys
from typing import Any

#: The prefix of every name the compiler makes up.
MADE_UP = "_ss_"

_checked: dict[str, tuple[str, Any]] = {}


def hidden(name: str) -> bool:
    """Whether a variable is one the compiler made up (or the runtime module)."""
    return name.startswith(MADE_UP)


def is_shapescript_frame(frame: Any) -> bool:
    """A frame of generated code: its code reports a `.ss` file, or a cell that runs it."""
    filename = frame.f_code.co_filename
    return filename.endswith(".ss") or "_ss_rt" in frame.f_globals


def _checked_file(path: str):
    from shapescript import analysis
    from shapescript.syntax.source import SourceFile

    try:
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        else:
            import linecache

            text = "".join(linecache.getlines(path))
    except OSError:
        return None
    cached = _checked.get(path)
    if cached is not None and cached[0] == text:
        return cached[1]
    if not path.endswith(".ss"):
        # A notebook cell: its types come from the cell alone.
        from shapescript.notebook.cell_program import check_cell

        checked = check_cell(path, text, [])
    else:
        checked = analysis.check(SourceFile.from_text(path, text), search_path=list(sys.path))
    _checked[path] = (text, checked)
    return checked


def _visible_entries(frame: Any) -> tuple[Any, list[tuple[Any, Any]]]:
    """The checked file of a `.ss` frame and, in order, each (facts, entry) of a value
    visible at its current line; (None, []) when the file can't be checked."""
    checked = _checked_file(frame.f_code.co_filename)
    if checked is None:
        return None, []
    source = checked.source
    offset = source.offset(frame.f_lineno, len(source.line_text(frame.f_lineno)) + 1)
    visible = []
    for item in checked.items_at(offset):
        if item.body is None:
            continue
        for entry in item.body.facts.entries:
            if entry.visible_from + item.base <= offset or entry.symbol.kind == "param":
                visible.append((item.body.facts, entry))
    return checked, visible


def frame_types(frame: Any) -> dict[str, Any]:
    """The ShapeScript type of each value of a `.ss` frame at its current line, by name."""
    try:
        checked, visible = _visible_entries(frame)
        found: dict[str, Any] = {entry.name: entry.type for _, entry in visible}
        if checked is not None:
            _add_fields(checked, found)
        return found
    except Exception:  # noqa: BLE001 - the debugger goes on without types
        return {}


def frame_structures(frame: Any) -> dict[str, Any]:
    """The structure (`check.structures.Structure`) of each value of a `.ss` frame that has
    one at its current line, by name."""
    try:
        found: dict[str, Any] = {}
        for facts, entry in _visible_entries(frame)[1]:
            found.pop(entry.name, None)
            structure = facts.structures.get(entry.symbol.span)
            if structure is not None:
                found[entry.name] = structure
        return found
    except Exception:  # noqa: BLE001 - the debugger goes on without structures
        return {}


def _add_fields(checked: Any, found: dict[str, Any]) -> None:
    """The type of each field of the models among the values, as `m.w`."""
    from shapescript.check.algebra.types import ModelType

    for name, type_ in list(found.items()):
        info = checked.models.get(type_.name) if isinstance(type_, ModelType) else None
        if info is not None:
            for field in info.fields.values():
                found[f"{name}.{field.name}"] = field.type


def named_sizes(value: Any, type_: Any) -> str | None:
    """`[b=2 D=4]` for a tensor whose declared type names its axes, its plain sizes `[2 4]`
    for one whose type isn't known here (in a cell, a value whose type uses what earlier
    cells declared), else None."""
    from shapescript.check.algebra.types import TensorType, axis_text

    shape = getattr(value, "shape", None)
    if shape is None or not hasattr(value, "dtype"):
        return None
    plain = "[" + " ".join(str(size) for size in shape) + "]"
    if not isinstance(type_, TensorType) or type_.axes is None:
        return plain
    axes = type_.axes
    if any(axis.rest for axis in axes) or len(axes) != len(shape):
        return plain
    return (
        "["
        + " ".join(_named(axis_text(a), size) for a, size in zip(axes, shape, strict=True))
        + "]"
    )


def _named(written: str, size: int) -> str:
    """`D=4`, or `3` for an axis written as the number it is."""
    return written if written == str(size) else f"{written}={size}"


def describe(value: Any, type_: Any, shown: str) -> tuple[str, str | None]:
    """The value's text (sizes named, dtype, then what the debugger showed) and its type."""
    from shapescript.check.algebra.types import format_type

    try:
        type_text = format_type(type_) if type_ is not None else None
        sizes = named_sizes(value, type_)
        if sizes is None:
            return shown, type_text
        dtype = str(getattr(value, "dtype", "")).removeprefix("torch.")
        return f"{sizes} {dtype} {shown}", type_text
    except Exception:  # noqa: BLE001
        return shown, None


def function_name(path: str, line: int, python_name: str) -> str:
    """The ShapeScript name of the function a `.ss` line is in (an overload's or a generic
    instance's Python name is made up), else `python_name`."""
    from shapescript.syntax import ast

    if not path.endswith(".ss"):
        return python_name
    try:
        checked = _checked_file(path)
        if checked is None:
            return python_name
        source = checked.source
        offset = source.offset(line, 1)
        for item in checked.items:
            decl = item.item
            if isinstance(decl, ast.FnDecl):
                start, end = item.base + decl.span.start, item.base + decl.span.end
                if start <= offset <= end:
                    return decl.name
    except Exception:  # noqa: BLE001 - the debugger goes on with the Python name
        pass
    return python_name
