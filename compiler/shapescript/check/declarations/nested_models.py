"""Fields that hold models: `attn: Attention` (one) and `h: [L] Block` (a stack of L).

Their types (E0902, E3402), the help for a model written as a `param` or `buffer`
(E0303, E0902), and models that hold themselves (E3401).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.types import UNKNOWN, ModelType, StackType, Type
from shapescript.check.declarations.model_info import FieldInfo, ModelInfo
from shapescript.check.declarations.model_memo import PlacedInfos
from shapescript.check.declarations.symbols import Reference
from shapescript.diagnostics.diagnostic import Label
from shapescript.records import replace
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.declarations.declaration_checker import DeclarationChecker

#: What a field that holds models looks like, for help texts.
SYNTAX = "`attn: Attention` holds one model, `h: [L] Block` a stack of L"


def _model_word(checker: DeclarationChecker, written: ast.TypeExpr) -> ast.TypeWord | None:
    for word in written.words:
        symbol = checker.scope.symbols.get(word.name)
        if symbol is not None and symbol.kind == "model":
            return word
    return None


def held_model_misdeclared(checker: DeclarationChecker, decl: ast.FieldDecl) -> bool:
    """`param h: [L] Block` (E0303) or `param attn: Block` (E0902): a field that holds models
    is written without `param` or `buffer`. True when reported."""
    written = decl.type
    if written is None:
        return False
    word = _model_word(checker, written)
    if word is None:
        return False
    if written.shape is not None:
        sizes = " ".join(_axis_text(axis) for axis in written.shape.axes)
        checker._error(
            "E0303",
            f"`{word.name}` is a model, so `{decl.name}` holds models, not a tensor: "
            f"a field that holds models has no `{decl.kind}`",
            written.span,
            "models, not a tensor",
            help=f"drop `{decl.kind}`: write `{decl.name}: [{sizes}] {word.name}` for a stack "
            f"of {word.name} models ({SYNTAX})",
        )
    else:
        checker._error(
            "E0902",
            f"a `{decl.kind}` holds a tensor, but `{word.name}` is a model: a field that holds "
            f"a model has no `{decl.kind}`",
            written.span,
            "a model, not a tensor",
            help=f"drop `{decl.kind}`: write `{decl.name}: {word.name}` ({SYNTAX})",
        )
    return True


def nested_model_type(
    checker: DeclarationChecker, decl: ast.FieldDecl
) -> tuple[Type, str | None, int | None]:
    """The type of `attn: Attention` or `h: [L] Block`, the model it holds and the stack's
    count; `UNKNOWN` after E0902 or E3402."""
    written = decl.type
    if written is None:
        checker._error("E0902", f"field `{decl.name}` has no type", decl.name_span, "no type")
        return UNKNOWN, None, None
    word = _model_word(checker, written)
    if word is None:
        checker._error(
            "E0902",
            f"`{decl.name}` has no `param` or `buffer`, so it holds a model, but its type "
            "names no model",
            written.span,
            "not a model",
            help=f"write `param {decl.name}: …` for a trained tensor, `buffer {decl.name}: …` "
            f"for one that isn't; {SYNTAX}",
        )
        return UNKNOWN, None, None
    if len(written.words) > 1 or word.arg is not None or written.dtype is not None:
        checker._error(
            "E0902",
            f"a field that holds models has only the model's name and a stack's size, "
            f"as in `{decl.name}: {word.name}` or `{decl.name}: [L] {word.name}`",
            written.span,
            "not a model field",
            help="remove the domain or dtype: the model's fields have their own",
        )
        return UNKNOWN, None, None
    checker.facts.references.append(Reference(word.span, module_name=word.name))
    if decl.init is not None:
        checker._error(
            "E0902",
            f"`{decl.name}` holds a {word.name}, whose fields have their own initializers, "
            "so it has none",
            decl.init.span,
            "no initializer here",
            help=f"remove `= …`; `{word.name}.init(seed=s)` on the outer model draws them all",
        )
        return UNKNOWN, None, None
    held = ModelType(word.name)
    if written.shape is None:
        return held, word.name, None
    count, size = _stack_size(checker, written.shape)
    if count is None:
        return UNKNOWN, None, None
    return StackType(held, count, size), word.name, count


def _stack_size(checker: DeclarationChecker, shape: ast.Shape) -> tuple[int | None, str]:
    """A stack's size: one axis, a positive number or a dim (E3402)."""
    axes = shape.axes
    if len(axes) == 1 and isinstance(axes[0], ast.SizeAxis):
        size = axes[0].size
        if isinstance(size, ast.SizeInt) and size.value > 0:
            return size.value, str(size.value)
        if isinstance(size, ast.SizeName):
            value = checker.scope.dim_values.get(size.name)
            if value is not None and value.value is not None and int(value.value) > 0:
                checker.facts.references.append(Reference(size.span, module_name=size.name))
                return int(value.value), size.name
            if value is not None and value.value is None:
                return None, ""  # the dim's own error was reported
    written = " ".join(_axis_text(axis) for axis in axes)
    checker._error(
        "E3402",
        f"a stack of models has one size, a positive number or a dim, not `[{written}]`",
        shape.span,
        "not a stack's size",
        help="write `h: [L] Block` with a dim `L`, or `h: [6] Block`",
    )
    return None, ""


def _axis_text(axis: ast.Axis) -> str:
    if isinstance(axis, ast.SizeAxis):
        return _size_text(axis.size)
    if isinstance(axis, ast.UnknownAxis):
        return f"?{axis.name}"
    if isinstance(axis, ast.GroupedSizeAxis):
        return f"{axis.count}{axis.name}"
    if isinstance(axis, ast.GroupAxis):
        return "(" + " ".join(_axis_text(item) for item in axis.items) + ")"
    return "…"


def _size_text(size: ast.SizeExpr) -> str:
    if isinstance(size, ast.SizeName):
        return size.name
    if isinstance(size, ast.SizeInt):
        return str(size.value)
    return f"{_size_text(size.left)}{size.op}{_size_text(size.right)}"


#: How deep models may hold models (a GPT is 3 or 4 deep): building and checking a model
#: walks its nesting, and a hostile file of thousands of models each holding the next must
#: not exhaust the stack. E3404 past it.
MAX_MODEL_DEPTH = 64


def report_cycles(
    infos: MutableMapping[str, ModelInfo], reporter: Reporter
) -> MutableMapping[str, ModelInfo]:
    """E3401 for each model that holds itself, directly or through others, named with the
    path, and E3404 for models nested past `MAX_MODEL_DEPTH`; those models are returned
    not ok, so nothing builds them.

    Infos a check found clean (`PlacedInfos.clean`, which infos taken whole from the
    previous analysis keep) are returned as they are, unread; so are infos found clean
    now, marked so."""
    if isinstance(infos, PlacedInfos) and infos.clean:
        return infos
    held = {name: _held(info) for name, info in infos.items()}
    on_cycle = _report_cycles(infos, held, reporter)
    too_deep = _report_depth(infos, held, reporter, on_cycle)
    bad = on_cycle | too_deep
    if not bad and isinstance(infos, PlacedInfos):
        infos.clean = True
        return infos
    return {name: replace(info, ok=False) if name in bad else info for name, info in infos.items()}


def _held(info: ModelInfo) -> list[FieldInfo]:
    return [field for field in info.nested if field.model is not None]


def _report_cycles(
    infos: Mapping[str, ModelInfo], held_by: dict[str, list[FieldInfo]], reporter: Reporter
) -> set[str]:
    """One depth-first walk (an explicit stack, linear in models and fields): a field that
    leads back to a model still on the walk's path closes a cycle."""
    position = {name: index for index, name in enumerate(infos)}
    state: dict[str, int] = {}  # 1 while on the walk's path, 2 when done
    on_cycle: set[str] = set()
    reported: set[frozenset[str]] = set()
    for root in infos:
        if root in state:
            continue
        # (model, its fields that hold models, the next one to follow)
        path: list[tuple[str, list[FieldInfo], int]] = [(root, held_by[root], 0)]
        state[root] = 1
        while path:
            name, fields, next_index = path[-1]
            if next_index == len(fields):
                state[name] = 2
                path.pop()
                continue
            path[-1] = (name, fields, next_index + 1)
            field = fields[next_index]
            target = field.model
            assert target is not None
            if target not in infos or state.get(target) == 2:
                continue
            if state.get(target) == 1:
                first = next(i for i, (model, _, _) in enumerate(path) if model == target)
                step = [(model, held[index - 1].name) for model, held, index in path[first:]]
                members = frozenset(model for model, _ in step)
                on_cycle |= members
                if members not in reported:
                    reported.add(members)
                    start = min(range(len(step)), key=lambda i: position[step[i][0]])
                    _report_cycle(infos, reporter, tuple(step[start:] + step[:start]))
                continue
            state[target] = 1
            path.append((target, held_by[target], 0))
    return on_cycle


def _report_depth(
    infos: Mapping[str, ModelInfo],
    held_by: dict[str, list[FieldInfo]],
    reporter: Reporter,
    on_cycle: set[str],
) -> set[str]:
    """How many levels each model's nesting has, worked out leaves first without recursion;
    E3404 where a model's levels first pass the limit."""
    levels: dict[str, int] = {}
    for root in infos:
        if root in levels or root in on_cycle:
            continue
        pending = [root]
        while pending:
            name = pending[-1]
            inner = [
                f.model
                for f in held_by[name]
                if f.model is not None
                and f.model in infos
                and f.model not in on_cycle
                and f.model not in levels
            ]
            if inner:
                pending += inner
                continue
            pending.pop()
            held = [levels.get(f.model, 0) for f in held_by[name] if f.model in levels]
            levels[name] = 1 + max(held, default=0)
    # A model that holds none has one level; one that holds it, two: it holds models 1 deep.
    too_deep = {name for name, level in levels.items() if level - 1 > MAX_MODEL_DEPTH}
    for name in too_deep:
        deepest = max(
            (f for f in held_by[name] if f.model in levels),
            key=lambda f: levels[f.model or ""],
        )
        if levels[name] - 1 != MAX_MODEL_DEPTH + 1:
            continue  # reported where the nesting first passed the limit
        reporter.report(
            "E3404",
            f"`{name}` holds models {levels[name] - 1} levels deep, more than the "
            f"{MAX_MODEL_DEPTH} a model may",
            deepest.span,
            f"holds {deepest.model}, which holds models {levels[name] - 2} levels deep",
            help="flatten the nesting: a stack `h: [L] Block` holds L models at one level",
        )
    return too_deep


def _report_cycle(
    infos: Mapping[str, ModelInfo], reporter: Reporter, step: tuple[tuple[str, str], ...]
) -> None:
    owner, field_name = step[0]
    held = infos[owner].fields[field_name]
    path = " → ".join(f"{model}.{name}" for model, name in step) + f" → {owner}"
    others = [
        Label(
            infos[model].fields[name].span,
            f"{model}.{name} holds {infos[model].fields[name].model}",
        )
        for model, name in step[1:]
    ]
    reporter.report(
        "E3401",
        f"`{owner}` holds itself: {path}",
        held.span,
        "holds itself" if len(step) == 1 else f"holds {held.model}, which holds {owner}",
        secondary=others,
        help="a model can't hold itself, directly or through other models: it would never "
        "end; remove one of these fields",
    )
