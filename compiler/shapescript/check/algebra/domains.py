"""Domains through operations, and whether a value's domain fits where it goes (widening)."""

from __future__ import annotations

from shapescript.check.algebra import ranges
from shapescript.check.algebra.ranges import REAL as REAL_RANGE
from shapescript.check.algebra.ranges import Interval
from shapescript.check.algebra.types import (
    Domain,
    HostType,
    TensorType,
    Type,
    domain_text,
    interval_of,
    range_domain,
)
from shapescript.records import record

#: The to table: (from, to) pairs of domains that a `to` converts between.
TO_TABLE = {
    ("u8", "Unit"): "x / 255",
    ("Mask", "Binary"): "true is 1, false is 0",
    ("Mask", "Additive"): "true is 0, false is -inf",
    ("Unit", "Signed"): "2x - 1",
    ("Signed", "Unit"): "(x + 1) / 2",
    ("Binary", "Additive"): "1 is 0, 0 is -inf",
    ("Additive", "Binary"): "0 is 1, -inf is 0",
}


@record(frozen=True)
class Misfit:
    """Why a value doesn't fit: a message and a help line (E0501)."""

    message: str
    help: str | None = None
    #: What the help suggests writing after the value, such as `to Binary` or `as Unit`.
    suffixes: tuple[str, ...] = ()


def shown(domain: Domain) -> str:
    return domain_text(domain) if domain.name != "Real" or domain.interval else "Real"


def arithmetic(op: str, left: Type, right: Type) -> Domain:
    """The domain of `left op right` for + - * /, from the operands' ranges."""
    left_interval = interval_of(left) or REAL_RANGE
    right_interval = interval_of(right) or REAL_RANGE
    names = {side.domain.name for side in (left, right) if isinstance(side, TensorType)}
    if names == {"Binary"} and op == "*" and all(isinstance(s, TensorType) for s in (left, right)):
        return Domain("Binary")
    if (
        names == {"Additive"}
        and op == "+"
        and all(isinstance(s, TensorType) for s in (left, right))
    ):
        return Domain("Additive")
    for side, other in ((left, right), (right, left)):
        if (
            isinstance(side, TensorType)
            and side.domain.name == "Logit"
            and isinstance(other, HostType)
        ):
            return side.domain
    if op == "+":
        result = ranges.add(left_interval, right_interval)
    elif op == "-":
        result = ranges.sub(left_interval, right_interval)
    elif op == "*":
        result = ranges.mul(left_interval, right_interval)
    else:
        result = ranges.div(left_interval, right_interval)
    return range_domain(result)


def negated(domain: Domain, interval: Interval | None) -> Domain:
    if domain.name == "Logit":
        return domain
    return range_domain(ranges.neg(interval or REAL_RANGE))


def mask_arithmetic_help(op: str) -> str:
    if op == "+":
        return "convert it first: `m to Additive` adds 0 where true and -inf where false"
    if op == "-":
        return "to flip a mask, write `!m`"
    return "convert it first: `m to Binary` gives 1 where true and 0 where false"


def value_fits(value: Type, expected: Type) -> Misfit | None:
    """Whether every value of `value` is allowed by `expected` (None when it fits)."""
    if type(expected) is not TensorType:  # the type classes have no subclasses
        return None
    want = expected.domain
    kind = type(value)
    if kind is HostType:
        if want.name == "Mask" and value.kind != "bool":
            return Misfit("a number where a Mask is expected", "compare to get a mask: `x > 0`")
        interval = interval_of(value)
        if (
            want.interval is not None
            and interval is not None
            and not want.interval.contains(interval)
        ):
            return Misfit(
                f"{interval} isn't in the expected {shown(want)}",
                f"write a number in {want.interval}",
            )
        return None
    if kind is not TensorType:
        return None
    have = value.domain
    if want.name == "Mask" or have.name == "Mask":
        if want.name == have.name:
            return None
        if have.name == "Mask":
            return Misfit(
                "a Mask where numbers are expected",
                "convert it: `to Binary` or `to Additive`"
                if want.name in ("Real", "Binary", "Additive")
                else "convert it with `to Binary` first",
                ("to Binary", "to Additive")
                if want.name in ("Real", "Binary", "Additive")
                else ("to Binary",),
            )
        return Misfit(
            f"{shown(have)} values where a Mask is expected", "compare to get a mask, as in `x > 0`"
        )
    if have.name in ("Binary", "Additive") and want.name != have.name:
        return Misfit(
            f"{shown(have)} values where {shown(want)} is expected: {shown(have)} fits only "
            f"{shown(have)}",
            f"convert with `to` if the table has a row for it, or assert with `as {shown(want)}`",
            (f"to {shown(want)}", f"as {shown(want)}"),
        )
    if want.name in ("Binary", "Additive", "Index"):
        if have.name == want.name:
            return None
        return Misfit(
            f"{shown(have)} values where {shown(want)} is expected",
            f"convert with `to {want.name}` if the table has it, or assert with `as {want.name}`",
            (f"to {want.name}", f"as {want.name}"),
        )
    if want.name == "Logit":
        if have.name == "Prob":
            return Misfit(
                f"a Prob over {have.over} where logits are expected: softmax applied twice?",
                "pass the logits, before the softmax",
            )
        return None
    if want.name in ("Prob", "LogProb"):
        if have.name == want.name:
            return axis_moved(value, expected)
        return Misfit(
            f"{shown(have)} values where {shown(want)} is expected",
            f"use {'softmax' if want.name == 'Prob' else 'log_softmax'}, "
            f"or assert with `as {want.name} over {want.over}`",
            (f"as {want.name} over {want.over}",),
        )
    if want.interval is not None:
        interval = interval_of(value)
        if interval is None or want.interval.contains(interval):
            return None
        conversion = TO_TABLE.get((shown(have), shown(want)))
        help_ = (
            f"convert it with `to {shown(want)}`"
            if conversion
            else f"if you know it is, assert it with `as {shown(want)}`"
        )
        return Misfit(
            f"{shown(have) if have.interval or have.name != 'Real' else 'Real'} values "
            f"({interval}) aren't all in {shown(want)} ({want.interval})",
            help_,
            (f"{'to' if conversion else 'as'} {shown(want)}",),
        )
    return None


def _over_position(type_: TensorType) -> int | None:
    """Where the axis a semantic domain is over sits, counted from the last axis."""
    over = type_.domain.over
    if over is None or type_.axes is None:
        return None
    names = [axis.name for axis in type_.axes]
    return len(names) - names.index(over) if over in names else None


def axis_moved(value: TensorType, expected: TensorType) -> Misfit | None:
    """A semantic domain over another axis position than the expected one (matched by
    position, so a generic's other name for the same axis still fits)."""
    have, want = value.domain, expected.domain
    if have.name != want.name or have.name not in ("Prob", "LogProb"):
        return None
    here, there = _over_position(value), _over_position(expected)
    if here is None or there is None or here == there:
        return None
    return Misfit(
        f"a {shown(have)} where {shown(want)} is expected: the distribution is along another axis",
        f"compute it along the axis that is expected, as in `softmax(x, over={want.over})`",
    )


def _source_key(value: TensorType) -> str:
    if value.dtype == "u8" and value.domain.name == "Real" and value.domain.interval is None:
        return "u8"
    return shown(value.domain)


def conversion_problem(value: TensorType, target: TensorType, has_domain: bool) -> str | None:
    """Why `value to target` isn't a conversion of the to table (E0504), or None."""
    if not has_domain:
        if target.dtype == "bool" and value.resolved_dtype != "bool":
            return "converting to bool isn't a conversion: compare instead, as in `x != 0`"
        return None
    source = _source_key(value)
    wanted = shown(target.domain)
    if target.dtype is not None and target.dtype not in ("f16", "bf16", "f32", "f64"):
        return f"a to with a domain makes floats, not {target.dtype}"
    if source == wanted:
        return f"the value is already {wanted}: nothing to convert"
    if (source, wanted) not in TO_TABLE:
        return f"there is no conversion from {source} to {wanted}"
    return None


def converted_dtype(value: TensorType, target: TensorType, has_domain: bool) -> str | None:
    """The dtype of `value to target`: the one written; else, for a conversion of the to
    table, the value's float dtype (u8 and Mask sources give the default float, None);
    else, for a dtype-only `to`, the value's own."""
    if target.dtype is not None:
        return target.dtype
    if has_domain and value.resolved_dtype not in ("f16", "bf16", "f32", "f64"):
        return None
    return value.dtype


def to_table_notes() -> list[str]:
    return [
        "the conversions are: "
        + "; ".join(
            f"{source} to {target} ({formula})" for (source, target), formula in TO_TABLE.items()
        )
    ]
