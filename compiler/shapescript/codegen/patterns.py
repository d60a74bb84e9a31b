"""Pattern operations: rearrange and split as torch views (reshape, permute), einsum as
a matmul or torch.einsum (lowering/contractions.py), reduce and repeat through einops.

The sizes a view needs come from what the checker recorded for each pattern name.
"""

from __future__ import annotations

import keyword
import re
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import TensorType
from shapescript.codegen import padding
from shapescript.codegen.lowering import contractions
from shapescript.codegen.sizes import pattern_name_size
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator


def pattern_call(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    args = gen.call_args(node, piped)
    pattern = next((v for v in args.positional if isinstance(v, ast.Pattern)), None)
    if pattern is None:
        pattern = next((v for v in args.keywords.values() if isinstance(v, ast.Pattern)), None)
    if pattern is None:
        raise gen.unsupported(f"`{name}` without a pattern", node.span)
    operands = [v for v in args.positional if not isinstance(v, ast.Pattern)]
    sizes = {
        key: gen.arg(value, piped)
        for key, value in args.keywords.items()
        if not isinstance(value, ast.Pattern)
    }
    masked = padding.masked_operands(gen, node)
    if name == "einsum":
        texts = [gen.arg(v, piped) for v in operands]
        for index, dim, mask in masked:
            texts[index] = f"_ss_rt.padding.zeroed({texts[index]}, {dim}, {mask})"
        return contractions.contraction(gen, pattern, texts)
    operand = gen.arg(operands[0], piped)
    if name == "reduce":
        reduction = operands[1] if len(operands) > 1 else args.keywords.get("reduction")
        if not isinstance(reduction, ast.Name):
            raise gen.unsupported("a reduction that isn't a name", node.span)
        before = gen.type(gen.operand_node(operands[0]))
        after = gen.type(node)
        if (
            isinstance(before, TensorType)
            and isinstance(after, TensorType)
            and before.resolved_dtype != after.resolved_dtype
        ):
            # mean of integers gives floats: torch only averages floats.
            operand = f"{operand}.to({gen.context.dtype(after.resolved_dtype)})"
        if masked:
            # A masked reduction: the plain one, as a function of the operand and the
            # reduction, which the runtime gives the masked operand.
            plain = _einops(gen, "reduce", "_ss_v", pattern, sizes, ", _ss_r")
            places = tuple((dim, mask) for _, dim, mask in masked)
            dims = ", ".join(f"({dim}, {mask})" for dim, mask in places)
            return (
                f"_ss_rt.padding.pattern_reduce(lambda _ss_v, _ss_r: {plain}, {operand}, "
                f"{reduction.name!r}, ({dims},))"
            )
        return _einops(gen, "reduce", operand, pattern, sizes, f", {reduction.name!r}")
    if name == "repeat":
        return _einops(gen, "repeat", operand, pattern, sizes, "")
    view = _view(gen, operand, pattern, sizes, split=name == "split")
    if view is not None:
        return view
    if name == "split":
        raise gen.unsupported("this split", node.span)
    return _einops(gen, "rearrange", operand, pattern, sizes, "")


# ------------------------------------------------------------------ einops


def _einops_side(side: ast.PatternSide, numbers: dict, sizes: dict, output: bool) -> str:
    parts = []
    for entry in side.axes:
        parts.append(_einops_entry(entry, numbers, sizes, output))
    return " ".join(parts)


def _einops_entry(entry, numbers: dict, sizes: dict, output: bool) -> str:
    if isinstance(entry, ast.PatternName):
        return entry.name
    if isinstance(entry, ast.PatternInt):
        if entry.value == 1:
            return "1"
        if output and entry.value in numbers.get("free", {}):
            free = numbers["free"][entry.value]
            if free:
                return free.pop(0)
        label = f"ss_k{len(sizes)}"
        sizes[label] = str(entry.value)
        if not output:
            numbers.setdefault("free", {}).setdefault(entry.value, []).append(label)
        return label
    if isinstance(entry, ast.PatternGroupedSize):
        label = f"ss_k{len(sizes)}"
        sizes[label] = str(entry.count)
        return f"({entry.name} {label})"
    if isinstance(entry, ast.PatternGroup):
        return "(" + " ".join(_einops_entry(e, numbers, sizes, output) for e in entry.items) + ")"
    return "_"


def _einops(gen, function: str, operand: str, pattern: ast.Pattern, sizes: dict, extra: str):
    gen.context.uses_einops = True
    gen.context.need("import einops as _ss_einops")
    sizes = dict(sizes)
    numbers: dict = {}
    inputs = _einops_side(pattern.inputs[0], numbers, sizes, False)
    output = _einops_side(pattern.output, numbers, sizes, True)
    for name, value in _group_sizes(gen, pattern).items():
        sizes.setdefault(name, value)
    for name, value in _new_sizes(gen, pattern).items():
        sizes.setdefault(name, value)
    text = f"{inputs} -> {output}"
    safe = {name: _einops_name(name, index) for index, name in enumerate(_pattern_names(pattern))}
    if any(name != label for name, label in safe.items()):
        text = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: safe.get(m[0], m[0]), text)
        sizes = {safe.get(key, key): value for key, value in sizes.items()}
    keywords = "".join(f", {key}={value}" for key, value in sizes.items())
    return f"_ss_einops.{function}({operand}, {text!r}{extra}{keywords})"


def _pattern_names(pattern: ast.Pattern) -> list[str]:
    names: list[str] = []
    for side in (*pattern.inputs, pattern.output):
        for entry in side.axes:
            for item in entry.items if isinstance(entry, ast.PatternGroup) else [entry]:
                named = isinstance(item, ast.PatternName | ast.PatternGroupedSize)
                if named and item.name not in names:
                    names.append(item.name)
    return names


def _einops_name(name: str, index: int) -> str:
    """A name einops takes: not a Python keyword, no `_` at either end."""
    if keyword.iskeyword(name) or name.startswith("_") or name.endswith("_"):
        return f"ss_a{index}"
    return name


def _group_sizes(gen: FunctionGenerator, pattern: ast.Pattern) -> dict[str, str]:
    """Sizes einops can't infer: every known name inside an input group."""
    found = {}
    for entry in pattern.inputs[0].axes:
        items = entry.items if isinstance(entry, ast.PatternGroup) else []
        if isinstance(entry, ast.PatternGroupedSize):
            items = [ast.PatternName(entry.name, entry.span)]
        for item in items:
            if isinstance(item, ast.PatternName):
                size = pattern_name_size(gen, item)
                if size is not None:
                    found[item.name] = size
    return found


def _new_sizes(gen: FunctionGenerator, pattern: ast.Pattern) -> dict[str, str]:
    """Sizes of the output's names that no input has (repeat's new axes, such as a dim)."""
    inputs = {
        item.name
        for side in pattern.inputs
        for entry in side.axes
        for item in (entry.items if isinstance(entry, ast.PatternGroup) else [entry])
        if isinstance(item, ast.PatternName | ast.PatternGroupedSize)
    }
    found = {}
    for entry in pattern.output.axes:
        for item in entry.items if isinstance(entry, ast.PatternGroup) else [entry]:
            if isinstance(item, ast.PatternName) and item.name not in inputs:
                size = pattern_name_size(gen, item)
                if size is not None:
                    found[item.name] = size
    return found


# ------------------------------------------------------------------ views


def _elementary(gen, side: ast.PatternSide, sizes: dict) -> list[list[tuple[str, str | None]]]:
    """Each entry of a side as its elementary axes: (label, size expression or None)."""
    entries = []
    for index, entry in enumerate(side.axes):
        if isinstance(entry, ast.PatternName):
            entries.append([(entry.name, sizes.get(entry.name) or pattern_name_size(gen, entry))])
        elif isinstance(entry, ast.PatternInt):
            entries.append([(f"#{index}", str(entry.value))])
        elif isinstance(entry, ast.PatternGroupedSize):
            inner = ast.PatternName(entry.name, entry.span)
            entries.append(
                [
                    (entry.name, sizes.get(entry.name) or pattern_name_size(gen, inner)),
                    (f"#{index}", str(entry.count)),
                ]
            )
        elif isinstance(entry, ast.PatternGroup):
            group = []
            for position, item in enumerate(entry.items):
                if isinstance(item, ast.PatternName):
                    group.append((item.name, sizes.get(item.name) or pattern_name_size(gen, item)))
                elif isinstance(item, ast.PatternInt):
                    group.append((f"#{index}.{position}", str(item.value)))
                elif isinstance(item, ast.PatternGroupedSize):
                    inner = ast.PatternName(item.name, item.span)
                    group.append((item.name, sizes.get(item.name) or pattern_name_size(gen, inner)))
                    group.append((f"#{index}.{position}", str(item.count)))
                else:
                    return []
            entries.append(group)
        else:
            return []
    return entries


def _view(gen, operand: str, pattern: ast.Pattern, sizes: dict, split: bool) -> str | None:
    """rearrange or split as reshape and permute, or None when einops must do it."""
    inputs = _elementary(gen, pattern.inputs[0], sizes)
    if not inputs:
        return None
    flat = [axis for entry in inputs for axis in entry]
    labels = [label for label, _ in flat]
    count_label = None
    if split:
        numbers = [label for label, _ in flat if label.startswith("#")]
        if len(numbers) != 1:
            return None
        count_label = numbers[0]
    output_labels: list[list[str]] = []
    used_numbers: set[str] = set()
    for entry in pattern.output.axes:
        if isinstance(entry, ast.PatternName):
            if entry.name not in labels:
                return None
            output_labels.append([entry.name])
        elif isinstance(entry, ast.PatternInt) and entry.value == 1:
            output_labels.append([])
        elif isinstance(entry, ast.PatternInt):
            match = next(
                (
                    label
                    for label, size in flat
                    if label.startswith("#")
                    and size == str(entry.value)
                    and label not in used_numbers
                    and label != count_label
                ),
                None,
            )
            if match is None:
                return None
            used_numbers.add(match)
            output_labels.append([match])
        elif isinstance(entry, ast.PatternGroup):
            group = []
            for item in entry.items:
                if not isinstance(item, ast.PatternName) or item.name not in labels:
                    return None
                group.append(item.name)
            output_labels.append(group)
        else:
            return None
    order = [label for group in output_labels for label in group]
    if count_label is not None:
        order = [count_label] + order
    if sorted(order) != sorted(labels):
        return None
    value = operand
    if any(len(entry) != 1 for entry in inputs):
        shape = []
        for entry in inputs:
            unknown = [label for label, size in entry if size is None]
            if len(entry) > 1 and len(unknown) > 1:
                return None
            for _label, size in entry:
                shape.append(size if size is not None else "-1")
        if shape.count("-1") > 1:
            return None
        value = f"{value}.reshape({', '.join(shape)})"
    permutation = [labels.index(label) for label in order]
    if permutation != list(range(len(labels))):
        value = f"{value}.permute({', '.join(map(str, permutation))})"
    final_shape = []
    needs_reshape = False
    sizes_by_label = dict(flat)
    for group in output_labels:
        if len(group) == 1:
            final_shape.append(None)
            continue
        needs_reshape = True
        parts = [sizes_by_label[label] for label in group]
        if not group:
            final_shape.append("1")
        elif any(part is None for part in parts):
            final_shape.append("-1")
        else:
            final_shape.append("*".join(parts))
    if needs_reshape:
        shape = []
        for position, item in enumerate(final_shape):
            if item is None:
                shape.append(_axis_size(output_labels[position], sizes_by_label))
            else:
                shape.append(item)
        if count_label is not None:
            shape.insert(0, sizes_by_label[count_label])
        if shape.count("-1") > 1 or any(part is None for part in shape):
            return None
        value = f"{value}.reshape({', '.join(shape)})"
    if count_label is not None:
        value = f"{value}.unbind(0)"
    return value


def _axis_size(group: list[str], sizes: dict) -> str:
    size = sizes.get(group[0])
    return size if size is not None else "-1"
