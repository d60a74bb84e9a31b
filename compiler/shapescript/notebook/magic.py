"""The `%%shapescript` cell magic: IPython's side of a notebook session."""

from __future__ import annotations

import sys
from typing import Any

from shapescript.check.algebra.types import TensorType, format_type
from shapescript.diagnostics.diagnostic import Severity
from shapescript.diagnostics.render_text import render_diagnostic, render_summary
from shapescript.notebook.session import Outcome, Session
from shapescript.records import replace
from shapescript.syntax.source import SourceFile

MAGIC = "%%shapescript"


class _Cells:
    """The session of one IPython shell, and what it knows of the cell being run."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.session = Session()
        self.raw_cell: str | None = None
        self.cell_id: str | None = None

    def before(self, info: Any) -> None:
        self.raw_cell = getattr(info, "raw_cell", None)
        self.cell_id = getattr(info, "cell_id", None)

    def run(self, line: str, cell: str) -> Any:
        raw = self.raw_cell or ""
        text = raw if raw.lstrip().startswith(MAGIC) else f"{MAGIC} {line}".rstrip() + "\n" + cell
        number = _cell_number(self.shell)
        label = f"[{number}]"
        outcome = self.session.run(
            text, label, self.shell.user_ns, _cell_path(self.shell, text, number), self.cell_id
        )
        _show_diagnostics(outcome, f"In {label}")
        if not outcome.ran or not outcome.has_shown:
            return None
        type_ = outcome.shown_type
        if isinstance(type_, TensorType) and type_.axes is not None:
            _show_drawing(type_, outcome)
            return None
        return outcome.shown


def _cell_number(shell: Any) -> int:
    """The number Jupyter shows for the running cell (`In [3]`). IPython 9 counts the
    next cell in `execution_count` while one runs and IPython 8 this one; the display
    hook's `prompt_count` is the running cell's in both."""
    count = getattr(getattr(shell, "displayhook", None), "prompt_count", None)
    return count if isinstance(count, int) else shell.execution_count


def _cell_path(shell: Any, text: str, number: int) -> str:
    """The file the cell's code reports: the one Jupyter's debugger writes the cell to."""
    compiler = getattr(shell, "compile", None)
    get_code_name = getattr(compiler, "get_code_name", None)
    if get_code_name is not None:
        try:
            return str(get_code_name(text, text, number))
        except Exception:  # noqa: BLE001 - any shell without the debugger's names
            pass
    return f"<shapescript-cell-{number}>"


def _show_diagnostics(outcome: Outcome, name: str) -> None:
    """The diagnostics as `check` prints them, in colour, the cell named as Jupyter does."""
    if not outcome.diagnostics:
        return
    out = sys.stdout
    shown = SourceFile.from_text(name, outcome.source.text)
    for diag in outcome.diagnostics:
        out.write(render_diagnostic(replace(diag, path=name), shown, color=True) + "\n\n")
    severities = [diag.severity for diag in outcome.diagnostics]
    summary = render_summary(
        severities.count(Severity.ERROR),
        severities.count(Severity.WARNING),
        severities.count(Severity.HINT),
        1,
    ).replace(" in 1 file", " in this cell")
    if not outcome.ran:
        summary += "; nothing ran"
    out.write(summary + "\n")


def _show_drawing(type_: TensorType, outcome: Outcome) -> None:
    from IPython.display import display

    data = {"text/plain": format_type(type_)}
    try:
        from shapescript_lsp.render.shapes import svg_drawing, text_drawing
    except ImportError:
        pass
    else:
        data["text/plain"] += "\n" + text_drawing(type_, outcome.dim_values)
        data["image/svg+xml"] = svg_drawing(type_, outcome.dim_values, "light")
    display(data, raw=True)


def register(shell: Any) -> None:
    """Add `%%shapescript` to the shell (once)."""
    cells = getattr(shell, "_ss_cells", None)
    if cells is None:
        cells = _Cells(shell)
        shell._ss_cells = cells
        shell.events.register("pre_run_cell", cells.before)
    shell.register_magic_function(cells.run, magic_kind="cell", magic_name="shapescript")
