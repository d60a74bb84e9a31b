"""Rules on types that statements, expressions and calls share: joins, dtypes, asserts."""

from __future__ import annotations

import math
from collections.abc import Mapping

from shapescript.check.algebra import domains, ranges
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import (
    BOOL,
    BatchType,
    Domain,
    FunctionType,
    HostType,
    NamedType,
    PythonType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    interval_of,
    range_domain,
)

ARITHMETIC = frozenset({"+", "-", "*", "/"})
COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})


def type_symbols(type_: Type) -> set[str]:
    """The size symbols a type's axes and domain use."""
    if not isinstance(type_, TensorType):
        return set()
    names: set[str] = set()
    for axis in type_.axes or ():
        names |= axis.size.symbols()
        if axis.name:
            names.add(axis.name)
    if type_.domain.size is not None:
        names |= type_.domain.size.symbols()
    return names


def unknown_symbols(type_: Type) -> list[str]:
    if not isinstance(type_, TensorType) or type_.axes is None:
        return []
    names = {name for axis in type_.axes for name in axis.size.symbols() if name.startswith("?")}
    return sorted(names)


#: The classes of `is_loose`'s types (type classes have no subclasses).
_LOOSE = frozenset({UnknownType, PythonType, NamedType, FunctionType, BatchType})


def is_loose(type_: Type) -> bool:
    """Types that fit anything without a check here."""
    return type(type_) in _LOOSE


def tensor_dtype(left: Type, right: Type) -> str | None:
    tensors = [side for side in (left, right) if isinstance(side, TensorType)]
    if not tensors:
        return None
    dtypes = [tensor.resolved_dtype for tensor in tensors]
    hosts = [side for side in (left, right) if isinstance(side, HostType)]
    if any(host.kind == "float" for host in hosts) and all(
        dtype_kind(d) != "float" for d in dtypes
    ):
        return None
    result = promote(dtypes)
    return None if result == "f32" else result


def join_types(old: Type, new: Type) -> Type:
    """The narrowest type holding what either of two values of one shape may hold."""
    if isinstance(old, HostType) and isinstance(new, HostType) and old.kind == new.kind:
        a, b = interval_of(old), interval_of(new)
        if a is None or b is None:
            return HostType(old.kind)
        return HostType(old.kind, None, a.hull(b))
    if isinstance(old, TensorType) and isinstance(new, TensorType):
        if old.domain == new.domain:
            return old
        a, b = interval_of(old), interval_of(new)
        if old.domain.name == new.domain.name and old.domain.name != "Real":
            return old
        domain = range_domain(a.hull(b)) if a is not None and b is not None else Domain()
        return TensorType(old.axes, domain, old.dtype)
    return old


def type_key(type_: Type) -> tuple:
    return (format_type(type_), interval_of(type_))


def widen(before: Type, after: Type) -> Type:
    """Move the ends of a range that is still growing to infinity."""
    a, b = interval_of(before), interval_of(after)
    if a is None or b is None:
        return after
    lo = -math.inf if b.lo < a.lo else b.lo
    hi = math.inf if b.hi > a.hi else b.hi
    widened = ranges.Interval(lo, hi, b.lo_closed, b.hi_closed).normalized()
    if isinstance(after, HostType):
        return HostType(after.kind, None, widened)
    if isinstance(after, TensorType):
        return TensorType(after.axes, range_domain(widened), after.dtype)
    return after


def erase_range(type_: Type) -> Type:
    if isinstance(type_, HostType):
        return HostType(type_.kind)
    if isinstance(type_, TensorType) and type_.domain.interval is not None:
        return TensorType(type_.axes, Domain(), type_.dtype)
    return type_


def asserted_domain(value: TensorType, target: TensorType, has_domain: bool) -> Domain:
    """An `as` keeps what is known that is narrower than what it asserts."""
    if not has_domain:
        return value.domain
    domain = target.domain
    if domain.interval is not None:
        known = interval_of(value)
        if known is not None and domain.interval.meets(known):
            return range_domain(domain.interval.intersect(known))
    return domain


def host_kind_fits(actual: str, expected: str) -> bool:
    """Whether a host scalar of one kind fits where another is expected: an int fits a
    float, and nothing else converts (Host scalars)."""
    return actual == expected or (actual == "int" and expected == "float")


def article(kind: str) -> str:
    return "an" if kind == "int" else "a"


def dtype_kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    return "float" if dtype in ("f16", "bf16", "f32", "f64") else "integer"


def impossible_assertion(
    value: TensorType, target: TensorType, has_domain: bool, dims: Mapping[str, Poly] | None = None
) -> str | None:
    """Why `value as target` contradicts what is known of the values (E0410), or None.

    `dims` gives the dims' sizes, so that `Index[C]` and `Index[D]` can be told apart.
    """
    if target.dtype is not None and dtype_kind(target.dtype) != dtype_kind(value.resolved_dtype):
        return (
            f"{value.resolved_dtype} values aren't {dtype_kind(target.dtype)}s; change the "
            f"dtype with `to {target.dtype}`"
        )
    if not has_domain:
        return None
    want, have = target.domain, value.domain
    if (want.name == "Mask") != (have.name == "Mask"):
        return (
            "a Mask asserted to be numbers"
            if have.name == "Mask"
            else ("numbers asserted to be a Mask")
        )
    if want.interval is not None:
        known = interval_of(value)
        if known is not None and not want.interval.meets(known):
            return f"its values are in {known}, which doesn't meet {want.interval}"
    if want.name == "Prob" and have.name == "Logit" and want.over == have.over:
        return f"logits over {have.over} aren't probabilities; use softmax"
    if want.name == "Index" and dtype_kind(value.resolved_dtype) == "float":
        return "floats aren't indices"
    if want.name == "Index" and have.name == "Index" and want.size and have.size:
        wanted = want.size.substitute(dims or {}).value
        known = have.size.substitute(dims or {}).value
        if wanted is not None and known is not None and wanted != known:
            return f"indices below {known} aren't Index[{want.size}] ({wanted})"
    if want.name == "Binary":
        known = interval_of(value)
        if known is not None and not (known.holds(0.0) or known.holds(1.0)):
            return f"values in {known} can't be 0 or 1"
    if want.name == "Additive" and have.name != "Additive":
        known = interval_of(value)
        if known is not None and known.lo > -math.inf:
            return f"values in {known} are bounded below, so they can't be 0 or -inf"
    return None


def dtype_converted(operand: TensorType, dtype: str | None) -> Domain:
    """What a dtype-only `to` leaves of the domain: bool to float is Binary, an integer's
    domain becomes a plain number, and floats keep theirs."""
    if dtype is None:
        return operand.domain
    if operand.domain.name == "Mask":
        if dtype in ("f16", "bf16", "f32", "f64"):
            return Domain("Binary")
        return range_domain(ranges.Interval(0.0, 1.0))
    if operand.domain.name == "Index":
        return Domain()
    return operand.domain


def stable_alternative(name: str) -> str:
    if name == "log":
        return "add a small positive number first, or use log_sigmoid / log_softmax of the input"
    return "keep the argument away from the edge, as with clamp"


def is_mask(type_: Type) -> bool:
    kind = type(type_)
    if kind is HostType:
        return type_.kind == "bool"
    return kind is TensorType and type_.domain.name == "Mask"


def host_result(op: str, left: HostType, right: HostType) -> Type:
    if op in COMPARISONS or op in ("and", "or"):
        return BOOL
    interval = None
    left_range, right_range = interval_of(left), interval_of(right)
    if left_range is not None and right_range is not None and op in ARITHMETIC:
        domain = domains.arithmetic(op, left, right)
        interval = domain.interval or ranges.REAL
    if left.kind == "int" and right.kind == "int":
        if op == "/":
            return HostType("float", None, interval)
        size = None
        if left.size is not None and right.size is not None:
            if op == "+":
                size = left.size + right.size
            elif op == "-":
                size = left.size - right.size
            elif op == "*":
                size = left.size * right.size
        return HostType("int", size, interval if size is None else None)
    return HostType("float", None, interval)


_RANK = {
    "bool": 0,
    "u8": 1,
    "i8": 1,
    "i16": 2,
    "i32": 3,
    "i64": 4,
    "f16": 5,
    "bf16": 5,
    "f32": 6,
    "f64": 7,
}


def promote(dtypes: list[str]) -> str:
    """torch's result_type for tensors of these dtypes (of equal standing)."""
    result = dtypes[0]
    for dtype in dtypes[1:]:
        if dtype == result:
            continue
        if {dtype, result} == {"f16", "bf16"}:
            result = "f32"
        elif {dtype, result} == {"u8", "i8"}:
            result = "i16"
        elif _RANK[dtype] > _RANK[result]:
            result = dtype
    return result


def dtype_misfit(expected: TensorType, actual: TensorType) -> bool:
    """Whether a tensor's dtype differs from a parameter's or return type's: calls and
    returns compare dtypes exactly, but a type without a shape that names no dtype takes
    any."""
    if expected.axes is None and expected.dtype is None:
        return False
    return expected.resolved_dtype != actual.resolved_dtype
