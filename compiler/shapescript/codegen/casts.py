"""`as` (a checked claim) and `to` (a conversion by the to table), and the value tests of
domains that runtime checks use."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from shapescript.check.algebra.ranges import name_of
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import HostType, PythonType, TensorType, interval_of
from shapescript.codegen.sizes import MissingSize, size_expr
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.context import ModuleContext
    from shapescript.codegen.function import FunctionGenerator


def domain_test(gen: FunctionGenerator, name: str, type_: TensorType) -> tuple[str, str] | None:
    """A Python expression that is a true [] tensor when `name`'s values break the domain's
    promise, and what the domain promises; None for domains without a test."""
    return domain_test_with(gen.context, gen.sizes, name, type_)


def index_bound(
    context: ModuleContext, sizes: Mapping[str, str], type_: TensorType
) -> tuple[str, str] | None:
    """For an `Index[V]` type, V's Python expression and what the domain promises; None for
    another domain or a V the sizes can't say."""
    domain = type_.domain
    if domain.name != "Index" or domain.size is None:
        return None
    try:
        top = size_expr(domain.size, sizes)
    except MissingSize:
        return None
    values = context.checked.dim_values
    dims = {name: Poly.const(values[name]) for name in domain.size.symbols() if name in values}
    return top, f"indices in [0, {domain.size.substitute(dims)})"


def domain_test_with(
    context: ModuleContext, sizes: Mapping[str, str], name: str, type_: TensorType
) -> tuple[str, str] | None:
    """`domain_test` where `sizes` gives each size symbol's Python expression.

    A NaN breaks every promise that has a test: a range's, Prob's and LogProb's sums,
    Binary's and Additive's values. Real and Logit have no test, so NaN passes them."""
    domain = type_.domain
    rank = len(type_.axes) if type_.axes is not None else 0
    tolerance = f"_ss_torch.finfo({name}.dtype).eps ** 0.5"
    if domain.name in ("Prob", "LogProb") and domain.over is not None and type_.axes:
        dim = next(
            (i - rank for i, axis in enumerate(type_.axes) if axis.name == domain.over), None
        )
        if dim is None:
            return None
        if domain.name == "Prob":
            return (
                f"(~(({name} >= 0) & ({name} <= 1))).any() | "
                f"(({name}.sum({dim}) - 1).abs() > {tolerance}).any()",
                f"values in [0, 1] that sum to 1 over {domain.over}",
            )
        return (
            f"(~(({name}.exp().sum({dim}) - 1).abs() <= {tolerance})).any()",
            f"log-probabilities whose exp sums to 1 over {domain.over}",
        )
    if domain.name == "Binary":
        return f"(({name} != 0) & ({name} != 1)).any()", "only 0 and 1"
    if domain.name == "Additive":
        return f"(({name} != 0) & ({name} != float('-inf'))).any()", "only 0 and -inf"
    if domain.name == "Index" and domain.size is not None:
        bound = index_bound(context, sizes, type_)
        if bound is None:
            return None
        top, what = bound
        return f"(({name} < 0) | ({name} >= {top})).any()", what
    if domain.name in ("Mask", "Logit", "Prob", "LogProb"):
        return None
    interval = interval_of(type_)
    if interval is None:
        return None
    # What a value must be, so that NaN, which fails every comparison, is out of range.
    tests = []
    if not math.isinf(interval.lo):
        tests.append(f"({name} {'>=' if interval.lo_closed else '>'} {interval.lo!r})")
    if not math.isinf(interval.hi):
        tests.append(f"({name} {'<=' if interval.hi_closed else '<'} {interval.hi!r})")
    if not tests:
        return None
    named = domain.name if domain.name != "Real" else name_of(interval)
    shown = f"{named} {interval}" if named else str(interval)
    return f"(~({' & '.join(tests)})).any()", f"values in {shown}"


def cast(gen: FunctionGenerator, node: ast.Cast, value: str) -> str:
    before = gen.type(node.operand)
    after = gen.type(node)
    if node.kind == "to":
        return convert(gen, before, after, node.type, value, node.span)
    return claim(gen, node, before, after, value)


def convert(gen, before, after, written: ast.TypeExpr, value: str, span) -> str:
    """`x to T`: a dtype change, or a domain conversion by the to table."""
    context = gen.context
    if isinstance(after, PythonType) or not isinstance(after, TensorType):
        if written.dtype is not None:
            return f"{value}.to({context.dtype(written.dtype)})"
        return value
    dtype = context.dtype(after.resolved_dtype)
    if isinstance(before, HostType):
        value = f"_ss_torch.tensor({value}, dtype={dtype}, device=_ss_dev)"
    if not written.words:
        return f"{value}.to({dtype})"
    target = written.words[0].name
    source = _source_kind(before)
    if source == "Mask" and target == "Binary":
        return f"{value}.to({dtype})"
    if source == "Mask" and target == "Additive":
        return f"_ss_torch.zeros_like({value}, dtype={dtype}).masked_fill(~{value}, -_ss_inf)"
    if source == "u8" and target == "Unit":
        return f"({value}.to({dtype}) / 255)"
    if isinstance(before, TensorType) and before.resolved_dtype != after.resolved_dtype:
        value = f"{value}.to({dtype})"
    if target == "Signed" and source == "Unit":
        return f"({value} * 2 - 1)"
    if target == "Unit" and source == "Signed":
        return f"(({value} + 1) / 2)"
    if source == "Binary" and target == "Additive":
        return f"_ss_torch.zeros_like({value}).masked_fill({value} == 0, -_ss_inf)"
    if source == "Additive" and target == "Binary":
        return f"({value} == 0).to({dtype})"
    raise gen.unsupported(f"the conversion to {target}", span)


def _source_kind(type_) -> str | None:
    if not isinstance(type_, TensorType):
        return None
    if type_.domain.name == "Mask":
        return "Mask"
    if type_.resolved_dtype == "u8":
        return "u8"
    if type_.domain.name in ("Binary", "Additive"):
        return type_.domain.name
    interval = interval_of(type_)
    return name_of(interval) if interval is not None else None


def claim(gen: FunctionGenerator, node: ast.Cast, before, after, value: str) -> str:
    """`x as T`: the value, checked at run time as the check modes say."""
    context = gen.context
    prefix = "_ss_" if context.standalone else "_ss_rt."
    site = _site(gen, node)
    if isinstance(after, HostType):
        if context.checks == "never" or not isinstance(before, PythonType):
            return value
        return _mode(context.checks, f"{prefix}as_host({value}, {after.kind!r}, {site})", value)
    if not isinstance(after, TensorType):
        return value
    checked = value
    claim_checks = context.claim_checks or context.checks
    if after.axes is not None and claim_checks != "never":
        sizes = []
        for axis in after.axes:
            try:
                sizes.append(size_expr(axis.size, gen.sizes))
            except MissingSize:
                sizes.append("None")
        dtype = (
            context.dtype(after.dtype)
            if after.dtype is not None
            else (context.dtype(after.resolved_dtype) if isinstance(before, PythonType) else "None")
        )
        shape = "(" + "".join(f"{size}, " for size in sizes) + ")"
        checked = _mode(claim_checks, f"{prefix}as_shape({value}, {shape}, {dtype}, {site})", value)
    if context.value_checks == "never" or not node.type.words:
        return checked
    temp = gen.temp("as")
    test = domain_test(gen, temp, after)
    if test is None:
        return checked
    condition, what = test
    call = f"{prefix}as_domain(({temp} := {checked}), {condition}, {what!r}, {site})"
    return _mode(context.value_checks, call, checked)


def _mode(mode: str, checked: str, plain: str) -> str:
    if mode == "debug":
        return f"({checked} if __debug__ else {plain})"
    return checked


def site_constant(gen: FunctionGenerator, node) -> str:
    """A module constant naming where a check is: the file, line, column and function."""
    return _site(gen, node)


def _site(gen: FunctionGenerator, node) -> str:
    """A module constant naming where a check is: the file, line, column and function."""
    line, column = gen.context.location(gen.base, node.span)
    constant = f"_ss_at_{line}_{column}"
    gen.context.constants.setdefault(
        constant, repr((gen.context.source.path, line, column, gen.decl.name))
    )
    return constant
