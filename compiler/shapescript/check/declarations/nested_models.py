"""Fields that hold models: `attn: Attention` (one) and `h: [L] Block` (a stack of L).

Their types (E0902, E3402), the help for a model written as a `param` or `buffer`
(E0303, E0902), and models that hold themselves (E3401).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.types import UNKNOWN, ModelType, StackType, Type
from shapescript.check.declarations.model_info import ModelInfo
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


def report_cycles(infos: dict[str, ModelInfo], reporter: Reporter) -> dict[str, ModelInfo]:
    """E3401 for each model that holds itself, directly or through others, named with the
    path; the models on a cycle are returned not ok, so nothing builds them."""
    order = list(infos)
    position = {name: index for index, name in enumerate(order)}
    on_cycle: set[str] = set()
    reported: set[frozenset[str]] = set()
    for start in order:
        # Depth-first from `start` on an explicit stack: (model, path of fields so far).
        stack: list[tuple[str, tuple[tuple[str, str], ...]]] = [(start, ())]
        seen: set[str] = set()
        while stack:
            name, path = stack.pop()
            info = infos.get(name)
            if info is None:
                continue
            for held in info.nested:
                if held.model is None:
                    continue
                step = (*path, (name, held.name))
                if held.model == start:
                    members = frozenset(owner for owner, _ in step)
                    on_cycle |= members
                    first = min(members, key=position.__getitem__)
                    if members not in reported and first == start:
                        reported.add(members)
                        _report_cycle(infos, reporter, step)
                    continue
                if held.model not in seen:
                    seen.add(held.model)
                    stack.append((held.model, step))
    return {
        name: replace(info, ok=False) if name in on_cycle else info for name, info in infos.items()
    }


def _report_cycle(
    infos: dict[str, ModelInfo], reporter: Reporter, step: tuple[tuple[str, str], ...]
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
