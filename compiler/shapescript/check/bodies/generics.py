"""Generic functions: each call works out the type variables and checks an instance.

A generic function isn't checked on its own (its body is looked at only for the editor's
facts, silently). A call works its type variables out from the arguments (E2310), and
checks an instance: the function with the types put in, as a function of its own. What
goes wrong in an instance is reported at the call: a function it needs that the model
doesn't have (E2311), any other error (E2312), instances that make instances too deep
(E2313). Instances are kept by function and types, for the whole check and the next one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.types import (
    UNKNOWN,
    ModelType,
    NamedType,
    PythonType,
    Type,
    UnknownType,
    format_type,
)
from shapescript.check.declarations import imports
from shapescript.check.declarations.instance_decls import instance_decl
from shapescript.check.declarations.module_paths import STD_FOLDER, shown_name
from shapescript.check.declarations.overloads import python_name
from shapescript.check.declarations.symbols import (
    BodyResult,
    CallTarget,
    Facts,
    Home,
    Instance,
    ItemFacts,
    has_table,
    read_table,
)
from shapescript.check.declarations.type_exprs import TypeResolver
from shapescript.check.declarations.type_variables import MODEL, RECORD, binding_of, with_types
from shapescript.diagnostics.diagnostic import Label
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext, ProgramContext
    from shapescript.check.bodies.env import Arg
    from shapescript.check.declarations.module_scope import ModuleScope
    from shapescript.check.declarations.signatures import Signature

#: Instances that make other instances may go this many levels deep (E2313).
MAX_DEPTH = 16


@record
class Missing:
    """A function an instance calls on a type variable's model that the model lacks:
    where each generic function on the way uses it, innermost first."""

    function: str
    model: str
    uses: list[str]
    help: str | None = None


@record
class Outcome:
    """What checking one instance found. `instance` is None while it is being checked (a
    call of itself) and when it would be too deep."""

    instance: Instance | None
    missing: list[Missing] = field(default_factory=list)
    #: Every other error in the instance and the instances it calls, as located notes,
    #: and the absolute span of each in this file (None for one in another file).
    errors: list[tuple[str, Span | None]] = field(default_factory=list)
    #: The generic functions whose instances went too deep, outermost first; None if not.
    too_deep: list[str] | None = None


_IN_PROGRESS = Outcome(None)


class Frame:
    """The instance a `BodyChecker` is checking: `checker.instance`."""

    def __init__(
        self, function: str, bindings: dict[str, tuple[str, str]], depth: int, home: Home
    ) -> None:
        self.function = function
        self.depth = depth
        self.home = home
        #: How the instance's types name other files (`QualifiedNames`), for another
        #: file's function, whose names were put in as the checker names them.
        self.names = None
        self.models = {name for kind, name in bindings.values() if kind == MODEL}
        self.missing: list[Missing] = []
        self.errors: list[tuple[str, Span | None]] = []
        self.too_deep: list[str] | None = None
        #: Where the instance calls each function it needs: an unknown name reported
        #: there (value_and_grad's function, evaluated as a name) is that need.
        self.needed_at: set[Span] = set()

    def need(
        self,
        checker: BodyContext,
        name: str,
        model: str,
        where: Span,
        args: list[Arg] | None = None,
        returns: str | None = None,
    ) -> None:
        """Note that the instance calls `name` on a model that has no such function."""
        use = f"`{self.function}` uses it at {_location(self.home, where)}"
        self.needed_at.add(where)
        self.missing.append(Missing(name, model, [use], _declare_help(name, args, returns)))


def _declare_help(name: str, args: list[Arg] | None, returns: str | None) -> str | None:
    """`fn loss(m: Plain, batch: [b] Ex, mode: Mode) -> []`, from the call's arguments."""
    if not args:
        return None
    params = []
    for index, arg in enumerate(args):
        if arg.name is not None or isinstance(arg.type, (UnknownType, PythonType)):
            return None
        shown = arg.expr.name if isinstance(arg.expr, ast.Name) else f"x{index + 1}"
        params.append(("mut " if arg.mut else "") + f"{shown}: {format_type(arg.type)}")
    returned = f" -> {returns}" if returns else ""
    return f"fn {name}({', '.join(params)}){returned}"


# ---------------------------------------------------------------------- calls


def call(checker: BodyContext, signature: Signature, args: list[Arg], node: ast.Call) -> Type:
    """A call of a generic function: its type variables, its instance, its result."""
    matched = checker.match_arguments(signature.name, signature.params, args, node)
    if matched is None:
        return UNKNOWN
    bindings = _bindings(checker, signature, matched, node)
    if bindings is None:
        return UNKNOWN
    where = node.callee.span if isinstance(node.callee, ast.Name) else node.span
    frame = getattr(checker, "instance", None)
    outcome = instantiate(checker.program, signature, bindings, frame.depth + 1 if frame else 1)
    key = tuple(bindings[variable][1] for variable in signature.type_variables)
    checker.facts.call_targets[where] = CallTarget(
        signature.name,
        key,
        instance_python_name(checker.scope, signature.name, key),
        outcome.instance,
    )
    if frame is not None:
        _pass_up(checker, frame, outcome, signature.name, where)
    else:
        _report(checker, signature, bindings, outcome, where)
    if outcome.instance is not None:
        instance_signature = outcome.instance.signature
    else:
        instance_signature = instance_signature_of(checker.program, signature, bindings)
    if outcome is _IN_PROGRESS and instance_signature.return_type is None:
        checker.reporter.report(
            "E0306",
            f"`{signature.name}` has no return type, so it can't call itself",
            node.span,
            "recursive call",
            help=f"give `{signature.name}` a return type: `-> T`",
        )
        return UNKNOWN
    if instance_signature.return_type is None:
        instance_signature = replace(instance_signature, return_type=UNKNOWN)
    return checker.call_signature(instance_signature, args, node)


def _bindings(
    checker: BodyContext, signature: Signature, matched, node: ast.Call
) -> dict[str, tuple[str, str]] | None:
    """Each type variable's kind and type, from the arguments; None after E2310, or when
    an argument of unknown type leaves one open."""
    found: dict[str, tuple[str, str, Arg]] = {}
    unknown = False
    for param, slot in matched:
        if slot is None:
            continue
        arg = slot[1]
        if isinstance(arg.type, UnknownType):
            unknown = True
            continue
        for variable, kind, name in binding_of(param.type, arg.type):
            if variable not in signature.type_variables:
                continue
            if kind == RECORD and not _is_record(checker, param.type, name):
                continue
            wanted = signature.type_variables[variable]
            if wanted != kind and wanted in (MODEL, RECORD):
                checker.reporter.report(
                    "E2310",
                    f"`{variable}` of `{signature.name}` stands for a {wanted}, and "
                    f"`{param.name}` gets the {kind} {name}",
                    arg.span,
                    f"a {kind}",
                )
                return None
            earlier = found.get(variable)
            if earlier is not None and earlier[1] != name:
                checker.reporter.report(
                    "E2310",
                    f"`{variable}` of `{signature.name}` can't be both {earlier[1]} and {name}",
                    arg.span,
                    f"makes `{variable}` {name}",
                    secondary=[Label(earlier[2].span, f"makes `{variable}` {earlier[1]}")],
                    notes=[f"`{param.name}` is {format_type(param.type)}"],
                    help="pass values of one type, or give the function another type "
                    "variable for this parameter",
                )
                return None
            found.setdefault(variable, (kind, name, arg))
    for variable in signature.type_variables:
        if variable in found:
            continue
        if unknown:
            return None
        checker.reporter.report(
            "E2310",
            f"no argument of this call says what `{variable}` of `{signature.name}` is",
            node.callee.span if isinstance(node.callee, ast.Name) else node.span,
            f"`{variable}` unknown",
            notes=[_variable_uses(signature, variable)],
            help="pass a model or data record where the function takes one; a value from "
            "Python has no ShapeScript type to give, so say what it is with `as`",
        )
        return None
    return {variable: (kind, name) for variable, (kind, name, _) in found.items()}


def _is_record(checker: BodyContext, pattern: Type, name: str) -> bool:
    """A record binding from a bare `E` must name a data record (not a logs record)."""
    if not (isinstance(pattern, NamedType) and pattern.args == ("type variable",)):
        return True
    return isinstance(checker.scope.records.get(name), ast.DataDecl)


def _variable_uses(signature: Signature, variable: str) -> str:
    uses = [
        f"`{param.name}: {format_type(param.type)}`"
        for param in signature.params
        if variable in format_type(param.type).replace("[", " ").replace("]", " ").split()
    ]
    return f"`{variable}` is the type of " + ", ".join(uses) if uses else f"`{variable}` is unused"


def instance_signature_of(
    program: ProgramContext, signature: Signature, bindings: dict[str, tuple[str, str]]
) -> Signature:
    """The signature with the type variables' types written in, resolved as the file's
    own types are: no longer generic, and of the original declaration."""
    from shapescript.check.declarations.signatures import build_signature

    names = {variable: name for variable, (_, name) in bindings.items()}
    written = with_types(signature.decl, names)
    resolved = build_signature(
        written, TypeResolver(Reporter()), program.scope.type_context(), origin=signature.origin
    )
    return replace(resolved, decl=signature.decl, type_variables={})


# ---------------------------------------------------------------------- instances


def _table(program: ProgramContext) -> dict:
    """The instances of this check, by generic function and types."""
    return program.__dict__.setdefault("_generic_instances", {})


def instantiate(
    program: ProgramContext, signature: Signature, bindings: dict[str, tuple[str, str]], depth: int
) -> Outcome:
    """The instance of a generic function for these types, checked once per check (and
    reused by the next while its text and the file's declarations are the same)."""
    found = _declared(program, signature)
    if found is None:
        return Outcome(None)
    decl, home, names, modules = found
    pairs = tuple((variable, bindings[variable][1]) for variable in signature.type_variables)
    table = _table(program)
    key = (id(decl), pairs)
    if key in table:
        return table[key]
    if depth > MAX_DEPTH:
        return Outcome(None, too_deep=[decl.name])
    text = home.text[home.base + decl.span.start : home.base + decl.span.end]
    place = text if home.prefix is None else (home.path, text)
    memo_key = ("instance", place, decl.span.start, pairs, program.fingerprint)
    remembered = program.previous_memo.get(memo_key) or program.memo.get(memo_key)
    if isinstance(remembered, Outcome) and _reusable(program, remembered):
        table[key] = remembered
        _remember(program, memo_key, remembered)
        return remembered
    table[key] = _IN_PROGRESS
    variables = {variable: name for variable, (_, name) in bindings.items()}
    checked = instance_decl(decl, names | variables, modules)
    outcome = _check_instance(program, signature, bindings, pairs, depth, checked, home)
    if outcome.too_deep is None:
        table[key] = outcome
        _remember(program, memo_key, outcome)
    else:
        del table[key]
    return outcome


def _declared(
    program: ProgramContext, signature: Signature
) -> tuple[ast.FnDecl, Home, dict[str, str], dict[str, str]] | None:
    """A generic function's own declaration, where it is, and the names its instances put
    in besides the types (another file's names, as this file gives them)."""
    decl = signature.decl
    index = program.item_index.get(id(decl))
    if index is not None:
        home = Home(program.scope.path, program.source_text, program.module.base_of(index))
        return decl, home, {}, {}
    foreign = imports.foreign_generic(program.scope, signature)
    if foreign is None:
        return None
    exports = foreign.exports
    home = Home(exports.path, exports.text, foreign.base, foreign.prefix, _shown(program, foreign))
    return foreign.decl, home, foreign.names, foreign.modules


def _shown(program: ProgramContext, foreign: imports.ForeignGeneric) -> str:
    """How messages name another file: as its import does, `nets.ss`, `models/mlp.ss`;
    the standard library's files from the package's folder, `<shapescript>/std/fit.ss`."""
    path = foreign.exports.path
    if os.path.dirname(path) == STD_FOLDER or path.startswith(STD_FOLDER + os.sep):
        relative = os.path.relpath(path, STD_FOLDER).replace(os.sep, "/")
        return f"<shapescript>/std/{relative}"
    table = program.scope.imports
    for info in table.infos if table is not None else ():
        if info.prefix == foreign.prefix and info.path == path:
            return shown_name(info.module.split("."))
    return os.path.basename(path)


def instance_python_name(scope: ModuleScope, function: str, key: tuple[str, ...]) -> str:
    """The compiled instance's name in this file's module: `_ss_fit__Mlp__Digit`, also for
    another file's `std.fit`, unless this file declares a `fit` or imports another generic
    `fit`, when the file's prefix goes in too: `_ss_std_fit__Mlp__Digit`."""
    prefix, dot, plain = function.rpartition(".")
    if not dot:
        return python_name(function, key)
    table = scope.imports
    clash = plain in scope.functions or any(
        other != function and other.rpartition(".")[2] == plain and signature.is_generic
        for other, signature in (table.signatures.items() if table is not None else ())
    )
    stem = f"{prefix.replace('.', '_')}_{plain}" if clash else plain
    return python_name(stem, key)


def _check_instance(
    program: ProgramContext,
    signature: Signature,
    bindings: dict[str, tuple[str, str]],
    pairs: tuple[tuple[str, str], ...],
    depth: int,
    decl: ast.FnDecl,
    home: Home,
) -> Outcome:
    instance_signature = instance_signature_of(program, signature, bindings)
    checker = program.body_checker(decl, instance_signature)
    checker.base = home.base
    checker.source_text = home.text
    frame = Frame(decl.name, bindings, depth, home)
    table = program.scope.imports
    if home.prefix is not None and table is not None:
        frame.names = replace(table.names, canonical_ok=True)
    checker.instance = frame
    program.inferring.append(signature.name)
    try:
        result = checker.check()
    finally:
        program.inferring.pop()
    if instance_signature.return_type is None:
        instance_signature = replace(instance_signature, return_type=result.inferred)
    shown = _bindings_text(pairs)
    errors = list(frame.errors)
    for diagnostic in result.diagnostics:
        if not diagnostic.is_error or diagnostic.span in frame.needed_at:
            continue
        where = _location(home, diagnostic.span)
        span = Span(home.base + diagnostic.span.start, home.base + diagnostic.span.end)
        errors.append(
            (
                f"in `{decl.name}` with {shown}, at {where}: "
                f"error[{diagnostic.code}]: {diagnostic.message}",
                span if home.prefix is None else None,
            )
        )
    body = BodyResult(result.facts, [], result.inferred)
    instance = Instance(
        signature.name,
        pairs,
        instance_python_name(program.scope, signature.name, tuple(name for _, name in pairs)),
        instance_signature,
        ItemFacts(signature.decl if home.prefix is None else decl, home.base, Facts(), body),
        decl,
        home,
    )
    return Outcome(instance, frame.missing, errors, frame.too_deep)


def _pass_up(checker: BodyContext, frame: Frame, outcome: Outcome, name: str, where: Span) -> None:
    """An instance's call of another generic function: what went wrong in the callee's
    instance is the caller instance's, its uses now also going through this call."""
    called_at = f"called by `{frame.function}` at {_location(frame.home, where)}"
    for missing in outcome.missing:
        frame.missing.append(replace(missing, uses=[*missing.uses, called_at]))
    frame.errors.extend(outcome.errors)
    if outcome.too_deep is not None and frame.too_deep is None:
        frame.too_deep = [frame.function, *outcome.too_deep]


def _report(
    checker: BodyContext,
    signature: Signature,
    bindings: dict[str, tuple[str, str]],
    outcome: Outcome,
    where: Span,
) -> None:
    """E2311, E2312 and E2313 at a call of a generic function from non-generic code."""
    shown = _bindings_text(tuple((v, bindings[v][1]) for v in signature.type_variables))
    # Named as its own file names it, as the notes of its instance do.
    name = signature.name.rpartition(".")[2]
    if outcome.too_deep is not None:
        chain = outcome.too_deep[: MAX_DEPTH + 1]
        checker.reporter.report(
            "E2313",
            f"`{name}` with {shown} makes instances of generic functions more than "
            f"{MAX_DEPTH} levels deep",
            where,
            "instances too deep",
            notes=["the calls: " + " -> ".join(f"`{link}`" for link in chain) + " -> …"],
            help="make the chain shorter, or let some of its functions take the concrete type",
        )
    if outcome.missing:
        first = outcome.missing[0]
        notes = []
        for missing in outcome.missing:
            if (missing.function, missing.model) != (first.function, first.model):
                notes.append(
                    f"it also needs a function `{missing.function}` that takes "
                    f"`{missing.model}` first: " + ", ".join(missing.uses)
                )
            else:
                notes.append(", ".join(missing.uses))
        declared = f"declare it, here `{first.help}`, " if first.help else "declare it "
        checker.reporter.report(
            "E2311",
            f"`{name}` with {shown} needs a function `{first.function}` that takes "
            f"`{first.model}` first",
            where,
            f"no `{first.function}` for {first.model}",
            notes=notes,
            help=declared + "next to the model",
        )
    if outcome.errors:
        secondary = []
        for _, span in outcome.errors:
            if span is not None:
                local = Span(span.start - checker.base, span.end - checker.base)
                secondary.append(Label(local, f"error in the instance with {shown}"))
        checker.reporter.report(
            "E2312",
            f"`{name}` doesn't check with {shown}",
            where,
            "instance with errors",
            notes=[note for note, _ in outcome.errors],
            secondary=secondary[:1],
            help="change the function for these types, or call it with others",
        )


def _bindings_text(pairs: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{variable} = {name}" for variable, name in pairs)


def _location(home: Home, span: Span) -> str:
    """`path:line:column` of a span within the generic function's item."""
    text = home.text
    offset = max(0, min(home.base + span.start, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{home.shown or home.path}:{line}:{column}"


# ---------------------------------------------------------------------- reuse


def _same_place(program: ProgramContext, instance: Instance | None) -> bool:
    """Whether the generic function of an instance from an earlier check is still in the
    file at the same place, and so is that of every instance it calls."""
    if instance is None:
        return True
    seen: set[int] = set()
    stack = [instance]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        foreign = current.home is not None and current.home.prefix is not None
        # Another file's function is where it was while the files' texts are the same,
        # which the check's fingerprint covers.
        index = program.item_index.get(id(current.item.item))
        if not foreign and (index is None or program.module.base_of(index) != current.item.base):
            return False
        body = current.item.body
        if body is not None:
            stack.extend(
                target.instance
                for target in body.facts.call_targets.values()
                if target.instance is not None
            )
    return True


def _reusable(program: ProgramContext, outcome: Outcome) -> bool:
    """Whether an instance from an earlier check may be reused: one without errors always
    (its facts count from its function's start), one with errors while its functions are
    where they were, since the errors name lines."""
    if not outcome.missing and not outcome.errors and outcome.too_deep is None:
        return True
    return _same_place(program, outcome.instance)


#: The codes whose notes name lines in generic functions.
LOCATED_CODES = frozenset({"E2311", "E2312", "E2403"})


def body_reusable(program: ProgramContext, result: BodyResult) -> bool:
    """Whether a function body's result from an earlier check may be reused: unless it
    reports errors of instances it calls, which name their lines, or points into another
    function (E2403's "here", which an edit between the two moves), it can."""
    located = [d for d in result.diagnostics if d.code in LOCATED_CODES]
    if not located:
        return True
    if any(diagnostic.code == "E2403" and diagnostic.secondary for diagnostic in located):
        return False
    return all(
        _same_place(program, target.instance) for target in result.facts.call_targets.values()
    )


def instances_of(items: list[ItemFacts]) -> list[Instance]:
    """Every instance the items' bodies call, directly or through other instances (the
    items without bodies may be left out)."""
    found: dict[str, Instance] = {}
    # Most bodies call nothing by a shared name: they have no table of call targets.
    stack = [
        body
        for item in reversed(items)
        if (body := item.body) is not None and has_table(body.facts, "call_targets")
    ]
    while stack:
        body = stack.pop()
        targets = [
            t for t in read_table(body.facts, "call_targets").values() if t.instance is not None
        ]
        for target in reversed(targets):
            instance = target.instance
            if instance.python_name in found:
                continue
            found[instance.python_name] = instance
            if instance.item.body is not None:
                stack.append(instance.item.body)
    return list(found.values())


# ---------------------------------------------------------------------- the editor


def calls_on_type_variables(item: ItemFacts, signature: Signature) -> list[str]:
    """The functions a generic function's body calls with a value of a type variable
    first (`loss(m, …)`, `value_and_grad(loss, m, …)`), in order, once each: those each
    type must bring, so not the built-ins."""
    facts = item.body.facts if item.body is not None else None
    if facts is None or not isinstance(item.item, ast.FnDecl):
        return []
    from shapescript.check.algebra.syntax_facts import walk
    from shapescript.check.algebra.types import is_type_variable
    from shapescript.check.bodies.builtin_rules import KNOWN

    found: dict[str, None] = {}
    for node in sorted(
        (n for n in walk(item.item) if isinstance(n, ast.Call)), key=lambda n: n.span.start
    ):
        if not isinstance(node.callee, ast.Name):
            continue
        positional = [arg.value for arg in node.args if arg.name is None]
        name = node.callee.name
        if name == "value_and_grad" and len(positional) >= 2:
            function, first = positional[0], positional[1]
            if isinstance(function, ast.Name) and _of_variable(facts, first, is_type_variable):
                found.setdefault(function.name, None)
        elif (
            positional
            and name not in KNOWN
            and _of_variable(facts, positional[0], is_type_variable)
        ):
            found.setdefault(name, None)
    return list(found)


def _of_variable(facts: Facts, node, is_type_variable) -> bool:
    type_ = facts.types.get(getattr(node, "span", None))
    return type_ is not None and is_type_variable(type_) and not isinstance(type_, ModelType)


def keep_instances(program: ProgramContext) -> None:
    """Carry the previous check's instances into this one's memo while the declarations
    are the same, also those no body was checked again to ask for (their callers' results
    were reused), so that a later edit of a caller still finds them.

    The memo lists its instances' keys (`_INSTANCE_KEYS`): a keystroke in a big file
    looks at those, not at every entry of a memo of tens of thousands of bodies."""
    previous = program.previous_memo
    keys = previous.get(_INSTANCE_KEYS)
    if not isinstance(keys, dict):
        keys = {key: None for key in previous if _is_instance_key(key)}
    kept = program.memo.setdefault(_INSTANCE_KEYS, {})
    fingerprint = program.fingerprint
    for key in keys:
        if key[4] == fingerprint and key in previous:
            program.memo.setdefault(key, previous[key])
            kept[key] = None


def _remember(program: ProgramContext, key: tuple, outcome: Outcome) -> None:
    """Put an instance's outcome in the memo, and its key in the memo's list of them."""
    program.memo[key] = outcome
    program.memo.setdefault(_INSTANCE_KEYS, {})[key] = None


def _is_instance_key(key: object) -> bool:
    return isinstance(key, tuple) and len(key) == 5 and key[0] == "instance"


#: The memo's entry that lists the keys of its instances, as a dict's keys (in order).
_INSTANCE_KEYS = "instance keys"
