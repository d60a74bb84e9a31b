"""A matrix's structure: where the checker knows its values are one background value.

`causal[n m]` is false wherever m > n; `masked_fill(x, !causal[n m], -inf)` is -inf
there, and a softmax (or log_softmax) along m of that is 0 (or -inf) there. The structure
follows those operations and plain bindings; anything else drops it. It is kept apart from
the types (`Facts.structures`), so that types compare as they always have.
"""

from __future__ import annotations

from shapescript.check.algebra.types import TensorType
from shapescript.records import record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: The background values a structure can promise, as text: masks, then numbers.
MASK_BACKGROUNDS = frozenset({"false", "true"})


@record(frozen=True)
class Structure:
    """Values that are `background` wherever the `columns` index is above the `rows` index
    (m > n for `causal[n m]`); `rows` and `columns` are axis names."""

    rows: str
    columns: str
    background: str

    def describe(self) -> str:
        """`causal: -inf where m > n`."""
        return f"causal: {self.background} where {self.columns} > {self.rows}"

    @property
    def number(self) -> float:
        """The background as a number: false is 0, true is 1."""
        if self.background in MASK_BACKGROUNDS:
            return 1.0 if self.background == "true" else 0.0
        return float(self.background)


def record_structures(decl: ast.FnDecl, facts) -> None:
    """Work out the structure of each expression and binding of a checked function body,
    into `facts.structures` (by span, the body's facts being item-relative as the AST's),
    and the function's, by its name's span, when every value it returns has the same one."""
    finder = _Finder(facts)
    if decl.body is not None:
        finder.statements(decl.body)
        returned = set(finder.returned)
    elif decl.expr_body is not None:
        returned = {finder.expression(decl.expr_body)}
    else:
        return
    if len(returned) == 1 and None not in returned:
        facts.structures[decl.name_span] = returned.pop()


def returned_structure(checked, name: str) -> Structure | None:
    """The structure of what the function `name` of a checked file returns, if it has one."""
    for item in checked.items:
        decl = item.item
        if isinstance(decl, ast.FnDecl) and decl.name == name and item.body is not None:
            return item.body.facts.structures.get(decl.name_span)
    return None


class _Finder:
    def __init__(self, facts) -> None:
        self.facts = facts
        self.symbols = {ref.span: ref.symbol for ref in facts.references if ref.symbol}
        #: The structure of each value returned, None for one without.
        self.returned: list[Structure | None] = []

    def statements(self, body: list[ast.Stmt]) -> None:
        for stmt in body:
            match stmt:
                case ast.Assign(targets=[target], value=value):
                    found = self.expression(value)
                    if found is not None and self._fits(target.span, found):
                        self.facts.structures[target.span] = found
                case ast.Return(value=value):
                    self.returned.append(self.expression(value) if value is not None else None)
                case ast.Assign(value=value) | ast.ExprStmt(expr=value):
                    if value is not None:
                        self.expression(value)
                case ast.FieldAssign(value=value):
                    self.expression(value)
                case ast.For(iterable=iterable, body=inner):
                    self.expression(iterable)
                    self.statements(inner)
                case ast.If(condition=condition, then_body=then_body, else_body=else_body):
                    self.expression(condition)
                    self.statements(then_body)
                    self.statements(else_body or [])

    def expression(self, expr) -> Structure | None:
        """The expression's structure (recording it, and its parts')."""
        found = self._structure(expr)
        if found is not None and self._fits(expr.span, found):
            self.facts.structures[expr.span] = found
            return found
        return None

    def _fits(self, span: Span, found: Structure) -> bool:
        """Whether the value's type has the structure's two axes (by name)."""
        type_ = self.facts.types.get(span)
        if not isinstance(type_, TensorType) or type_.axes is None:
            return False
        names = [axis.name for axis in type_.axes]
        return found.rows in names and found.columns in names

    def _structure(self, expr) -> Structure | None:
        match expr:
            case ast.Name(span=span):
                symbol = self.symbols.get(span)
                return self.facts.structures.get(symbol.span) if symbol is not None else None
            case ast.Index(target=ast.Name(name="causal"), items=items):
                names = _causal_names(items)
                return Structure(names[0], names[1], "false") if names else None
            case ast.Unary(op="!", operand=operand):
                inner = self.expression(operand)
                if inner is None or inner.background not in MASK_BACKGROUNDS:
                    return None
                flipped = "true" if inner.background == "false" else "false"
                return Structure(inner.rows, inner.columns, flipped)
            case ast.Call(callee=ast.Name(name=name), args=args):
                found = [self._argument(arg) for arg in args]
                return _through_call(name, args, found)
            case ast.Pipe(input=input_, stages=stages):
                current = self.expression(input_)
                for stage in stages:
                    current = self._stage(stage, current)
                return current
            case _:
                for child in _children(expr):
                    self.expression(child)
                return None

    def _stage(self, stage, piped: Structure | None) -> Structure | None:
        """The structure after a pipe stage, given the piped value's: the value goes where
        the stage's `_` is, else first, as the checker reads a stage."""
        match stage:
            case ast.Name(name=name, span=span):
                return _through_call(
                    name, [ast.Arg(value=ast.Placeholder(span), span=span)], [piped]
                )
            case ast.Call(callee=ast.Name(name=name), args=args, span=span):
                found = [
                    piped if isinstance(arg.value, ast.Placeholder) else self._argument(arg)
                    for arg in args
                ]
                if not any(isinstance(arg.value, ast.Placeholder) for arg in args):
                    args = [ast.Arg(value=ast.Placeholder(span), span=span), *args]
                    found = [piped, *found]
                return _through_call(name, args, found)
            case ast.Call(args=args):
                for arg in args:
                    self._argument(arg)
        return None

    def _argument(self, arg: ast.Arg) -> Structure | None:
        return self.expression(arg.value) if _is_expr(arg.value) else None


def _through_call(
    name: str, args: list[ast.Arg], found: list[Structure | None]
) -> Structure | None:
    pairs = zip(args, found, strict=True)
    positional = [(arg, structure) for arg, structure in pairs if arg.name is None]
    over = next((arg.value for arg in args if arg.name == "over"), None)
    if name == "masked_fill" and len(positional) == 3:
        (_, tensor), (_, mask), (fill, _) = positional
        value = _constant(fill.value)
        if mask is not None and mask.background == "true" and value is not None:
            return Structure(mask.rows, mask.columns, value)
        if tensor is not None and mask is not None and tensor.background == value:
            return tensor
        return None
    if name in ("softmax", "log_softmax") and len(positional) == 1:
        (_, tensor) = positional[0]
        if (
            tensor is None
            or tensor.background != "-inf"
            or not isinstance(over, ast.Name)
            or over.name != tensor.columns
        ):
            return None
        return Structure(tensor.rows, tensor.columns, "0" if name == "softmax" else "-inf")
    return None


def _causal_names(items) -> tuple[str, str] | None:
    if len(items) == 1 and isinstance(items[0], ast.SpacedIndex):
        items = items[0].items
    if len(items) == 2 and all(isinstance(item, ast.Name) for item in items):
        return items[0].name, items[1].name
    return None


def _constant(expr) -> str | None:
    """A fill value the structure can promise: -inf, inf or a number, as text."""
    match expr:
        case ast.Unary(op="-", operand=ast.InfLit()):
            return "-inf"
        case ast.InfLit():
            return "inf"
        case ast.IntLit(value=value) | ast.FloatLit(value=value):
            return _number(float(value))
        case ast.Unary(op="-", operand=ast.IntLit(value=value) | ast.FloatLit(value=value)):
            return _number(-float(value))
    return None


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _is_expr(value) -> bool:
    return isinstance(value, ast.Expr)


def _children(expr) -> list:
    """The sub-expressions whose structure may be worth recording."""
    match expr:
        case ast.Unary(operand=operand):
            return [operand]
        case ast.Binary(left=left, right=right):
            return [left, right]
        case ast.Call(callee=callee, args=args):
            return [callee] + [arg.value for arg in args if _is_expr(arg.value)]
        case ast.Index(target=target):
            return [target]
        case ast.Member(target=target):
            return [target]
        case ast.Cast(operand=operand):
            return [operand]
        case ast.Pipe(input=input_):
            return [input_]
    return []
