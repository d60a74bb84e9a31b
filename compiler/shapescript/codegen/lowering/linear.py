"""`x @ w + b`, with a [D E] weight and an [E] bias, as one `torch.addmm` call.

torch.matmul and then `+` make the product, then a second pass over it adds the bias;
addmm starts the product from the bias. It is what torch.matmul does with a matrix on
the right (the rows flattened into one axis, a view of a contiguous x; one mm; the result
viewed back), with the bias in; its backward is matmul's and the bias's sum.
`F.linear(x, w.mT, b)` reaches the same addmm through `mT`, `linear` and `t`, whose
dispatch shows at small sizes.

A matmul is remembered by its code when its right operand is a matrix that the
checker's alignment left as it is; a sum whose one side is such a product, and the other
a vector of the same dtype lined up with the product's last axis, becomes addmm of the
product's operands.

Where the left operand has more than two axes, addmm's result is its rows viewed back to
the product's shape. An elementwise activation of that (`|> gelu`, `|> relu`) runs on the
rows and is viewed back in turn, so that a second addmm on it (an MLP's
`|> matmul(w2) |> add(b2)`) takes those rows as they are: no view of the hidden layer and
no flattening of it again, in the forward pass or the backward one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import TensorType, Type
from shapescript.codegen.context import Unsupported

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

#: What the line of a fused `x @ w + b` says.
LABEL = "x @ w + b as addmm"

#: The prelude's elementwise functions of one tensor (whatever shape they are given, each
#: value depends on its element alone) that may run on addmm's rows.
ROW_FUNCTIONS = frozenset(
    {
        "torch.nn.functional.gelu",
        "torch.nn.functional.silu",
        "torch.nn.functional.softplus",
        "torch.nn.functional.logsigmoid",
        "torch.tanh",
        "torch.sigmoid",
        "torch.exp",
        "torch.erf",
    }
)

FLOATS = ("f16", "bf16", "f32", "f64")


@dataclass(frozen=True, slots=True)
class Product:
    """A matmul's operands' code, the dtype all of it has, and the result's shape when
    the left operand has more than two axes (its rows are flattened for addmm); `rows`,
    when the left operand is a view of rows already made, those rows' code."""

    left: str
    right: str
    dtype: str
    shape: tuple[str, ...] | None
    rows: str | None = None


@dataclass(frozen=True, slots=True)
class RowView:
    """Code that is a 2-d tensor of rows (`rows`) viewed back to `shape`."""

    rows: str
    shape: tuple[str, ...]

    def code(self) -> str:
        return f"{self.rows}.view({', '.join(self.shape)})"


def remember(
    gen: FunctionGenerator, text: str, left: str, right: str, types: tuple[Type | None, ...]
) -> None:
    """Note a matmul's code (`text`) when it may take a bias: `types` are its left and
    right operands' and its result's, all of one float dtype, the right one a matrix."""
    left_type, right_type, result = types
    if gen.lowered:
        # In an elementwise stage an operand may be the whole iterated tensor, which the
        # recorded types describe one element of.
        return
    if not all(isinstance(t, TensorType) and t.axes is not None for t in types):
        return
    if len(right_type.axes) != 2 or len(left_type.axes) < 2:
        return
    dtypes = {t.resolved_dtype for t in types}
    if len(dtypes) != 1 or next(iter(dtypes)) not in FLOATS:
        return
    shape = None
    if len(result.axes) > 2:
        try:
            shape = tuple(gen.size(axis.size) for axis in result.axes)
        except Unsupported:
            return
    viewed = gen.row_views.get(left)
    rows = viewed.rows if viewed is not None and len(left_type.axes) > 2 else None
    gen.products[text] = Product(left, right, next(iter(dtypes)), shape, rows)


def fused(
    gen: FunctionGenerator, product: str, bias: str, bias_type: Type | None, result: Type | None
) -> str | None:
    """`product + bias` as addmm, or None when it isn't a remembered matmul plus a vector
    of its dtype along its last axis (the caller checked that the bias isn't moved)."""
    found = gen.products.get(product)
    if found is None or not isinstance(bias_type, TensorType) or bias_type.axes is None:
        return None
    if len(bias_type.axes) != 1 or bias_type.resolved_dtype != found.dtype:
        return None
    if not isinstance(result, TensorType) or result.resolved_dtype != found.dtype:
        return None
    if not result.axes or result.axes[-1].size != bias_type.axes[0].size:
        return None
    if not gen.lowers(LABEL):
        return None
    if found.shape is None:
        return f"_ss_torch.addmm({bias}, {found.left}, {found.right})"
    rows = found.rows or f"{found.left}.flatten(0, -2)"
    return _viewed(gen, RowView(f"_ss_torch.addmm({bias}, {rows}, {found.right})", found.shape))


def _viewed(gen: FunctionGenerator, view: RowView) -> str:
    """The code of `view`, remembered as such."""
    code = view.code()
    gen.row_views[code] = view
    return code


def on_rows(gen: FunctionGenerator, path: str, function: str, arguments: list[str]) -> str | None:
    """`function(argument)` as the function of the rows viewed back, when the one argument
    is addmm's rows viewed back and the function one of `ROW_FUNCTIONS`; else None."""
    if path not in ROW_FUNCTIONS or len(arguments) != 1:
        return None
    return form_on_rows(gen, function + "({0})", arguments[0])


#: The built-in elementwise functions of one tensor that may run on addmm's rows.
ROW_BUILTINS = frozenset({"relu", "abs", "square"})


def form_on_rows(gen: FunctionGenerator, form: str, argument: str) -> str | None:
    """`form` (code with `{0}` for its one tensor, elementwise) of `argument` run on the
    rows, when `argument` is addmm's rows viewed back; else None."""
    viewed = gen.row_views.get(argument)
    if viewed is None:
        return None
    return _viewed(gen, RowView(form.format(viewed.rows), viewed.shape))


def either_side(
    gen: FunctionGenerator, sides: tuple[str, str], types: tuple[Type | None, ...]
) -> str | None:
    """`left + right` as addmm when either side is the product and the other its bias;
    `types` are the left's, the right's and the sum's."""
    left, right = sides
    left_type, right_type, result = types
    found = fused(gen, left, right, right_type, result)
    if found is None and "(" not in left:
        # The bias first: addmm evaluates it after the product's operands, so only a bias
        # whose code calls nothing (a name, a field, an index) may move there.
        found = fused(gen, right, left, left_type, result)
    return found
