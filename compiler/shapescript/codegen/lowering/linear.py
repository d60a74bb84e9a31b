"""`x @ w + b`, with a [D E] weight and an [E] bias, as one fused `F.linear` call.

torch.matmul and then `+` make the product, then a second pass adds the bias; F.linear
adds the bias in the product's own kernel (addmm) and its backward sums the bias's
gradient there too. A matmul is remembered by its code when its right operand is a
matrix that the checker's alignment left as it is; a sum whose one side is such a
product, and the other a vector of the same dtype lined up with the product's last axis,
becomes F.linear of the product's operands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import TensorType, Type

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

#: What the line of a fused `x @ w + b` says.
LABEL = "x @ w + b as linear"

FLOATS = ("f16", "bf16", "f32", "f64")


@dataclass(frozen=True, slots=True)
class Product:
    """A matmul's operands' code, and the dtype all of it has."""

    left: str
    right: str
    dtype: str


def remember(
    gen: FunctionGenerator, text: str, left: str, right: str, types: tuple[Type | None, ...]
) -> None:
    """Note a matmul's code (`text`) when it may take a bias: `types` are its left and
    right operands' and its result's, all of one float dtype, the right one a matrix."""
    left_type, right_type, result = types
    tensors = [t for t in types if isinstance(t, TensorType) and t.axes is not None]
    if len(tensors) != 3 or len(right_type.axes) != 2 or not left_type.axes:
        return
    dtypes = {t.resolved_dtype for t in tensors}
    if len(dtypes) == 1 and next(iter(dtypes)) in FLOATS:
        gen.products[text] = Product(left, right, next(iter(dtypes)))


def fused(
    gen: FunctionGenerator, product: str, bias: str, bias_type: Type | None, result: Type | None
) -> str | None:
    """`product + bias` as F.linear, or None when it isn't a remembered matmul plus a
    vector of its dtype along its last axis (the caller checked the bias is not moved)."""
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
    return f"_ss_F.linear({found.left}, {found.right}.mT, {bias})"


def either_side(
    gen: FunctionGenerator, sides: tuple[str, str], types: tuple[Type | None, ...]
) -> str | None:
    """`left + right` as F.linear when either side is the product and the other its bias;
    `types` are the left's, the right's and the sum's."""
    left, right = sides
    left_type, right_type, result = types
    return fused(gen, left, right, right_type, result) or fused(gen, right, left, left_type, result)
