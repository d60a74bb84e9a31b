"""Pattern operations: binding a pattern's input sides to operands and building the output."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from shapescript.check.algebra.sizes import Poly, product
from shapescript.check.algebra.solver import Equation, solve
from shapescript.check.algebra.types import Axis, axis_text, format_shape
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

PATTERN_OPERATIONS = ("rearrange", "reduce", "repeat", "einsum", "split")


@record
class PatternError(Exception):
    code: str
    message: str
    span: Span
    label: str = ""
    notes: list[str] = field(default_factory=list)
    help: str | None = None


@record
class PatternResult:
    """The output axes (one list per result for split) and the names the pattern introduced."""

    outputs: list[tuple[Axis, ...]]
    introduced: dict[str, Poly]
    name_spans: list[tuple[str, Span]]


def _side_text(side: ast.PatternSide, text_of: Callable[[Span], str]) -> str:
    return text_of(side.span)


def _flat_names(axis: ast.PatternAxis) -> list[tuple[str, Span]]:
    if isinstance(axis, ast.PatternName):
        return [(axis.name, axis.span)]
    if isinstance(axis, ast.PatternGroupedSize):
        return [(axis.name, axis.span)]
    if isinstance(axis, ast.PatternGroup):
        names = []
        for item in axis.items:
            names.extend(_flat_names(item))
        return names
    return []


def check_pattern(
    op: str,
    pattern: ast.Pattern,
    operands: list[tuple[Axis, ...]],
    keyword_sizes: Mapping[str, tuple[Poly, Span]],
    scope: Mapping[str, Poly],
    dims: Mapping[str, Poly],
    fresh: Callable[[str], str],
    text_of: Callable[[Span], str],
) -> PatternResult:
    """Check a pattern against its operands' axes; raise PatternError for the first problem."""
    if len(pattern.inputs) != len(operands):
        raise PatternError(
            "E0407",
            f"the pattern has {len(pattern.inputs)} input side(s) for {len(operands)} operand(s)",
            pattern.span,
            "one input side per operand",
        )
    input_names: dict[str, Span] = {}
    input_numbers: set[int] = set()
    for side in pattern.inputs:
        seen: set[str] = set()
        for axis in side.axes:
            if isinstance(axis, ast.PatternGroup) and any(
                isinstance(item, ast.PatternGroup) for item in axis.items
            ):
                raise PatternError("E0407", "groups can't be nested", axis.span, "nested group")
            if op == "einsum" and not isinstance(axis, ast.PatternName):
                raise PatternError(
                    "E0407",
                    "einsum's pattern takes only axis names",
                    axis.span,
                    "not a name",
                    help="rearrange first to split or merge axes",
                )
            if isinstance(axis, ast.PatternInt):
                input_numbers.add(axis.value)
            # A number inside a group (`(gh 16)`, `16gh`) is on the input side too.
            input_numbers.update(_numbers_within(axis))
            for name, span in _flat_names(axis):
                if name in seen:
                    raise PatternError(
                        "E0407", f"`{name}` appears twice on one side", span, "second time"
                    )
                seen.add(name)
                input_names.setdefault(name, span)
    for name, (_, span) in keyword_sizes.items():
        if name in scope or name in dims:
            raise PatternError(
                "E0406",
                f"`{name}` already has a size, so it can't be given one",
                span,
                "size already known",
            )
        if name not in input_names and not _in_output(name, pattern.output):
            raise PatternError(
                "E0406", f"`{name}` isn't a name in the pattern", span, "not in the pattern"
            )

    known: dict[str, Poly] = {name: size for name, (size, _) in keyword_sizes.items()}
    variables: dict[str, str] = {}
    equations: list[Equation] = []
    introduced_spans: list[tuple[str, Span]] = []

    def size_of(name: str, span: Span) -> Poly:
        if name in known:
            return known[name]
        if name in scope:
            return scope[name]
        if name in dims:
            return Poly.symbol(name)
        if name not in variables:
            variables[name] = fresh(name)
            introduced_spans.append((name, span))
        return Poly.symbol(variables[name])

    for side, axes in zip(pattern.inputs, operands, strict=True):
        if len(side.axes) != len(axes):
            raise PatternError(
                "E0403",
                f"the pattern side `{_side_text(side, text_of)}` has {len(side.axes)} "
                f"axes, but the operand has {len(axes)}: {format_shape(axes)}",
                side.span,
                f"{len(side.axes)} axes",
            )
        operand_names = {axis.name: index for index, axis in enumerate(axes) if axis.name}
        for index, (entry, axis) in enumerate(zip(side.axes, axes, strict=True)):
            if isinstance(entry, ast.PatternName):
                name = entry.name
                elsewhere = operand_names.get(name)
                if (
                    elsewhere is not None
                    and elsewhere != index
                    and axis.name != name
                    and (name in scope or name in dims)
                ):
                    raise PatternError(
                        "E0408",
                        f"`{name}` is axis {elsewhere + 1} of the operand, not axis {index + 1}",
                        entry.span,
                        f"the operand's axis {index + 1} is `{axis.name or axis.size}`",
                        notes=[f"the operand is {format_shape(axes)}"],
                        help="patterns bind axes by position; reorder the axes with "
                        "rearrange first if this is a transposition",
                    )
                if name in known or name in scope or name in dims:
                    equations.append(Equation(size_of(name, entry.span), axis.size, entry))
                else:
                    variables.setdefault(name, fresh(name))
                    introduced_spans.append((name, entry.span))
                    equations.append(Equation(Poly.symbol(variables[name]), axis.size, entry))
            elif isinstance(entry, ast.PatternInt):
                equations.append(Equation(Poly.const(entry.value), axis.size, entry))
            else:
                parts = _group_parts(entry)
                size = product(
                    Poly.const(part) if isinstance(part, int) else size_of(*part) for part in parts
                )
                equations.append(Equation(size, axis.size, entry))

    solution = solve(equations, dims)
    for failure in solution.failures:
        entry = failure.equation.origin
        parts = None
        if isinstance(entry, ast.PatternGroup | ast.PatternGroupedSize):
            parts = [
                str(part) if isinstance(part, int) else str(solution.apply(size_of(*part)))
                for part in _group_parts(entry)
            ]
        raise _failure_error(
            failure.code, entry, failure.lhs, failure.rhs, solution, dims, text_of, parts
        )

    sizes = {name: solution.apply(Poly.symbol(var)) for name, var in variables.items()}
    sizes.update(known)

    output_names = set(_flat_output_names(pattern.output))
    if op in ("rearrange", "repeat", "split"):
        for name, span in input_names.items():
            if name not in output_names:
                raise PatternError(
                    "E0407",
                    f"`{name}` is on the input side but not the output of {op}",
                    span,
                    "dropped",
                    help="reduce drops axes; rearrange only moves them",
                )
    outputs = [_output_axes(op, pattern, input_names, input_numbers, sizes, scope, dims, size_of)]
    if op == "split":
        counts = [axis for side in pattern.inputs for axis in side.axes if _group_has_number(axis)]
        numbers = [n for axis in counts for n in _group_numbers(axis)]
        if len(numbers) != 1:
            raise PatternError(
                "E0407",
                "split needs exactly one number on its input side: how many results it gives",
                pattern.span,
                "no count" if not numbers else "several numbers",
            )
        outputs = outputs * numbers[0]
    introduced = {name: sizes[name] for name in variables if name in sizes}
    introduced.update({name: size for name, size in known.items()})
    return PatternResult(outputs, introduced, introduced_spans)


def _group_has_number(axis: ast.PatternAxis) -> bool:
    return bool(_group_numbers(axis))


def _group_numbers(axis: ast.PatternAxis) -> list[int]:
    if isinstance(axis, ast.PatternInt):
        return [axis.value]
    if isinstance(axis, ast.PatternGroup):
        return [item.value for item in axis.items if isinstance(item, ast.PatternInt)]
    return []


def _numbers_within(axis: ast.PatternAxis) -> list[int]:
    """The numbers a group or grouped size holds (`(gh 16)` and `16gh` hold 16)."""
    if isinstance(axis, ast.PatternGroupedSize):
        return [axis.count]
    if isinstance(axis, ast.PatternGroup):
        return [number for item in axis.items for number in _numbers_within(item)] + [
            item.value for item in axis.items if isinstance(item, ast.PatternInt)
        ]
    return []


def _in_output(name: str, side: ast.PatternSide) -> bool:
    return name in _flat_output_names(side)


def _flat_output_names(side: ast.PatternSide) -> list[str]:
    names = []
    for axis in side.axes:
        names.extend(name for name, _ in _flat_names(axis))
    return names


def _group_parts(entry: ast.PatternAxis) -> list[int | tuple[str, Span]]:
    if isinstance(entry, ast.PatternGroupedSize):
        return [(entry.name, entry.span), entry.count]
    parts: list[int | tuple[str, Span]] = []
    for item in entry.items:
        if isinstance(item, ast.PatternInt):
            parts.append(item.value)
        elif isinstance(item, ast.PatternGroupedSize):
            parts.extend([(item.name, item.span), item.count])
        elif isinstance(item, ast.PatternName):
            parts.append((item.name, item.span))
    return parts


def _output_axes(op, pattern, input_names, input_numbers, sizes, scope, dims, size_of):
    axes: list[Axis] = []
    for entry in pattern.output.axes:
        if isinstance(entry, ast.PatternName):
            name = entry.name
            if name not in input_names and op != "repeat":
                raise PatternError(
                    "E0405",
                    f"`{name}` isn't an axis of the input",
                    entry.span,
                    "not on the input side",
                    notes=[f"the input names {', '.join(f'`{n}`' for n in input_names)}"],
                )
            axes.append(Axis(_named_size(name, entry.span, sizes, scope, dims, op), name))
        elif isinstance(entry, ast.PatternInt):
            if entry.value != 1 and entry.value not in input_numbers and op != "repeat":
                raise PatternError(
                    "E0407",
                    f"the number {entry.value} on the output isn't on the input side",
                    entry.span,
                    "new number",
                )
            axes.append(Axis(Poly.const(entry.value)))
        else:
            part_axes: list[Axis] = []
            for part in _group_parts(entry):
                if isinstance(part, int):
                    if part not in input_numbers and op != "repeat":
                        raise PatternError(
                            "E0407",
                            f"the number {part} on the output isn't on the input side",
                            entry.span,
                            "new number",
                        )
                    part_axes.append(Axis(Poly.const(part)))
                else:
                    name, span = part
                    if name not in input_names and op != "repeat":
                        raise PatternError(
                            "E0405",
                            f"`{name}` isn't an axis of the input",
                            span,
                            "not on the input side",
                        )
                    size = _named_size(name, span, sizes, scope, dims, op)
                    part_axes.append(Axis(size, name))
            axes.append(_written_group(entry, part_axes))
    return tuple(axes)


def _written_group(entry: ast.PatternGroup | ast.PatternGroupedSize, parts: list[Axis]) -> Axis:
    """An output group as the pattern wrote it (`(H Dh)`, `16gh`); its size is the product."""
    if isinstance(entry, ast.PatternGroupedSize):
        name, count = parts
        return Axis(
            name.size * count.size, written=f"{entry.count}{entry.name}", parts=(name, count)
        )
    items: list[Axis] = []
    remaining = iter(parts)
    for item in entry.items:
        if isinstance(item, ast.PatternGroupedSize):
            items.append(_written_group(item, [next(remaining), next(remaining)]))
        elif isinstance(item, ast.PatternName | ast.PatternInt):
            items.append(next(remaining))
    written = "(" + " ".join(axis_text(item) for item in items) + ")"
    return Axis(product(item.size for item in items), written=written, parts=tuple(items))


def _named_size(name, span, sizes, scope, dims, op) -> Poly:
    if name in sizes:
        return sizes[name]
    if name in scope:
        return scope[name]
    if name in dims:
        return Poly.symbol(name)
    raise PatternError(
        "E0409",
        f"the size of `{name}` can't be inferred",
        span,
        "no size",
        help=f"give it a size, as `{name}=8`",
    )


def _failure_error(code, entry, lhs, rhs, solution, dims, text_of, parts=None) -> PatternError:
    text = text_of(entry.span)
    left = solution.apply(lhs)
    numeric_left = left.substitute(dims)
    numeric_right = rhs.substitute(dims)
    if code == "E0409":
        return PatternError(
            "E0409",
            f"the sizes in `{text}` can't be inferred",
            entry.span,
            "more than one unknown part",
            help="give all but one of the new names a size, as `h=8`",
        )
    if code == "E0402":
        return PatternError(
            "E0402",
            f"`{text}` doesn't divide the axis it binds",
            entry.span,
            f"the axis is {numeric_right}",
            notes=[f"{text} would need a whole size to make {numeric_right}"],
        )
    if code == "E0414":
        return PatternError("E0414", "size too large", entry.span, "overflows 128 bits")
    shown_left = f"{text} = {left}" if str(left) != text else text
    if parts and len(parts) > 1:
        shown_left = f"{text} = {'*'.join(parts)}"
        if "*".join(parts) != str(left):
            shown_left += f" = {left}"
    if str(numeric_left) != str(left):
        shown_left += f" = {numeric_left}"
    shown_right = str(rhs)
    if str(numeric_right) != shown_right:
        shown_right += f" = {numeric_right}"
    return PatternError(
        "E0401",
        "the pattern doesn't fit the operand's axis",
        entry.span,
        "size doesn't match",
        notes=[f"{shown_left}, not {shown_right}"],
    )
