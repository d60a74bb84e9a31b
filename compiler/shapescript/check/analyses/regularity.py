"""Regularity: how smooth each function's result is in each of its parameters.

Each function's result gets a class per parameter on the lattice smooth < piecewise-smooth
< discontinuous: the worst class of any operation on a path from the parameter to the
result. Calls of the file's functions use the callee's summary, worked out on a worklist
(callees first; a cycle is iterated to its fixpoint), so no walk over calls recurses.

The analysis is syntactic and sound for what it sees: every value that depends on a
parameter carries the class of the worst operation it went through, and any value of an
integer or boolean type (an Index, a Mask, an int) that depends on a parameter is
discontinuous in it. It is conservative where the values cancel or don't matter: `x - x`
compared with 0, `where(x > 0, x, 0)` (which is relu), a mask made from values but used
where the gradient is zero anyway. A call of another `.ss` file's function uses the
summary that file's check exported (`regularity_exports.py`), whose steps keep their file
and line; a Python function (an extern fn's, or one called through `import python`) has
the class the checker knows for it or its extern's doc comment declares, and is otherwise
discontinuous (`regularity_externs.py`). Only calls of function values held in names are
assumed smooth, and the summary names them. `value_and_grad(f, m, ...)` of an f
discontinuous in m is E3001 (`regularity_errors.py`); the class of each library operation
is in `regularity_operations.py`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from heapq import heappop, heappush
from operator import attrgetter

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import (
    FLOAT_DTYPES,
    BatchType,
    HostType,
    LogsType,
    ModelType,
    PythonType,
    TensorType,
    Type,
)
from shapescript.check.analyses.regularity_externs import (
    PythonClass,
    extern_class,
    python_class,
    unvouched_help,
)
from shapescript.check.analyses.regularity_layout import (
    Bases,
    Layout,
    changed_positions,
    layout_of,
    owner_of,
)
from shapescript.check.analyses.regularity_operations import (
    CLASS_NAMES,
    CONSTANT_OPERATIONS,
    DISCONTINUOUS,
    DISCONTINUOUS_OPERATIONS,
    PIECEWISE,
    PIECEWISE_OPERATIONS,
    SMOOTH,
    SMOOTH_OPERATIONS,
    UNRELATED_OPERATIONS,
)
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import Span

_DECLARATION = attrgetter("item")
_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})
#: Steps kept on a path: the first (the parameter) and the last ones.
_MAX_PATH = 10


@record(frozen=True)
class Step:
    """One place on a path from a parameter: what it is (`m.w`, `h`, `argmax`), the
    function it is in (its name, with `#k` for the k-th overload after the first) and its
    span within that function's item, so that a summary doesn't change when an edit above
    moves the function.

    A step in another file (of an imported function's summary) has that file's name in
    `file` and its line in `line`, and its span is absolute in that file. `help` is what
    E3001 suggests where the step is the cause, when the cause's name doesn't say.
    """

    text: str
    owner: str
    span: Span
    file: str = ""
    line: int = 0
    help: str = ""


@record(frozen=True)
class Dependence:
    """How a value depends on one parameter: its class, the steps from the parameter to
    here, and the operation that made it piecewise-smooth or discontinuous."""

    grade: int
    path: tuple[Step, ...]
    cause: Step | None = None

    @property
    def class_name(self) -> str:
        return CLASS_NAMES[self.grade]


Deps = dict[str, Dependence]


@record
class Summary:
    """A function's result, per parameter (in order): how it depends on it, or None where it
    doesn't; `assumed` names the calls assumed smooth, since the analysis can't see in."""

    name: str
    params: tuple[str, ...]
    results: tuple[Dependence | None, ...]
    assumed: tuple[str, ...] = ()

    def grades(self) -> tuple[int, ...]:
        return tuple(-1 if d is None else d.grade for d in self.results)


class Imported:
    """Other files' summaries by qualified name (`lib.f`, `lib.layers.g`), looked up in
    each file's exported summaries by its prefix."""

    def __init__(self, by_prefix: Mapping[str, Mapping[str, Summary]] | None = None) -> None:
        self.by_prefix = by_prefix or {}

    def get(self, name: str) -> Summary | None:
        prefix, dot, own = name.rpartition(".")
        if not dot:
            return None
        summaries = self.by_prefix.get(prefix)
        return None if summaries is None else summaries.get(own)

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None


@record
class Outside:
    """What a file's functions call besides each other and the library: other files'
    functions and extern fns (by qualified name, their steps in their files), the file's
    own extern fns' classes, and the names `import python` binds."""

    imported: Imported = field(default_factory=Imported)
    externs: dict[str, PythonClass] = field(default_factory=dict)
    python_modules: frozenset[str] = frozenset()
    #: The declarations `externs` was made from, in order, and `key()` once worked out.
    decls: list = field(default_factory=list, compare=False)
    keyed: tuple | None = field(default=None, compare=False)

    def key(self) -> tuple:
        """What summaries depend on here besides the file's text and the imported files'
        (which the checker's context already counts): the extern fns' classes."""
        if self.keyed is None:
            self.keyed = tuple(sorted(self.externs.items()))
        return self.keyed


#: The memo's entry for the `Outside` an analysis was made with.
_OUTSIDE = ("outside",)


def outside_of(
    items,
    symbols: Mapping,
    table,
    *,
    python_modules: Iterable[str] | None = None,
    previous: dict | None = None,
) -> Outside:
    """The `Outside` of a file from its items (or only those of its extern fns), its
    module symbols and its `ImportTable`; given the names its `import python` lines bind
    (`python_modules`), only their symbols are read, not every name of the file. With
    `previous` (an earlier analysis's memo), its extern fns' classes are taken while
    their declarations are the same objects, in the same order."""
    decls = list(map(_DECLARATION, items))
    before = previous.get(_OUTSIDE) if previous is not None else None
    if before is not None and changed_positions(before.decls, decls) == []:
        externs, keyed = before.externs, before.keyed
    else:
        externs = {
            decl.name: extern_class(decl) for decl in decls if decl.__class__ is ast.ExternFnDecl
        }
        keyed = None
    if python_modules is None:
        named = (name for name, symbol in symbols.items() if symbol.kind == "python_module")
    else:
        named = (
            name
            for name in python_modules
            if (symbol := symbols.get(name)) is not None and symbol.kind == "python_module"
        )
    modules = frozenset(named)
    imported = Imported(getattr(table, "regularity", None))
    return Outside(imported, externs, modules, decls, keyed)


def where(step: Step, line_of: Callable[[Step], int]) -> str:
    """`line 7`, or `line 3 of lib.ss` for a step in another file."""
    if step.file:
        return f"line {step.line} of {step.file}"
    return f"line {line_of(step)}"


@record
class Regularity:
    """Each analysed function's summary, by name; where each function's item starts, by
    owner (see `Step`); the summaries a later analysis may reuse (`memo`); the other
    files' summaries the file's calls used (`imported`); and the functions whose summary
    differs from the previous analysis's (`changed`; None where not known)."""

    summaries: dict[str, Summary] = field(default_factory=dict)
    bases: Mapping[str, int] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)
    imported: Imported = field(default_factory=Imported)
    changed: frozenset[str] | None = None

    def summary(self, name: str) -> Summary | None:
        """The summary of a function of the file, or of another file's by qualified name."""
        found = self.summaries.get(name)
        return found if found is not None else self.imported.get(name)

    def start(self, step: Step) -> int:
        """Where `step` starts in the file (a step of another file: where its span starts)."""
        if step.file:
            return step.span.start
        return self.bases.get(step.owner, 0) + step.span.start

    def absolute(self, step: Step) -> Span:
        base = self.bases.get(step.owner, 0)
        return Span(step.span.start + base, step.span.end + base)


@record
class _Function:
    decl: ast.FnDecl
    base: int
    types: dict
    owner: str
    #: The declaration as written, and where it starts in its item: with the context, what
    #: its summary depends on besides its callees'.
    written: tuple[str, int]
    #: The body's facts: other files' names (`lib.f`) by the member's span, and the
    #: function each call of a shared name means, by the callee's span.
    qualified: dict
    call_targets: dict


def _join(left: Deps, right: Deps) -> Deps:
    if not right:
        return left
    if not left:
        return right
    joined = dict(left)
    for name, dependence in right.items():
        mine = joined.get(name)
        if mine is None or dependence.grade > mine.grade:
            joined[name] = dependence
    return joined


def _extend(path: tuple[Step, ...], step: Step) -> tuple[Step, ...]:
    if path and path[-1] == step:
        return path
    path = (*path, step)
    if len(path) > _MAX_PATH:
        path = (path[0], Step("…", path[1].owner, path[1].span), *path[-(_MAX_PATH - 2) :])
    return path


def _through(deps: Deps, step: Step) -> Deps:
    """`deps` after flowing through `step` (an assignment, a field read)."""
    return {
        name: Dependence(d.grade, _extend(d.path, step), d.cause) if d.grade < DISCONTINUOUS else d
        for name, d in deps.items()
    }


def _raise(deps: Deps, grade: int, step: Step) -> Deps:
    """`deps` after an operation of class `grade` at `step`."""
    raised: Deps = {}
    for name, d in deps.items():
        if d.grade < grade:
            raised[name] = Dependence(grade, _extend(d.path, step), step)
        else:
            raised[name] = d
    return raised


def _compose(deps: Deps, inner: Dependence, call: Step) -> Deps:
    """An argument's `deps` through a callee whose result depends on the parameter as
    `inner` does."""
    composed: Deps = {}
    for name, d in deps.items():
        if inner.grade > d.grade:
            path = _extend(d.path, call)
            for step in inner.path[1:]:
                path = _extend(path, step)
            composed[name] = Dependence(inner.grade, path, inner.cause)
        else:
            composed[name] = Dependence(d.grade, _extend(d.path, call), d.cause)
    return composed


def _discrete(type_: Type | None) -> bool:
    """A type whose values are whole numbers or truth values."""
    if type_.__class__ is TensorType:
        return type_.resolved_dtype not in FLOAT_DTYPES  # type: ignore[union-attr]
    if type_.__class__ is HostType:
        return type_.kind in ("int", "bool")  # type: ignore[union-attr]
    return False


def _contains_return(body: Iterable[ast.Stmt]) -> bool:
    return any(node.__class__ is ast.Return for stmt in body for node in walk(stmt))


class _Scan:
    """Works out one function's summary from its body and its callees' summaries."""

    def __init__(
        self,
        function: _Function,
        summaries: Callable[[str], Summary | None],
        local_functions: frozenset[str],
        models: Mapping,
        text: str,
        outside: Outside,
    ) -> None:
        self.function = function
        self.outside = outside
        self.types = function.types
        self.base = function.base
        self.summary_of = summaries
        self.local_functions = local_functions
        self.models = models
        self.text = text
        self.env: dict[str, Deps] = {}
        self.control: Deps = {}
        self.result: Deps = {}
        self.pipe_inputs: list[Deps] = []
        self.assumed: list[str] = []

    # ------------------------------------------------------------------ helpers

    def _at(self, text: str, span: Span) -> Step:
        return Step(text, self.function.owner, span)

    def _text(self, node) -> str:
        span = node.span
        written = " ".join(self.text[self.base + span.start : self.base + span.end].split())
        return written if len(written) <= 40 else written[:39] + "…"

    def _step(self, node, text: str | None = None) -> Step:
        return self._at(text if text is not None else f"`{self._text(node)}`", node.span)

    def _typed(self, node, deps: Deps, label: str | None = None) -> Deps:
        """The type rule: a whole-number or boolean value is discontinuous in what it
        depends on."""
        if not deps:
            return deps
        type_ = self.types.get(node.span)
        if not _discrete(type_):
            return deps
        if label is None:
            boolean = getattr(type_, "resolved_dtype", None) == "bool" or (
                getattr(type_, "kind", None) == "bool"
            )
            held = "truth values" if boolean else "whole numbers"
            label = f"`{self._text(node)}` (which holds {held})"
        return _raise(deps, DISCONTINUOUS, self._step(node, label))

    def _assume(self, name: str, deps: Deps) -> None:
        if deps and name not in self.assumed:
            self.assumed.append(name)

    # ------------------------------------------------------------------ function

    def run(self) -> Summary:
        decl = self.function.decl
        for param in decl.params:
            start = Dependence(SMOOTH, (self._at(f"`{param.name}`", param.name_span),))
            self.env[param.name] = {param.name: start}
        if decl.expr_body is not None:
            self.result = self.expr(decl.expr_body)
        self.block(decl.body or [])
        results = tuple(self.result.get(param.name) for param in decl.params)
        return Summary(decl.name, tuple(p.name for p in decl.params), results, tuple(self.assumed))

    # ------------------------------------------------------------------ statements

    def block(self, body: Sequence[ast.Stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt) -> None:
        kind = stmt.__class__
        if kind is ast.Assign:
            value = _join(self.expr(stmt.value), self.control)
            for target in stmt.targets:
                bound = _through(value, self._at(f"`{target.name}`", target.span))
                self.env[target.name] = self._typed(target, bound)
        elif kind is ast.Return:
            if stmt.value is not None:
                self.result = _join(self.result, _join(self.expr(stmt.value), self.control))
        elif kind is ast.If:
            condition = self.expr(stmt.condition)
            condition = _raise(condition, DISCONTINUOUS, self._step(stmt.condition, None))
            outer = self.control
            self.control = _join(outer, condition)
            before = dict(self.env)
            self.block(stmt.then_body)
            after_then = self.env
            self.env = dict(before)
            self.block(stmt.else_body or [])
            self.env = self._merge(after_then, self.env)
            self.control = outer
            if _contains_return(stmt.then_body) or _contains_return(stmt.else_body or []):
                # What follows runs only where the branch didn't return.
                self.control = _join(outer, condition)
        elif kind is ast.For:
            iterated = self.expr(stmt.iterable)
            # Each pass only adds parameters or raises classes, so this ends.
            while True:
                before = dict(self.env)
                self.env[stmt.var.name] = iterated
                self.block(stmt.body)
                self.env = self._merge(before, self.env)
                if self._grades(self.env) == self._grades(before):
                    break
        elif kind is ast.FieldAssign:
            # `h.w = e` changes what `h` holds.
            root = stmt.target
            while root.__class__ is not ast.Name and hasattr(root, "target"):
                root = root.target
            if root.__class__ is ast.Name:
                value = _join(self.expr(stmt.value), self.control)
                self.env[root.name] = _join(self.env.get(root.name, {}), value)
        elif kind is ast.ExprStmt:
            self.expr(stmt.expr)

    def _merge(self, left: dict, right: dict) -> dict:
        merged = dict(left)
        for name, deps in right.items():
            merged[name] = _join(merged.get(name, {}), deps)
        return merged

    @staticmethod
    def _grades(env: dict) -> dict:
        return {
            name: tuple(sorted((p, d.grade) for p, d in deps.items())) for name, deps in env.items()
        }

    # ------------------------------------------------------------------ expressions

    def expr(self, node) -> Deps:
        kind = node.__class__
        if kind is ast.Name:
            deps = self.env.get(node.name, {})
            return self._typed(node, deps)
        if kind is ast.Placeholder:
            return self.pipe_inputs[-1] if self.pipe_inputs else {}
        if kind is ast.Binary:
            deps = _join(self.expr(node.left), self.expr(node.right))
            if deps and node.op in _COMPARISONS:
                label = f"the comparison `{self._text(node)}`"
                return _raise(deps, DISCONTINUOUS, self._step(node, label))
            return self._typed(node, deps)
        if kind is ast.Unary:
            return self._typed(node, self.expr(node.operand))
        if kind is ast.Cast:
            deps = self.expr(node.operand)
            return self._typed(node, deps, f"`{node.kind} {self._text(node.type)}`")
        if kind is ast.Call:
            return self._typed(node, self.call(node, None))
        if kind is ast.Pipe:
            return self.pipe(node)
        if kind is ast.Index:
            target = node.target
            if (
                target.__class__ is ast.Name
                and target.name in CONSTANT_OPERATIONS
                and target.name not in self.env
            ):
                return {}  # `causal[n m]`, `positions[n]`: their brackets name axes
            deps = self.expr(target)
            for item in node.items:
                deps = _join(deps, self._index_item(item))
            return self._typed(node, deps)
        if kind is ast.Member:
            return self.member(node)
        if kind is ast.Range:
            return _join(self.expr(node.lo), self.expr(node.hi))
        return {}

    def _index_item(self, item) -> Deps:
        kind = item.__class__
        if kind is ast.Slice:
            deps: Deps = {}
            for part in (item.lo, item.hi, item.step):
                if part is not None:
                    deps = _join(deps, self.expr(part))
            return _raise(deps, DISCONTINUOUS, self._step(item, "a computed index"))
        if kind is ast.SpacedIndex:
            deps = {}
            for part in item.items:
                deps = _join(deps, self.expr(part))
            return _raise(deps, DISCONTINUOUS, self._step(item, "a computed index"))
        return _raise(self.expr(item), DISCONTINUOUS, self._step(item, "a computed index"))

    def member(self, node: ast.Member) -> Deps:
        target_type = self.types.get(node.target.span)
        if target_type.__class__ is ModelType:
            info = self.models.get(target_type.name)  # type: ignore[union-attr]
            field_info = info.fields.get(node.name) if info is not None else None
            if field_info is not None and field_info.kind == "buffer":
                return {}  # a buffer isn't trained: it holds no param
            return _through(self.expr(node.target), self._step(node))
        return self._typed(node, self.expr(node.target))

    def pipe(self, node: ast.Pipe) -> Deps:
        deps = self.expr(node.input)
        for stage in node.stages:
            kind = stage.__class__
            if kind is ast.Call:
                deps = self.call(stage, deps)
            elif kind is ast.Name:
                deps = self.call_named(stage.name, stage, [(None, deps)], stage)
            elif kind is ast.Lambda:
                deps = self.apply_lambda(stage, deps)
            elif kind is ast.Member and (
                stage.span in self.function.qualified
                or self._dotted(stage) is not None
                or self.types.get(stage.target.span).__class__ is PythonType
            ):
                deps = self.call_member(stage, stage, [(None, deps)])
            elif kind is ast.ToStage:
                deps = self._typed(stage, deps, f"`{self._text(stage)}`")
                continue
            else:
                self.pipe_inputs.append(deps)
                deps = self.expr(stage)
                self.pipe_inputs.pop()
            deps = self._typed(stage, deps)
        return deps

    def apply_lambda(self, node: ast.Lambda, deps: Deps) -> Deps:
        saved = {p.name: self.env.get(p.name) for p in node.params}
        for param in node.params:
            self.env[param.name] = deps
        result = self.expr(node.body)
        for name, value in saved.items():
            if value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value
        return result

    def _arguments(self, node: ast.Call, piped: Deps | None) -> list[tuple[str | None, Deps]]:
        """Each argument's name (None by position) and dependencies; a piped value goes
        where `_` is, else first."""
        args: list[tuple[str | None, Deps]] = []
        placed = piped is None
        if piped is not None:
            self.pipe_inputs.append(piped)
        for arg in node.args:
            value = arg.value
            if value.__class__ is ast.Placeholder and piped is not None:
                args.append((arg.name, piped))
                placed = True
            elif value.__class__ is ast.Lambda:
                inputs = piped if piped is not None else {}
                args.append((arg.name, self.apply_lambda(value, inputs)))
            elif value.__class__ in (ast.Pattern, ast.ToStage) or arg.name == "over":
                continue  # patterns, types and axis names aren't values
            else:
                args.append((arg.name, self.expr(value)))
        if piped is not None:
            self.pipe_inputs.pop()
            if not placed:
                args.insert(0, (None, piped))
        return args

    def call(self, node: ast.Call, piped: Deps | None) -> Deps:
        args = self._arguments(node, piped)
        callee = node.callee
        if callee.__class__ is ast.Name:
            deps = self.call_named(callee.name, node, args, callee)
        elif callee.__class__ is ast.Member:
            deps = self.call_member(callee, node, args)
        else:
            deps = self.expr(callee)
            for _, arg in args:
                deps = _join(deps, arg)
            self._assume(self._text(callee), deps)
        for arg in node.args:
            # A `mut` argument may come back holding anything the call saw.
            if arg.mut and arg.value.__class__ is ast.Name:
                name = arg.value.name
                self.env[name] = _join(self.env.get(name, {}), _join(deps, self.control))
        return deps

    def _dotted(self, node) -> str | None:
        """`torch.nn.functional.gelu` for a member chain on an `import python` name."""
        parts = []
        while node.__class__ is ast.Member:
            parts.append(node.name)
            node = node.target
        if node.__class__ is not ast.Name or node.name in self.env:
            return None
        if node.name not in self.outside.python_modules:
            return None
        return ".".join([node.name, *reversed(parts)])

    def call_member(self, callee: ast.Member, node, args: list[tuple[str | None, Deps]]) -> Deps:
        """A call of another file's function (`lib.f(x)`), of a Python function
        (`torch.tanh(x)`), or of something a value holds."""
        qualified = self.function.qualified.get(callee.span)
        if qualified is not None:
            return self.call_named(qualified, node, args, callee)
        joined: Deps = {}
        for _, arg in args:
            joined = _join(joined, arg)
        dotted = self._dotted(callee)
        if dotted is not None:
            return self._python(python_class(dotted), joined, callee, extern=None)
        joined = _join(joined, self.expr(callee.target))
        if joined and self.types.get(callee.target.span).__class__ is PythonType:
            text = f"`{self._text(callee)}`"
            return self._python(PythonClass(DISCONTINUOUS, text), joined, callee, extern=None)
        self._assume(self._text(callee), joined)
        return joined

    def _python(self, found: PythonClass, joined: Deps, callee_node, extern: str | None) -> Deps:
        """`joined` through a Python function of class `found`, called at `callee_node`
        (by the extern fn `extern`, or through `import python`)."""
        if found.grade == SMOOTH or not joined:
            return joined
        if found.vouched:
            text = f"`{extern or found.python}`"
            return _raise(joined, found.grade, self._at(text, callee_node.span))
        python = found.python if found.python.startswith("`") else f"`{found.python}`"
        if extern is not None:
            text = f"`{extern}` (an extern fn for {python}, not known to be smooth)"
            help = unvouched_help(f"`{extern}`", extern=True)
        else:
            text = f"{python} (a Python function, not known to be smooth)"
            help = unvouched_help(python, extern=False)
        step = Step(text, self.function.owner, callee_node.span, help=help)
        return _raise(joined, found.grade, step)

    def call_named(self, name: str, node, args: list[tuple[str | None, Deps]], callee_node) -> Deps:
        joined: Deps = {}
        for _, arg in args:
            joined = _join(joined, arg)
        if name == "value_and_grad" and args and node.__class__ is ast.Call:
            first = node.args[0].value if node.args else None
            if first.__class__ is ast.Member:
                qualified = self.function.qualified.get(first.span)
                if qualified is not None:
                    return self.call_named(qualified, node, args[1:], first)
            if first.__class__ is ast.Name and first.name in self.local_functions:
                return self.call_named(first.name, node, args[1:], first)
        callee_type = self.types.get(getattr(callee_node, "span", None))
        if name in self.env or callee_type.__class__ is PythonType:
            return self._held(name, joined, callee_node)
        if name in self.local_functions:
            summary = self.summary_of(name)
            if summary is None:
                return {}
            return self._through_summary(summary, args, self._at(f"`{name}`", node.span))
        imported = self.outside.imported.get(name)
        target = self.function.call_targets.get(getattr(callee_node, "span", None))
        if imported is None and target is not None:
            imported = self.outside.imported.get(target.function)
        if imported is not None:
            step = self._at(f"`{name}`", callee_node.span)
            return self._through_summary(imported, args, step)
        extern = self.outside.externs.get(name)
        if extern is not None:
            return self._python(extern, joined, callee_node, extern=name)
        if name == "map" or name == "filter":
            return self._stage_function(node, joined)
        if name in CONSTANT_OPERATIONS:
            return {}
        step = self._at(f"`{name}`", callee_node.span)
        if name in DISCONTINUOUS_OPERATIONS:
            return _raise(joined, DISCONTINUOUS, step)
        if name in PIECEWISE_OPERATIONS:
            return _raise(joined, PIECEWISE, step)
        if name == "reduce" and any(
            arg.value.__class__ is ast.StringLit and arg.value.value in ("max", "min")
            for arg in getattr(node, "args", ())
        ):
            return _raise(joined, PIECEWISE, step)
        if name in SMOOTH_OPERATIONS or name in UNRELATED_OPERATIONS:
            return joined
        if self.types.get(getattr(node, "span", None)).__class__ in (LogsType, BatchType):
            return joined  # a record made of its fields
        self._assume(name, joined)
        return joined

    def _held(self, name: str, joined: Deps, callee_node) -> Deps:
        """A call of what a name holds: a Python value is a Python function no one vouched
        for; a function value is assumed smooth (the analysis doesn't follow which it is)."""
        if self.types.get(getattr(callee_node, "span", None)).__class__ is PythonType:
            return self._python(PythonClass(DISCONTINUOUS, f"`{name}`"), joined, callee_node, None)
        self._assume(name, joined)
        return joined

    def _stage_function(self, node, joined: Deps) -> Deps:
        """`map(f)` and `filter(f)` with a function given by name: f applied to what the
        stage is given (lambdas were followed with the arguments)."""
        for arg in getattr(node, "args", ()):
            value = arg.value
            if value.__class__ is ast.Member and value.span in self.function.qualified:
                joined = _join(joined, self.call_member(value, value, [(None, joined)]))
                continue
            if value.__class__ is not ast.Name or value.name in self.env:
                continue
            step = self._at(f"`{value.name}`", value.span)
            if value.name in self.local_functions:
                summary = self.summary_of(value.name)
                if summary is not None:
                    joined = _join(joined, self._through_summary(summary, [(None, joined)], step))
            elif value.name in self.outside.externs:
                extern = self.outside.externs[value.name]
                joined = self._python(extern, joined, value, extern=value.name)
            elif value.name in DISCONTINUOUS_OPERATIONS:
                joined = _raise(joined, DISCONTINUOUS, step)
            elif value.name in PIECEWISE_OPERATIONS:
                joined = _raise(joined, PIECEWISE, step)
        return joined

    def _through_summary(
        self, summary: Summary, args: list[tuple[str | None, Deps]], step: Step
    ) -> Deps:
        deps: Deps = {}
        position = 0
        for arg_name, arg in args:
            if arg_name is not None and arg_name in summary.params:
                index = summary.params.index(arg_name)
            else:
                index = position
                position += 1
            if index >= len(summary.results):
                continue
            inner = summary.results[index]
            if inner is not None and arg:
                deps = _join(deps, _compose(arg, inner, step))
        for name in summary.assumed:
            if deps and name not in self.assumed:
                self.assumed.append(name)
        return deps


# ---------------------------------------------------------------------- the whole file


class _Functions(dict):
    """The file's checked functions by name, each made into a `_Function` when first asked
    for (a keystroke's analysis looks at few of a big file's functions)."""

    def __init__(self, items, text: str, layout: Layout) -> None:
        super().__init__()
        self.text = text
        self.facts = items
        self.positions = layout.positions
        self.names = layout.names

    def __missing__(self, name: str) -> list[_Function]:
        made = []
        for overload, position in enumerate(self.positions[name]):
            item = self.facts[position]
            decl = item.item
            start, end = item.base + decl.span.start, item.base + decl.span.end
            written = (self.text[start:end], decl.span.start)
            facts = item.body.facts
            made.append(
                _Function(
                    decl,
                    item.base,
                    facts.types,
                    owner_of(name, overload),
                    written,
                    facts.qualified,
                    facts.call_targets,
                )
            )
        self[name] = made
        return made


#: The memo's entry for what a later analysis may reuse (`_Kept`).
_KEPT = ("kept",)


@record
class _Kept:
    """An analysis as a later one reuses it: where the file's functions were; the context
    its summaries were made in (None: they are not for reuse); the roots; the summaries of
    the functions analysed, with what each calls, what calls it, and its place in a
    callees-first order, and whether any of them call each other in a cycle; and by owner,
    each one's text with the file's names it uses (`_callees`) and its summary with the
    callees' summaries it was made with (`_summary_of`)."""

    layout: Layout
    context: object
    wanted: tuple[str, ...]
    summaries: dict[str, Summary]
    callees: dict[str, set[str]]
    callers: dict[str, set[str]]
    order: dict[str, int]
    acyclic: bool
    entries: dict


def _callees(
    functions: list[_Function], names: frozenset[str], previous: dict | None, memo: dict
) -> set[str]:
    """The file's functions that `functions` name, from the names each declaration uses
    (kept while its text is the one in `previous`, an earlier analysis's entries); the
    names are noted in `memo`, the entries being made."""
    found: set[str] = set()
    for function in functions:
        key = ("names", function.owner)
        kept = previous.get(key) if previous is not None else None
        if kept is not None and kept[0] == function.written:
            used = kept[1]
        else:
            used = frozenset(
                node.name for node in walk(function.decl) if node.__class__ is ast.Name
            )
        memo[key] = (function.written, used)
        found.update(used & names)
    return found


def analyse(
    items,
    models: Mapping,
    text: str,
    roots: Iterable[str] | None = None,
    context: object = None,
    previous: dict | None = None,
    outside: Outside | None = None,
) -> Regularity:
    """The summaries of the functions named in `roots` and of those they call (all of the
    file's functions when `roots` is None); `outside` is what else they may call. `items`
    are the file's item facts, or only those of its functions with bodies, in order (the
    only ones looked at).

    With `previous` (an earlier result's `memo`), the table of the functions by name is
    patched where the items' declarations are new objects. With `context` (what the
    bodies' types depend on besides their text: the declarations' fingerprint), a
    function whose text, place in its item and callees' summaries are those of
    `previous` keeps its summary, and when the edited functions are none of those
    analysed, the whole result is taken.
    """
    kept = previous.get(_KEPT) if previous is not None else None
    layout, changed = layout_of(items, kept.layout if kept is not None else None)
    functions = _Functions(items, text, layout)
    names = layout.names
    if outside is None:
        outside = Outside()
    elif context is not None:
        context = (context, outside.key())
    regularity = Regularity(imported=outside.imported)
    # The context is the same for every function: compared once, rather than hashed into
    # each function's key (it holds every extern's class).
    reusable = kept if context is not None and kept is not None else None
    if reusable is not None and reusable.context != context:
        reusable = None
    wanted = [name for name in (roots if roots is not None else sorted(names)) if name in names]
    if (
        reusable is not None
        and changed is not None
        and reusable.wanted == tuple(wanted)
        and (reusable.layout.names is names or reusable.layout.names == names)
        and _reused(functions, layout, changed, reusable, regularity, models, text, outside)
    ):
        regularity.memo[_OUTSIDE] = outside
        return regularity
    graph = _analyse_all(
        functions,
        wanted,
        models,
        text,
        outside,
        regularity,
        kept.entries if kept is not None else None,
        reusable.entries if reusable is not None else None,
    )
    regularity.bases = Bases(items, layout.positions, regularity.summaries)
    if context is not None:
        summaries = dict(regularity.summaries)
        regularity.memo[_KEPT] = _Kept(layout, context, tuple(wanted), summaries, *graph)
        regularity.memo[_OUTSIDE] = outside
    return regularity


def _analyse_all(
    functions: _Functions,
    wanted: list[str],
    models: Mapping,
    text: str,
    outside: Outside,
    regularity: Regularity,
    named: dict | None,
    reusable: dict | None,
) -> tuple[dict, dict, dict, bool, dict]:
    """Every function `wanted` reaches, callees first (a cycle iterated to its fixpoint),
    into `regularity`; `named` and `reusable` are an earlier analysis's entries, for the
    names used and (in the same context) for the summaries. Gives what `_Kept` keeps of
    the functions analysed: their callees, callers, places in the order, whether they
    make no cycle, and the entries."""
    names = functions.names
    entries: dict = {}
    callees: dict[str, set[str]] = {}
    order: list[str] = []
    seen: set[str] = set()
    acyclic = True
    for root in wanted:
        if root in seen:
            continue
        seen.add(root)
        callees[root] = _callees(functions[root], names, named, entries)
        stack: list[tuple[str, list[str]]] = [(root, sorted(callees[root]))]
        on_stack = {root}
        while stack:
            name, pending = stack[-1]
            if pending:
                callee = pending.pop()
                if callee not in seen:
                    seen.add(callee)
                    on_stack.add(callee)
                    callees[callee] = _callees(functions[callee], names, named, entries)
                    stack.append((callee, sorted(callees[callee])))
                elif callee in on_stack:
                    acyclic = False
                continue
            stack.pop()
            on_stack.discard(name)
            order.append(name)
    callers: dict[str, set[str]] = {}
    for name, called in callees.items():
        for callee in called:
            callers.setdefault(callee, set()).add(name)
    summaries = regularity.summaries
    queue = deque(order)
    queued = set(order)
    while queue:
        name = queue.popleft()
        queued.discard(name)
        summary = _summary_of(
            functions[name],
            callees[name],
            summaries,
            functions,
            models,
            text,
            outside,
            reusable,
            entries,
        )
        before = summaries.get(name)
        summaries[name] = summary
        if before is None or before.grades() != summary.grades():
            for caller in callers.get(name, ()):
                if caller not in queued:
                    queued.add(caller)
                    queue.append(caller)
    position = {name: index for index, name in enumerate(order)}
    return callees, callers, position, acyclic, entries


def _summary_of(
    found: list[_Function],
    called: set[str],
    summaries: dict[str, Summary],
    functions: _Functions,
    models: Mapping,
    text: str,
    outside: Outside,
    reusable: dict | None,
    entries: dict,
) -> Summary:
    """The summary of the functions of one name, from their callees' `summaries` now;
    each function's kept from `reusable` (an earlier analysis's entries in the same
    context) while its text and its callees' summaries are the same. Noted in `entries`."""
    used = tuple((callee, summaries.get(callee)) for callee in sorted(called))
    made = []
    names = functions.names
    for function in found:
        key = ("summary", function.owner)
        kept = reusable.get(key) if reusable is not None else None
        if kept is not None and kept[0] == function.written and kept[2] == used:
            summary = kept[1]
        else:
            summary = _Scan(function, summaries.get, names, models, text, outside).run()
        entries[key] = (function.written, summary, used)
        made.append(summary)
    return _joined_summaries(made)


def _reused(
    functions: _Functions,
    layout: Layout,
    changed: list[int],
    previous: _Kept,
    regularity: Regularity,
    models: Mapping,
    text: str,
    outside: Outside,
) -> bool:
    """Take the previous analysis (made in the same context, of the same roots among the
    same names), where the items at `changed` are the only new ones: whole when none of
    them is a function it analysed (an edit elsewhere, or above, which moves items but
    leaves their trees), else with the edited functions analysed again and then those
    whose callees' summaries changed, callees first. Whether it could: not where an
    edited function calls other functions than it did, has a different number of
    overloads, or the functions analysed call each other in a cycle (whose summaries
    depend on the order they are worked out in)."""
    summaries = previous.summaries
    touched: set[str] = set()
    old_decls, new_decls = previous.layout.decls, layout.decls
    for index in changed:
        for decl in (old_decls[index], new_decls[index]):
            name = getattr(decl, "name", None)
            if name in summaries:
                touched.add(name)
    if not touched:
        regularity.summaries.update(summaries)
        regularity.bases = Bases(functions.facts, layout.positions, summaries)
        regularity.changed = frozenset()
        regularity.memo[_KEPT] = replace(previous, layout=layout)
        return True
    if not previous.acyclic:
        return False
    old_positions, names = previous.layout.positions, layout.names
    entries = dict(previous.entries)
    for name in touched:
        if len(old_positions.get(name, ())) != len(layout.positions.get(name, ())):
            return False
        if _callees(functions[name], names, previous.entries, entries) != previous.callees[name]:
            return False
    now = dict(summaries)
    order, callers = previous.order, previous.callers
    pending = sorted((order[name], name) for name in touched)
    queued = set(touched)
    differ: set[str] = set()
    while pending:
        _, name = heappop(pending)
        summary = _summary_of(
            functions[name],
            previous.callees[name],
            now,
            functions,
            models,
            text,
            outside,
            previous.entries,
            entries,
        )
        if summary != now[name]:
            now[name] = summary
            differ.add(name)
            for caller in callers.get(name, ()):
                if caller not in queued:
                    queued.add(caller)
                    heappush(pending, (order[caller], caller))
    regularity.summaries.update(now)
    regularity.bases = Bases(functions.facts, layout.positions, regularity.summaries)
    regularity.changed = frozenset(differ)
    regularity.memo[_KEPT] = replace(previous, layout=layout, summaries=now, entries=entries)
    return True


def _joined_summaries(found: list[Summary]) -> Summary:
    """One summary for the functions of one name (overloads): the worse of each."""
    summary = found[0]
    for other in found[1:]:
        if len(other.results) != len(summary.results):
            continue
        results = tuple(
            b if a is None or (b is not None and b.grade > a.grade) else a
            for a, b in zip(summary.results, other.results, strict=True)
        )
        assumed = summary.assumed + tuple(n for n in other.assumed if n not in summary.assumed)
        summary = Summary(summary.name, summary.params, results, assumed)
    return summary


def describe(summary: Summary, line_of: Callable[[Step], int], shown: Sequence[str]) -> str:
    """One line for a hover: the class of the result in each parameter named in `shown`."""
    parts = []
    for name, dependence in zip(summary.params, summary.results, strict=True):
        if name not in shown:
            continue
        if dependence is None:
            parts.append(f"constant in `{name}`")
            continue
        part = f"{dependence.class_name} in `{name}`"
        if dependence.cause is not None:
            part += f" ({dependence.cause.text}, {where(dependence.cause, line_of)})"
        parts.append(part)
    if not parts:
        return ""
    line = "Regularity: " + ", ".join(parts)
    if summary.assumed:
        line += "; assumes " + ", ".join(f"`{n}`" for n in summary.assumed) + " smooth"
    return line


def analyse_checked(checked, roots: Iterable[str] | None = None) -> Regularity:
    """`analyse` over a checked file, with what it imports and its extern fns."""
    outside = outside_of(checked.items, checked.module_symbols, checked.imports)
    return analyse(checked.items, checked.models, checked.source.text, roots, outside=outside)
