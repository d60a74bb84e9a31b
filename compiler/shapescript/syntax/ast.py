"""The syntax tree. Every node has a span; declarations keep the span of their name."""

from __future__ import annotations

from shapescript.records import field, record
from shapescript.syntax.source import Span

# ---------------------------------------------------------------- sizes and types


@record
class SizeName:
    """A name used as a size: a dim, an axis name, an alias or another file's `mod.D`."""

    name: str
    span: Span


@record
class SizeInt:
    value: int
    span: Span


@record
class SizeBinary:
    op: str
    left: SizeExpr
    right: SizeExpr
    span: Span


SizeExpr = SizeName | SizeInt | SizeBinary


@record
class SizeAxis:
    """An axis given by a size expression: `n`, `3*D`, `(n+1)*2`."""

    size: SizeExpr
    span: Span


@record
class GroupAxis:
    """A group of axes forming one axis: `(h d)`."""

    items: list[Axis]
    span: Span


@record
class GroupedSizeAxis:
    """`16gh`: one axis of size 16 × gh, the group `(gh 16)`."""

    count: int
    name: str
    span: Span


@record
class UnknownAxis:
    """`?k`: a size the checker can't see."""

    name: str
    span: Span


@record
class RestAxis:
    """`...`: any number of other axes (extern fn only)."""

    span: Span


@record
class ErrorAxis:
    """An axis that didn't parse (already reported); its type is unknown."""

    span: Span


Axis = SizeAxis | GroupAxis | GroupedSizeAxis | UnknownAxis | RestAxis | ErrorAxis


@record
class Shape:
    axes: list[Axis]
    span: Span


@record
class TypeWord:
    """A named part of a type: a domain, alias, model, record or `Grad[M]`-style wrapper."""

    name: str
    span: Span
    arg: SizeExpr | None = None
    over: str | None = None
    over_span: Span | None = None


@record
class TypeExpr:
    """`[b n D] Signed bf16`, `Images Unit`, `Real`, `i64`, `Mlp`, `[b] Digit`, `Grad[Mlp]`."""

    shape: Shape | None
    words: list[TypeWord]
    dtype: str | None
    span: Span
    dtype_span: Span | None = None


# ---------------------------------------------------------------- patterns


@record
class PatternName:
    name: str
    span: Span


@record
class PatternInt:
    value: int
    span: Span


@record
class PatternGroup:
    items: list[PatternAxis]
    span: Span


@record
class PatternGroupedSize:
    """`16gh` in a pattern: the group `(gh 16)`."""

    count: int
    name: str
    span: Span


PatternAxis = PatternName | PatternInt | PatternGroup | PatternGroupedSize


@record
class PatternSide:
    axes: list[PatternAxis]
    span: Span


@record
class Pattern:
    """`inputs -> output`, a plain-syntax argument of a pattern operation."""

    inputs: list[PatternSide]
    output: PatternSide
    span: Span
    arrow_span: Span


# ---------------------------------------------------------------- expressions


@record
class Name:
    name: str
    span: Span


@record
class IntLit:
    value: int
    span: Span


@record
class FloatLit:
    value: float
    text: str
    span: Span


@record
class StringLit:
    value: str
    span: Span


@record
class BoolLit:
    value: bool
    span: Span


@record
class InfLit:
    span: Span


@record
class Placeholder:
    """`_` in a pipe stage's call: where the piped value goes."""

    span: Span
    in_stage: bool = False


@record
class Unary:
    op: str
    operand: Expr
    span: Span


@record
class Binary:
    """Arithmetic, comparison, `and`, `or` and `@`."""

    op: str
    left: Expr
    right: Expr
    span: Span
    op_span: Span


@record
class Cast:
    """`x as T` (assert) or `x to T` (convert)."""

    kind: str
    operand: Expr
    type: TypeExpr
    span: Span


@record
class Arg:
    """A call argument: positional or keyword, maybe `mut`, maybe a pattern."""

    value: Expr | Pattern | ToStage
    span: Span
    name: str | None = None
    name_span: Span | None = None
    mut: bool = False


@record
class Call:
    callee: Expr
    args: list[Arg]
    span: Span
    #: Set for `einsum(q, k: pattern)`: the arguments before the colon are the operands.
    operands_form: bool = False


@record
class Slice:
    lo: Expr | None
    hi: Expr | None
    step: Expr | None
    span: Span


@record
class SpacedIndex:
    """Several expressions separated by spaces, as in `causal[n m]`."""

    items: list[Expr]
    span: Span


@record
class Index:
    target: Expr
    items: list[Expr | Slice | SpacedIndex]
    span: Span


@record
class Member:
    target: Expr
    name: str
    name_span: Span
    span: Span


@record
class ToStage:
    """`|> to T` in a pipeline."""

    type: TypeExpr
    span: Span


@record
class Pipe:
    """`input |> stage |> stage`; stages in order."""

    input: Expr
    stages: list[Expr | ToStage]
    span: Span
    bar_spans: list[Span] = field(default_factory=list)


@record
class Range:
    """`a..b`: only the start of an iterator chain or a for loop's iterable."""

    lo: Expr
    hi: Expr
    span: Span


@record
class LambdaParam:
    name: str
    span: Span


@record
class Lambda:
    params: list[LambdaParam]
    body: Expr
    span: Span


@record
class ErrorExpr:
    """Stands for an expression that didn't parse; checked as unknown, never reported again."""

    span: Span


Expr = (
    Name
    | IntLit
    | FloatLit
    | StringLit
    | BoolLit
    | InfLit
    | Placeholder
    | Unary
    | Binary
    | Cast
    | Call
    | Index
    | Member
    | Pipe
    | Range
    | Lambda
    | ErrorExpr
)

# ---------------------------------------------------------------- statements


@record
class Target:
    name: str
    span: Span


@record
class Return:
    value: Expr | None
    span: Span


@record
class Assign:
    """`x = e` or `a, b = e` (one name per result of split, topk or value_and_grad)."""

    targets: list[Target]
    value: Expr
    span: Span


@record
class FieldAssign:
    """`m.w = e`: changes a model's field; `m.h[l].attn.w = e` one of a model it holds
    (`target` is then the path to that model, down from a name)."""

    target: Name | Member | Index
    field_name: str
    field_span: Span
    value: Expr
    span: Span


@record
class For:
    var: Target
    iterable: Expr
    body: list[Stmt]
    span: Span


@record
class If:
    condition: Expr
    then_body: list[Stmt]
    else_body: list[Stmt] | None
    span: Span
    else_span: Span | None = None


@record
class ExprStmt:
    expr: Expr
    span: Span


@record
class Assert:
    """`assert n <= T`: a relation of sizes and host values the checker decides for every
    value it can (at the top level over dims, in a function over its sizes)."""

    condition: Expr
    span: Span
    keyword_span: Span


@record
class ErrorStmt:
    """A statement that didn't parse."""

    span: Span


Stmt = Return | Assign | FieldAssign | For | If | ExprStmt | Assert | ErrorStmt

# ---------------------------------------------------------------- declarations


@record
class DocComment:
    text: str
    span: Span


@record
class DeviceOption:
    words: list[str]
    span: Span


@record
class DevicesDecl:
    device: str
    device_span: Span
    numbers: list[int] | None
    options: list[DeviceOption]
    span: Span


@record
class DimDecl:
    name: str
    name_span: Span
    value: SizeExpr
    span: Span
    doc: DocComment | None = None


@record
class AliasDecl:
    """`dim Images = [b 3 16gh 16gw]`: a shape alias."""

    name: str
    name_span: Span
    shape: Shape
    span: Span
    doc: DocComment | None = None


@record
class Interval:
    lo: Expr
    hi: Expr
    lo_closed: bool
    hi_closed: bool
    span: Span


@record
class DomainDecl:
    name: str
    name_span: Span
    interval: Interval
    span: Span
    doc: DocComment | None = None


@record
class Param:
    name: str
    name_span: Span
    type: TypeExpr | None
    default: Expr | None
    span: Span
    mut: bool = False


@record
class FnDecl:
    name: str
    name_span: Span
    params: list[Param]
    return_type: TypeExpr | None
    #: A block body, or None for an `= expr` body.
    body: list[Stmt] | None
    expr_body: Expr | None
    span: Span
    export: bool = False
    doc: DocComment | None = None


@record
class ExternFnDecl:
    name: str
    name_span: Span
    params: list[Param]
    return_type: TypeExpr | None
    python_path: StringLit | None
    span: Span
    doc: DocComment | None = None


@record
class ImportPythonDecl:
    """`import python torch.nn` binds `torch`."""

    parts: list[str]
    span: Span
    parts_span: Span
    doc: DocComment | None = None

    @property
    def bound_name(self) -> str:
        return self.parts[0]


@record
class ImportDecl:
    """`import models.mlp [as m]`: another .ss file; binds the last part or the alias."""

    parts: list[str]
    alias: str | None
    span: Span
    parts_span: Span
    alias_span: Span | None = None
    doc: DocComment | None = None

    @property
    def bound_name(self) -> str:
        return self.alias or self.parts[-1]


@record
class FieldDecl:
    """`param w: [D C] = normal(std=0.02)` or `buffer mean: [D] = zeros` in a model."""

    kind: str
    name: str
    name_span: Span
    type: TypeExpr | None
    init: Expr | None
    span: Span
    doc: DocComment | None = None


@record
class ModelDecl:
    name: str
    name_span: Span
    fields: list[FieldDecl]
    span: Span
    doc: DocComment | None = None


@record
class DataField:
    name: str
    name_span: Span
    type: TypeExpr
    span: Span
    doc: DocComment | None = None


@record
class DataDecl:
    name: str
    name_span: Span
    fields: list[DataField]
    span: Span
    doc: DocComment | None = None


@record
class Metric:
    """`loss: [] mean` in a logs record: a type and how its values combine."""

    name: str
    name_span: Span
    type: TypeExpr
    combine: str | None
    combine_span: Span | None
    span: Span
    doc: DocComment | None = None


@record
class LogsDecl:
    name: str
    name_span: Span
    metrics: list[Metric]
    span: Span
    doc: DocComment | None = None


@record
class StmtItem:
    """A statement at the top level of a notebook cell."""

    stmt: Stmt
    span: Span


@record
class ErrorItem:
    """A top-level line (and its block) that didn't parse."""

    span: Span


Item = (
    DevicesDecl
    | DimDecl
    | AliasDecl
    | DomainDecl
    | FnDecl
    | ExternFnDecl
    | ImportPythonDecl
    | ImportDecl
    | ModelDecl
    | DataDecl
    | LogsDecl
    | StmtItem
    | Assert
    | ErrorItem
)

#: Declarations that a `##` doc comment may document.
DOCUMENTABLE = (
    DimDecl,
    AliasDecl,
    DomainDecl,
    FnDecl,
    ExternFnDecl,
    ImportPythonDecl,
    ImportDecl,
    ModelDecl,
    FieldDecl,
    DataDecl,
    DataField,
    LogsDecl,
    Metric,
)


@record
class Module:
    """One parsed file or notebook cell: its items in source order.

    Items are parsed one chunk at a time, and their spans count from the start of their
    chunk, so an unchanged item can be reused after an edit above it moved it.
    """

    items: list[Item]
    span: Span
    notebook: bool = False
    #: Where each item's chunk starts in the file: an item's spans are relative to it.
    bases: list[int] = field(default_factory=list)

    def base_of(self, index: int) -> int:
        return self.bases[index] if self.bases else 0


def path_root(expr: Expr) -> Name | None:
    """The name a path of fields and indexes starts from: `m` of `m.h[l].attn`."""
    node = expr
    while isinstance(node, Member | Index):
        node = node.target
    return node if isinstance(node, Name) else None


def whole_slice(item: object) -> bool:
    """Whether an index is `:`, which keeps its axis as it is."""
    return isinstance(item, Slice) and item.lo is None and item.hi is None and item.step is None
