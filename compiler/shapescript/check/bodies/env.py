"""What a function body's checker keeps between expressions: matched arguments, names."""

from __future__ import annotations

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import Type
from shapescript.check.declarations.symbols import Symbol
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span


@record
class Arg:
    """A call argument after matching: its expression (None when piped) and its type."""

    expr: ast.Expr | ast.Pattern | ast.ToStage | None
    type: Type
    span: Span
    name: str | None = None
    mut: bool = False


@record
class Env:
    """A block's names: values and axis names, each with the symbol that declared it."""

    values: dict[str, tuple[Type, Symbol]] = field(default_factory=dict)
    axes: dict[str, tuple[Poly, Symbol]] = field(default_factory=dict)

    def copy(self) -> Env:
        return Env(dict(self.values), dict(self.axes))

    def axis_sizes(self) -> dict[str, Poly]:
        return {name: size for name, (size, _) in self.axes.items()}
