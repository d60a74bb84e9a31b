"""A notebook's ShapeScript state: the cells that ran without errors, in the order they
last ran, and the values they made; checking and running one more cell."""

from __future__ import annotations

import re
import types
from typing import Any

from shapescript.check.algebra.types import HostType, ModelType, TensorType, Type, format_type
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.notebook.combine import CELL_FN, CellRun, Combined, cell_span, combine
from shapescript.notebook.python_names import PYTHON_NAMES
from shapescript.notebook.running import SHOWN, run_program
from shapescript.notebook.staleness import Declared, out_of_date, outside, record_uses
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile, Span

PROGRAM_PATH = "<shapescript notebook>"
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@record
class Made:
    """A value a cell's statements bound, with the type it was made with."""

    name: str
    type: Type
    type_text: str
    label: str
    #: The dims its type names, with their values when it was made.
    dims: dict[str, int]
    value: Any
    #: The models and records its type names, as they looked (`staleness.outside`).
    uses: dict[str, str] = field(default_factory=dict)


@record
class Outcome:
    """What checking (and, without errors, running) a cell gave."""

    source: SourceFile
    diagnostics: list[Diagnostic]
    ran: bool = False
    #: The value of the cell's last line when it is an expression, and its type.
    shown: Any = None
    shown_type: Type | None = None
    has_shown: bool = False
    dim_values: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> list[Diagnostic]:
        return [diag for diag in self.diagnostics if diag.is_error]


@record
class Session:
    """The cells of one notebook kernel."""

    history: list[CellRun] = field(default_factory=list)
    cell_ids: list[str | None] = field(default_factory=list)
    made: dict[str, Made] = field(default_factory=dict)
    #: What the declarations of the cells put into the notebook's variables.
    exported: dict[str, Any] = field(default_factory=dict)
    #: For each cell run in `history` (by id), what each of its declarations used.
    declared: dict[int, dict[str, Declared]] = field(default_factory=dict)

    def run(
        self,
        text: str,
        label: str,
        namespace: dict[str, Any],
        path: str,
        cell_id: str | None = None,
    ) -> Outcome:
        """Check the cell `text` (its `%%shapescript` line included) and run it if it checks.

        Values it binds, and what it declares, go into `namespace`, the notebook's Python
        variables, which its code reads too."""
        source = SourceFile.from_text(path, text)
        parsed = parse(source, notebook=True)
        if any(diag.is_error for diag in parsed.diagnostics):
            return Outcome(source, parsed.diagnostics)
        cell = CellRun(label, text, parsed.module)
        kept = [
            (run, id_)
            for run, id_ in zip(self.history, self.cell_ids, strict=True)
            if cell_id is None or id_ != cell_id
        ]
        history = [run for run, _ in kept]
        declared = _declared_names([*history, cell])
        params = [
            (name, made.type_text)
            for name, made in self.made.items()
            if name not in declared and _writable(made.type)
        ]
        param_names = {name for name, _ in params}
        python = frozenset(
            name
            for name in namespace
            if name.isidentifier()
            and not name.startswith("_")
            and name not in declared
            and name not in param_names
        )
        while True:
            combined, program, checked = _check(history, cell, params, python)
            broken: set[str] = set()
            diagnostics = _cell_diagnostics(checked.diagnostics, combined, program, source, broken)
            fn = _cell_fn(checked)
            now = outside([*history, cell], checked.dim_values)
            stale = {
                name
                for name in param_names
                if name in broken
                or namespace.get(name, _MISSING) is not self.made[name].value
                or any(
                    checked.dim_values.get(dim) != value
                    for dim, value in self.made[name].dims.items()
                )
                or any(now.get(used) != seen for used, seen in self.made[name].uses.items())
            }
            # An out-of-date value the cell doesn't use isn't passed to it (its check
            # would fail), and the cell may bind the name afresh.
            unused = stale - _params_used(fn, combined, program, source)
            if not unused:
                break
            params = [(name, text) for name, text in params if name not in unused]
            param_names -= unused
        if fn is not None and stale:
            diagnostics = self._out_of_date(fn, stale, combined, program, source, diagnostics)
        diagnostics, reasons = self._declarations_out_of_date(
            history, cell, checked, combined, program, source, namespace, now, diagnostics
        )
        outcome = Outcome(source, diagnostics, dim_values=dict(checked.dim_values))
        if outcome.errors:
            return outcome
        if reasons:
            # The cell uses none of them: run it without them (they may not compile).
            combined, program, checked = _check(history, cell, params, python, frozenset(reasons))
            fn = _cell_fn(checked)
        generated, results = run_program(
            checked,
            combined,
            program,
            source,
            fn,
            [self.made[name].value for name, _ in params],
            {name: namespace[name] for name in python},
            self._kept(cell),
            f"In {label}",
        )
        if generated:
            found = _cell_diagnostics(generated, combined, program, source, set())
            if not found:
                # Only earlier cells' code can't be compiled: say so on the magic's line.
                line = Span(0, len(text.split("\n", 1)[0]))
                found = [
                    Diagnostic(
                        diag.code,
                        diag.message,
                        Label(line, "in an earlier cell's code"),
                        path=source.path,
                    )
                    for diag in generated
                    if diag.is_error
                ]
            outcome.diagnostics = outcome.diagnostics + found
            return outcome
        module, local_values = results
        outcome.ran = True
        self.history = [*history, cell]
        self.cell_ids = [*(id_ for _, id_ in kept), cell_id]
        ids = {id(run) for run in self.history}
        self.declared = {key: made for key, made in self.declared.items() if key in ids}
        self.declared[id(cell)] = record_uses(
            cell,
            checked,
            lambda start: cell_span(combined, program, source, Span(start, start)) is not None,
            now,
        )
        self._forget(namespace)
        self._keep(cell, module, namespace)
        if fn is not None:
            self._keep_values(fn, local_values, namespace, label, checked, now)
            last = cell.module.items[-1] if cell.module.items else None
            if isinstance(last, ast.StmtItem) and isinstance(last.stmt, ast.ExprStmt):
                outcome.has_shown = True
                outcome.shown = local_values.get(SHOWN)
                outcome.shown_type = _type_of_last(fn)
        return outcome

    def _keep(self, cell: CellRun, module: types.ModuleType, namespace: dict[str, Any]) -> None:
        from shapescript.codegen.context import python_name

        for name in _declared_names([cell]):
            value = module.__dict__.get(python_name(name), _MISSING)
            if value is not _MISSING:
                namespace[name] = value
                self.exported[name] = value
            self.made.pop(name, None)

    def _kept(self, cell: CellRun) -> dict[str, Any]:
        """The models (classes) earlier cells declared and the cell doesn't, by Python
        name: their values are instances of those classes, not of new ones."""
        from shapescript.codegen.context import python_name

        own = _declared_names([cell])
        return {
            python_name(name): value
            for name, value in self.exported.items()
            if name not in own and isinstance(value, type)
        }

    def _forget(self, namespace: dict[str, Any]) -> None:
        """Take out of the notebook's variables what no cell that ran declares any more."""
        declared = _declared_names(self.history)
        for name in [name for name in self.exported if name not in declared]:
            if namespace.get(name, _MISSING) is self.exported.pop(name):
                del namespace[name]

    def _keep_values(self, fn, local_values, namespace, label, checked, now) -> None:
        from shapescript.codegen.context import python_name

        latest: dict[str, Type] = {}
        nested: set[str] = set()
        for entry in fn.body.facts.entries:
            if entry.symbol.kind == "param":
                continue
            if entry.scope == fn.item.span:
                latest[entry.name] = entry.type
            else:
                nested.add(entry.name)
        for name in nested | set(latest):
            value = local_values.get(python_name(name), _MISSING)
            if value is _MISSING:
                continue
            namespace[name] = value
            type_ = latest.get(name)
            if type_ is None or not _writable(type_):
                self.made.pop(name, None)
                continue
            text = format_type(type_)
            dim_values = checked.dim_values
            # A model's value goes out of date with the dims of its fields' shapes.
            used = text + " ".join(_field_types(checked, type_))
            dims = {word: dim_values[word] for word in _WORD.findall(used) if word in dim_values}
            # And with the models and records it names, such as a model given a field.
            uses = {word: now[word] for word in _WORD.findall(text) if word in now}
            self.made[name] = Made(name, type_, text, label, dims, value, uses)

    def _declarations_out_of_date(
        self, history, cell, checked, combined, program, source, namespace, now, diagnostics
    ):
        """E0701 where the cell uses a declaration of an earlier cell that is out of date."""
        own = _declared_names([cell])
        latest: dict[str, tuple[CellRun, Declared | None]] = {}
        for run in history:
            made = self.declared.get(id(run), {})
            for name in _declared_names([run]):
                if name not in own:
                    latest[name] = (run, made.get(name))
        broken = set()
        for diag in checked.diagnostics:
            line = program.position(diag.span.start).line - 1
            if diag.is_error and line < len(combined.owners) and combined.owners[line] is not None:
                broken.add(id(history[combined.owners[line]]))
        replaced = {
            name
            for name in latest
            if name in self.exported and namespace.get(name, _MISSING) is not self.exported[name]
        }
        reasons = out_of_date(latest, now, broken, replaced)
        if not reasons:
            return diagnostics, reasons
        found: list[Diagnostic] = []
        seen: set[Span] = set()
        for facts in checked.items:
            tables = [*facts.fact_tables()]
            if not isinstance(facts.item, ast.StmtItem | ast.ErrorItem):
                tables.append(facts.declaration)
            for table in tables:
                for reference in table.references:
                    name = reference.module_name
                    if name not in reasons:
                        continue
                    span = cell_span(combined, program, source, _shift(reference.span, facts.base))
                    if span is None or span in seen:
                        continue
                    seen.add(span)
                    label = latest[name][0].label
                    found.append(
                        Diagnostic(
                            "E0701",
                            f"`{name}` is out of date; run {label} again to use this",
                            Label(span, f"declared by {label}, which no longer matches"),
                            notes=[f"`{name}` is out of date: {reasons[name]}"],
                            help=f"run {label} again",
                            path=source.path,
                        )
                    )
        return _replace_overlapping(diagnostics, found), reasons

    def _out_of_date(self, fn, stale, combined, program, source, diagnostics):
        found: list[Diagnostic] = []
        for reference in fn.body.facts.references:
            symbol = reference.symbol
            if symbol is None or symbol.name not in stale or symbol.kind != "param":
                continue
            span = cell_span(combined, program, source, _shift(reference.span, fn.base))
            if span is None:
                continue
            made = self.made[symbol.name]
            found.append(
                Diagnostic(
                    "E0701",
                    f"`{symbol.name}` is out of date; run {made.label} again to use this",
                    Label(span, f"made by {made.label}, which no longer matches"),
                    notes=[f"`{symbol.name}` was made as {made.type_text}"],
                    help=f"run {made.label} again",
                    path=source.path,
                )
            )
        return _replace_overlapping(diagnostics, found)


_MISSING = object()


def _check(history, cell, params, python, leave_out=frozenset()):
    """The program of `cell` after `history` (`combine`), and its check."""
    from shapescript.check.checker import check_parsed

    combined = combine(history, cell, params, leave_out)
    program = SourceFile.from_text(PROGRAM_PATH, combined.text)
    token = PYTHON_NAMES.set(python)
    try:
        checked = check_parsed(parse(program, notebook=True))
    finally:
        PYTHON_NAMES.reset(token)
    return combined, program, checked


def _replace_overlapping(diagnostics: list[Diagnostic], found: list[Diagnostic]):
    """`diagnostics` with `found` in place of those at the same places."""
    if not found:
        return diagnostics
    kept = [
        diag for diag in diagnostics if not any(_overlaps(diag.span, other.span) for other in found)
    ]
    return sorted(kept + found, key=lambda diag: (diag.span.start, diag.code))


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end or a.start == b.start


def _shift(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


def _writable(type_: Type) -> bool:
    """Whether a value of this type can be a parameter, its type written out."""
    if isinstance(type_, TensorType):
        return type_.axes is not None and "?" not in format_type(type_)
    return isinstance(type_, HostType | ModelType) and "?" not in format_type(type_)


def _field_types(checked, type_: Type) -> list[str]:
    info = checked.models.get(type_.name) if isinstance(type_, ModelType) else None
    return [] if info is None else [format_type(field.type) for field in info.fields.values()]


def _declared_names(runs: list[CellRun]) -> set[str]:
    names = set()
    for run in runs:
        for item in run.module.items:
            name = getattr(item, "name", None)
            if isinstance(name, str) and not isinstance(item, ast.StmtItem):
                names.add(name)
    return names


def _statements(body: list[ast.Stmt]):
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.For):
            yield from _statements(stmt.body)
        elif isinstance(stmt, ast.If):
            yield from _statements(stmt.then_body)
            yield from _statements(stmt.else_body or [])


def _params_used(fn, combined: Combined, program: SourceFile, source: SourceFile) -> set[str]:
    """The values of earlier cells the cell's statements read."""
    if fn is None:
        return set()
    bound = {
        target.span
        for stmt in _statements(fn.item.body or [])
        if isinstance(stmt, ast.Assign)
        for target in stmt.targets
    }
    return {
        reference.symbol.name
        for reference in fn.body.facts.references
        if reference.symbol is not None
        and reference.symbol.kind == "param"
        and reference.span not in bound
        and cell_span(combined, program, source, _shift(reference.span, fn.base)) is not None
    }


def _cell_fn(checked):
    for facts in checked.items:
        if isinstance(facts.item, ast.FnDecl) and facts.item.name == CELL_FN and facts.body:
            return facts
    return None


def _type_of_last(fn) -> Type | None:
    body = fn.item.body or []
    if not body or not isinstance(body[-1], ast.ExprStmt):
        return None
    return fn.body.facts.types.get(body[-1].expr.span)


def _cell_diagnostics(
    diagnostics: list[Diagnostic],
    combined: Combined,
    program: SourceFile,
    source: SourceFile,
    broken: set[str],
) -> list[Diagnostic]:
    """The diagnostics that are the cell's, with its spans; `broken` gets the values
    whose written types no longer check."""
    lines = {line: name for name, line in combined.param_lines.items()}
    found = []
    for diag in diagnostics:
        span = cell_span(combined, program, source, diag.span)
        if span is None:
            name = lines.get(program.position(diag.span.start).line - 1)
            if name is not None:
                broken.add(name)
            continue
        secondary = []
        for label in diag.secondary:
            moved = cell_span(combined, program, source, label.span)
            if moved is not None:
                secondary.append(Label(moved, label.message))
        found.append(
            Diagnostic(
                diag.code,
                diag.message,
                Label(span, diag.primary.message),
                secondary,
                list(diag.notes),
                diag.help,
                source.path,
            )
        )
    return found
