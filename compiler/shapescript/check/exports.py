"""The export check (E1701-E1706): what an exported function, and everything it calls,
does that `torch.export` can't record.

It runs after every body is checked, on the syntax tree and the facts the checker
recorded: each `export fn` of the file (or the functions the export command names) and
every function of the file it reaches, at any depth. An error in a reached function names
the exported function that reaches it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import PurePath

from shapescript.check.algebra.types import (
    DATA_TYPES,
    LOGGING_TYPES,
    TRAINING_TYPES,
    HostType,
    ModelType,
    ModeType,
    PythonType,
    StackType,
    TensorType,
    Type,
)
from shapescript.check.declarations.symbols import Facts, ItemFacts
from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.records import record
from shapescript.syntax import ast
from shapescript.syntax.parser import shift_diagnostic
from shapescript.syntax.source import Span

#: Modules whose functions an extern fn of an exported function may name: torch's own,
#: `math` (numbers and sizes), and the runtime's stubs, which are torch code.
TRACEABLE_MODULES = ("torch", "math", "shapescript.rt", "_ss_rt")

#: Built-ins that make or use host-only values: they have no torch-only lowering.
HOST_BUILTINS = frozenset(
    {
        "print",
        "save",
        "load",
        "value_and_grad",
        "update",
        "sgd",
        "adamw",
        "clip_norm",
        "cosine",
        "warmup",
        "shuffle",
        "batches",
        "Train",
        "Eval",
    }
)

HOST_TYPES = TRAINING_TYPES | LOGGING_TYPES | DATA_TYPES

_HELP = {
    "E1701": "pass the value in as a parameter, or give a torch function a type with "
    '`extern fn`, as in `extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"`',
    "E1702": "point the extern fn at a function in torch, or compute the value in ShapeScript",
    "E1703": "pass the value in as a parameter of the function",
    "E1704": "an exported program is for inference: pass the model's fields in as tensors",
    "E1705": "give it a tensor type such as `[b n D]`",
    "E1706": "assign the value in both branches and return it after the `if`",
}


@record
class ExportMemo:
    """One analysis's export check, for the next to reuse: its key (the declarations'
    fingerprint), each function it walked with its index among the items, declaration,
    body and base, and its errors with the function each was found in."""

    key: object
    walked: dict[str, tuple[int, ast.Item, object, int]]
    found: list[tuple[str, Diagnostic]]


def add_export_diagnostics(
    checked: Checked, key: object = None, previous: ExportMemo | None = None
) -> ExportMemo | None:
    """Add the export check's errors for the file's `export fn`s to `checked`.

    With `key` (what the declarations are, so which functions are exported), the errors
    of `previous` are taken, moved where their functions now are, when its key is the
    same and every function it walked has the same declaration and body: the walk would
    go the same way. Gives the memo for the next analysis.
    """
    items = checked.items
    reused = _reused(previous, key, items) if key is not None else None
    if reused is not None:
        pairs, walked = reused
    else:
        roots = [
            item.item.name
            for item in items
            if isinstance(item.item, ast.FnDecl) and item.item.export
        ]
        if not roots:
            return None if key is None else ExportMemo(key, {}, [])
        functions = _functions(checked)
        pairs, names = _walk(checked, roots, functions)
        for _, diagnostic in pairs:
            diagnostic.path = checked.source.path
        index_of = {id(item): index for index, item in enumerate(items)}
        walked = {}
        for name in names:
            facts = functions[name]
            # A generic function's body is its first instance's: not found among the items.
            index = index_of.get(id(facts), -1)
            walked[name] = (index, facts.item, facts.body, facts.base)
    found = [diagnostic for _, diagnostic in pairs]
    if found:
        checked.diagnostics.extend(found)
        checked.diagnostics.sort(key=lambda d: (d.span.start, d.code))
    if key is None:
        return None
    return ExportMemo(key, walked, pairs)


def _reused(
    previous: ExportMemo | None, key: object, items: list[ItemFacts]
) -> tuple[list[tuple[str, Diagnostic]], dict] | None:
    """`previous`'s errors moved to where their functions are now, and what it walked
    as it is now, if it still holds."""
    if previous is None or previous.key != key:
        return None
    walked = {}
    for name, (index, item, body, _) in previous.walked.items():
        if index < 0 or index >= len(items):
            return None
        now = items[index]
        if now.item is not item or now.body is not body:
            return None
        walked[name] = (index, item, body, now.base)
    pairs = [
        (name, shift_diagnostic(diagnostic, walked[name][3] - previous.walked[name][3]))
        for name, diagnostic in previous.found
    ]
    return pairs, walked


def export_diagnostics(
    checked: Checked, roots: Iterable[str], *, model_first: bool = False
) -> list[Diagnostic]:
    """The export check of the functions `roots` (exported whether marked or not) and of
    every function of the file they reach; each place is reported once, naming the first
    root that reaches it. With `model_first` (a Hugging Face folder's function), the
    first parameter is the model, which isn't an input."""
    pairs, _ = _walk(checked, roots, _functions(checked), model_first=model_first)
    for _, diagnostic in pairs:
        diagnostic.path = checked.source.path
    return [diagnostic for _, diagnostic in pairs]


def _walk(
    checked: Checked,
    roots: Iterable[str],
    functions: dict[str, ItemFacts],
    *,
    model_first: bool = False,
) -> tuple[list[tuple[str, Diagnostic]], set[str]]:
    """`export_diagnostics`, each with the function it was found in; and the functions
    walked."""
    found: list[tuple[str, Diagnostic]] = []
    seen: set[tuple[str, int]] = set()
    done: set[str] = set()
    for root in roots:
        if root not in functions:
            continue
        queue = [root]
        while queue:
            name = queue.pop(0)
            if name in done:
                continue
            done.add(name)
            item = functions[name]
            walker = _Walker(checked, item, root, name != root)
            if name == root:
                walker.check_params(skip=1 if model_first else 0)
            walker.check_body()
            for diagnostic in walker.found:
                key = (diagnostic.code, diagnostic.span.start)
                if key not in seen:
                    seen.add(key)
                    found.append((name, diagnostic))
            queue.extend(callee for callee in walker.callees if callee in functions)
    return found, done


def _functions(checked: Checked) -> dict[str, ItemFacts]:
    """The file's functions by name, each with facts for its body (a generic function's
    first instance, when the function itself has none)."""
    functions: dict[str, ItemFacts] = {}
    for item in checked.items:
        if isinstance(item.item, ast.FnDecl) and item.item.name not in functions:
            functions[item.item.name] = item
    for instance in checked.instances:
        known = functions.get(instance.function)
        if known is not None and known.body is None and instance.item.body is not None:
            functions[instance.function] = ItemFacts(
                known.item, known.base, known.declaration, instance.item.body
            )
    return functions


class _Walker:
    """Checks one function's parameters and body for one exported root."""

    def __init__(self, checked: Checked, item: ItemFacts, root: str, reached: bool) -> None:
        self.checked = checked
        self.item = item
        self.decl: ast.FnDecl = item.item  # type: ignore[assignment]
        self.root = root
        self.reached = reached
        self.found: list[Diagnostic] = []
        self.callees: list[str] = []
        self.types: dict[Span, Type] = {}
        self.references: dict[Span, tuple[str, str | None]] = {}
        for facts in item.fact_tables():
            self._index(facts)

    def _index(self, facts: Facts) -> None:
        self.types.update(facts.types)
        symbols = self.checked.module_symbols
        for reference in facts.references:
            if reference.module_name is not None:
                symbol = symbols.get(reference.module_name)
                kind = symbol.kind if symbol is not None else "module"
                self.references[reference.span] = (kind, reference.module_name)
            elif reference.symbol is not None:
                self.references[reference.span] = (reference.symbol.kind, reference.symbol.name)

    # ------------------------------------------------------------------ reporting

    def report(
        self, code: str, message: str, span: Span, label: str = "", help: str | None = None
    ) -> None:
        base = self.item.base
        notes = []
        if self.reached:
            notes.append(f"`{self.decl.name}` is reached from `export fn {self.root}`")
        self.found.append(
            Diagnostic(
                code,
                message,
                Label(Span(span.start + base, span.end + base), label),
                notes=notes,
                help=help or _HELP[code],
            )
        )

    def text(self, span: Span) -> str:
        base = self.item.base
        return self.checked.source.text[base + span.start : base + span.end]

    @property
    def where(self) -> str:
        return f"exported function `{self.root}`"

    # ------------------------------------------------------------------ parameters

    def check_params(self, skip: int = 0) -> None:
        for param in self.decl.params[skip:]:
            type_ = self.types.get(param.name_span)
            if isinstance(type_, TensorType) and type_.axes is not None:
                continue
            if isinstance(type_, HostType) and param.default is not None:
                continue
            if isinstance(type_, ModeType):
                continue  # exported with Eval: dropout off, as inference wants
            help = None
            if param.type is None:
                why = "has no type"
            elif isinstance(type_, TensorType):
                why = "is a tensor without a shape"
            elif isinstance(type_, HostType):
                why = f"is an `{type_.kind}` without a default"
                help = (
                    f"give it a default (`{param.name}: {type_.kind} = ...`), which the "
                    "exported program keeps, or make it a tensor with a shape"
                )
            elif isinstance(type_, ModelType):
                why = f"is a model (`{self.text(param.type.span)}`), which isn't a tensor"
                file = PurePath(self.checked.source.path).name
                help = (
                    "leave `export` off and export the function by name, "
                    f"`shapescript export {file} --fn {self.root}`: a function that takes "
                    "its model first is exported with the model's weights in it "
                    "(`--weights` gives a checkpoint)"
                    if param is self.decl.params[0]
                    else "take the model as the first parameter and export the function by "
                    f"name (`shapescript export {file} --fn {self.root}`), which puts the "
                    "model's weights in the exported program"
                )
            else:
                why = f"has type `{self.text(param.type.span)}`, which isn't a tensor"
            self.report(
                "E1705",
                f"parameter `{param.name}` of {self.where} {why}",
                param.span,
                "not an input the exported program can take",
                help,
            )

    # ------------------------------------------------------------------ bodies

    def check_body(self) -> None:
        if self.decl.expr_body is not None:
            self.expr(self.decl.expr_body)
        for stmt in self.decl.body or []:
            self.stmt(stmt, tensor_if=None)

    def stmt(self, stmt: object, tensor_if: ast.If | None) -> None:
        if isinstance(stmt, ast.Return):
            if tensor_if is not None:
                self.report(
                    "E1706",
                    f"`return` inside an `if` on a tensor in {self.where}",
                    stmt.span,
                    "a branch of torch.cond gives values, it can't return",
                )
            if stmt.value is not None:
                self.expr(stmt.value)
        elif isinstance(stmt, ast.Assign):
            self.expr(stmt.value)
        elif isinstance(stmt, ast.FieldAssign):
            self.report(
                "E1704",
                f"changing a model's field in {self.where}",
                stmt.span,
                "only on the host",
            )
            self.expr(stmt.value)
        elif isinstance(stmt, ast.ExprStmt):
            self.expr(stmt.expr)
        elif isinstance(stmt, ast.For):
            over_models = isinstance(self.types.get(stmt.iterable.span), StackType)
            if not isinstance(stmt.iterable, ast.Range) and not over_models:
                self.report(
                    "E1704",
                    f"a `for` loop over something other than a range in {self.where}",
                    stmt.iterable.span,
                    "only a range, or a stack of models, can be a loop in an exported program",
                )
            self.expr(stmt.iterable)
            for inner in stmt.body:
                self.stmt(inner, tensor_if)
        elif isinstance(stmt, ast.If):
            self.expr(stmt.condition)
            on_tensor = isinstance(self.types.get(stmt.condition.span), TensorType)
            inside = stmt if on_tensor else tensor_if
            for inner in stmt.then_body:
                self.stmt(inner, inside)
            for inner in stmt.else_body or []:
                self.stmt(inner, inside)

    def expr(self, node: object) -> None:
        if isinstance(node, ast.Name):
            self.name(node)
            return
        if isinstance(node, ast.Member | ast.Call | ast.Index) and self.python_root(node):
            self.report(
                "E1701",
                f"`{self.text(node.span)}` is Python, in {self.where}",
                node.span,
                "torch.export records only torch operations",
            )
            return
        if isinstance(node, ast.Cast) and isinstance(self.types.get(node.operand.span), PythonType):
            before = len(self.found)
            self.expr(node.operand)
            if not any(d.code == "E1701" for d in self.found[before:]):
                self.report(
                    "E1703",
                    f"`as` on a Python value in {self.where}",
                    node.span,
                    "a value from Python",
                )
            return
        if isinstance(node, ast.Call):
            self.call(node)
        for child in _children(node):
            self.expr(child)

    def python_root(self, node: object) -> bool:
        """Whether the expression is a name from `import python` or reached through one."""
        while isinstance(node, ast.Member | ast.Call | ast.Index):
            node = node.callee if isinstance(node, ast.Call) else node.target
        if isinstance(node, ast.Name):
            kind = self.references.get(node.span, ("", None))[0]
            return kind == "python_module"
        return False

    def name(self, node: ast.Name) -> None:
        kind, name = self.references.get(node.span, ("", None))
        if kind == "python_module":
            self.report(
                "E1701",
                f"`{node.name}` is Python, in {self.where}",
                node.span,
                "torch.export records only torch operations",
            )
        elif kind == "fn" and name is not None:
            self.callees.append(name)
        elif kind == "extern" and name is not None:
            self.extern(node, name)
        elif kind in ("builtin", "prelude", "") and node.name in HOST_BUILTINS:
            self.report(
                "E1704",
                f"`{node.name}` is only for the host, in {self.where}",
                node.span,
                "no torch-only lowering",
            )

    def extern(self, node: ast.Name, name: str) -> None:
        path = self.extern_path(name)
        if path is None or any(
            path == module or path.startswith(module + ".") for module in TRACEABLE_MODULES
        ):
            return
        self.report(
            "E1702",
            f"extern fn `{name}` is `{path}`, outside torch, in {self.where}",
            node.span,
            "torch.export can't record it",
        )

    def extern_path(self, name: str) -> str | None:
        for item in self.checked.module.items:
            if isinstance(item, ast.ExternFnDecl) and item.name == name:
                return item.python_path.value if item.python_path is not None else None
        return None

    def call(self, node: ast.Call) -> None:
        type_ = self.types.get(node.span)
        callee = node.callee
        if isinstance(type_, HOST_TYPES) and not (
            isinstance(callee, ast.Name) and callee.name in HOST_BUILTINS
        ):
            self.report(
                "E1704",
                f"`{self.text(node.span)}` makes a host-only value, in {self.where}",
                node.span,
                "no torch-only lowering",
            )


def _children(node: object) -> Iterator[object]:
    """The expressions directly inside an expression (arguments, operands, stages)."""
    if isinstance(node, ast.Unary):
        yield node.operand
    elif isinstance(node, ast.Binary):
        yield node.left
        yield node.right
    elif isinstance(node, ast.Cast):
        yield node.operand
    elif isinstance(node, ast.Call):
        yield node.callee
        for arg in node.args:
            if not isinstance(arg.value, ast.Pattern | ast.ToStage):
                yield arg.value
    elif isinstance(node, ast.Index):
        yield node.target
        for item in node.items:
            if isinstance(item, ast.Slice):
                yield from (part for part in (item.lo, item.hi, item.step) if part is not None)
            elif isinstance(item, ast.SpacedIndex):
                yield from item.items
            else:
                yield item
    elif isinstance(node, ast.Member):
        yield node.target
    elif isinstance(node, ast.Pipe):
        yield node.input
        for stage in node.stages:
            if not isinstance(stage, ast.ToStage):
                yield stage
    elif isinstance(node, ast.Range):
        yield node.lo
        yield node.hi
    elif isinstance(node, ast.Lambda):
        yield node.body
