"""Qualified names, `attention.Mlp`: which imported file a prefix means, and what it declares.

Inside the checker another file's declarations carry one canonical name per file: the
name of the import that binds it without `as` when there is one, else the first import's
(`import a.b as c` alone makes its model `c.Mlp`). Files imported only through other
files get the chain of names (`attention.layers.Mlp`), which source can't write.
"""

from __future__ import annotations

from collections.abc import Callable

from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span


class BadName(Exception):
    """A qualified name that names nothing; already reported, or silently unknown."""


@record
class QualifiedNames:
    """The imports a file's qualified names may start with."""

    #: Each import's bound name -> the canonical prefix of the file it found.
    prefixes: dict[str, str] = field(default_factory=dict)
    #: Each import's bound name -> how messages name its file (`attention.ss`).
    files: dict[str, str] = field(default_factory=dict)
    #: Canonical prefix -> the names that file declares at its top level.
    declared: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Bound names of imports that found no file, or a cycle: their names are unknown,
    #: silently, since the import line already has the error.
    broken: set[str] = field(default_factory=set)
    #: Whether a name may also be written as the checker names it (`lib.layers.H`, which
    #: source can't write): in an instance of another file's generic function, whose
    #: names were put in that way.
    canonical_ok: bool = False

    def is_import(self, name: str) -> bool:
        return name in self.prefixes or name in self.broken

    def canonical(self, bound: str, name: str) -> str | None:
        """`bound.name` as the checker names it; None if the file doesn't declare it."""
        prefix = self.prefixes.get(bound)
        if prefix is None or name not in self.declared.get(prefix, ()):
            return None
        return f"{prefix}.{name}"

    def resolve(self, dotted: str, span: Span, report: Callable[..., None]) -> str:
        """A dotted name written in a type, as the checker names it (BadName after E2304 or
        E0301)."""
        if self.canonical_ok:
            prefix, _, last = dotted.rpartition(".")
            if last in self.declared.get(prefix, ()):
                return dotted
        bound, _, rest = dotted.partition(".")
        if bound in self.broken:
            raise BadName
        if bound not in self.prefixes:
            report("E0301", f"unknown name `{bound}`", span, "not an imported file")
            raise BadName
        found = self.canonical(bound, rest)
        if found is None:
            report_undeclared(report, self.files.get(bound, bound), bound, rest, span)
            raise BadName
        return found


def report_undeclared(report: Callable[..., None], file: str, bound: str, name: str, span):
    """E2304: `bound.name` where the file imported as `bound` doesn't declare `name`."""
    through = "." in name
    report(
        "E2304",
        f"`{file}` (imported as `{bound}`) declares no `{name}`",
        span,
        "not declared there",
        help=(
            "name each file with its own import: a file's imports aren't part of its names"
            if through
            else "check the spelling, and that the declaration is at the top level of that file"
        ),
    )


# ---------------------------------------------------------------------- written types


def map_type_expr(written: ast.TypeExpr, rename: Callable[[str, Span], str]) -> ast.TypeExpr:
    """A written type with every declared-looking name passed through `rename(name, span)`:
    the names of sizes, type words and their arguments. Unchanged parts are shared, and the
    type itself is returned when nothing changed."""
    changed = False
    shape = written.shape
    if shape is not None:
        axes = map_axes(shape.axes, rename)
        if axes is not shape.axes:
            shape = ast.Shape(axes, shape.span)
            changed = True
    words = []
    for word in written.words:
        name = rename(word.name, word.span)
        arg = map_size(word.arg, rename) if word.arg is not None else None
        over = rename(word.over, word.over_span or word.span) if word.over is not None else None
        if name != word.name or arg is not word.arg or over != word.over:
            word = ast.TypeWord(name, word.span, arg, over, word.over_span)
            changed = True
        words.append(word)
    if not changed:
        return written
    return ast.TypeExpr(shape, words, written.dtype, written.span, written.dtype_span)


def map_axes(axes: list[ast.Axis], rename: Callable[[str, Span], str]) -> list[ast.Axis]:
    result = []
    changed = False
    for axis in axes:
        new = axis
        if isinstance(axis, ast.SizeAxis):
            size = map_size(axis.size, rename)
            if size is not axis.size:
                new = ast.SizeAxis(size, axis.span)
        elif isinstance(axis, ast.GroupAxis):
            items = map_axes(axis.items, rename)
            if items is not axis.items:
                new = ast.GroupAxis(items, axis.span)
        elif isinstance(axis, ast.GroupedSizeAxis):
            name = rename(axis.name, axis.span)
            if name != axis.name:
                new = ast.GroupedSizeAxis(axis.count, name, axis.span)
        changed = changed or new is not axis
        result.append(new)
    return result if changed else axes


def map_size(size: ast.SizeExpr, rename: Callable[[str, Span], str]) -> ast.SizeExpr:
    if isinstance(size, ast.SizeName):
        name = rename(size.name, size.span)
        return size if name == size.name else ast.SizeName(name, size.span)
    if isinstance(size, ast.SizeBinary):
        left = map_size(size.left, rename)
        right = map_size(size.right, rename)
        if left is size.left and right is size.right:
            return size
        return ast.SizeBinary(size.op, left, right, size.span)
    return size


def has_dotted_name(written: ast.TypeExpr) -> bool:
    """Whether a written type names anything of another file: a look at the names
    `map_type_expr` would pass to its `rename`, stopping at the first dotted one."""
    shape = written.shape
    if shape is not None:
        # Most axes are a name or a number, looked at here without `_axes_have_dot`'s
        # stack; the node classes have no subclasses, so `type(x) is C` is `isinstance`.
        for axis in shape.axes:
            kind = type(axis)
            if kind is ast.SizeAxis:
                size = axis.size
                kind = type(size)
                if kind is ast.SizeName:
                    if "." in size.name:
                        return True
                elif kind is not ast.SizeInt and _size_has_dot(size):
                    return True
            elif (kind is ast.GroupAxis or kind is ast.GroupedSizeAxis) and _axes_have_dot([axis]):
                return True
    for word in written.words:
        if "." in word.name or (word.over is not None and "." in word.over):
            return True
        if word.arg is not None and _size_has_dot(word.arg):
            return True
    return False


def _axes_have_dot(axes: list[ast.Axis]) -> bool:
    pending = list(axes)
    while pending:
        axis = pending.pop()
        if isinstance(axis, ast.SizeAxis):
            if _size_has_dot(axis.size):
                return True
        elif isinstance(axis, ast.GroupAxis):
            pending.extend(axis.items)
        elif isinstance(axis, ast.GroupedSizeAxis) and "." in axis.name:
            return True
    return False


def _size_has_dot(size: ast.SizeExpr) -> bool:
    pending = [size]
    while pending:
        size = pending.pop()
        if isinstance(size, ast.SizeName):
            if "." in size.name:
                return True
        elif isinstance(size, ast.SizeBinary):
            pending.append(size.left)
            pending.append(size.right)
    return False


def canonical_type(
    written: ast.TypeExpr, names: QualifiedNames, report: Callable[..., None]
) -> ast.TypeExpr:
    """A written type with its qualified names made canonical (BadName after a report)."""
    if not has_dotted_name(written):
        return written

    def rename(name: str, span: Span) -> str:
        return names.resolve(name, span, report) if "." in name else name

    return map_type_expr(written, rename)
