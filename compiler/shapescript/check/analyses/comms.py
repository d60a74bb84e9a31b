"""What a program on several devices sends between them, worked out from the placement and
the types: each collective's operation, count, dtype and bytes, per line and per function.

The editor's hovers show it. Sizes are the values combined (an all-reduce on a ring sends
about 2·(N−1)/N times that from each device). A collective of floats in a function that
`value_and_grad` differentiates counts twice: its backward pass runs one as big.
"""

from __future__ import annotations

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import GradType, ModelType, TensorType, Type
from shapescript.check.analyses.placement import CONTROLLER, WORKERS, Placement, _split_axis
from shapescript.check.declarations.model_info import every_field
from shapescript.records import record
from shapescript.syntax import ast

BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8, "bool": 1, "u8": 1}


@record
class Sent:
    """One thing a line sends: what it is, and its bytes per call."""

    text: str
    bytes: int
    #: The bytes when the types don't fix them, as 64·b·n (then `bytes` is 0).
    symbolic: Poly | None = None


def _size(type_: Type | None, dims: dict[str, int] | None = None) -> tuple[int, str] | None:
    """A tensor's number of values and dtype, when the types (and the dims) give them."""
    if not isinstance(type_, TensorType) or type_.axes is None:
        return None
    values = {name: Poly.const(value) for name, value in (dims or {}).items()}
    count = 1
    for axis in type_.axes:
        value = axis.size.substitute(values).value
        if value is None:
            return None
        count *= value
    return count, type_.resolved_dtype


def _field_size(info) -> tuple[int, str] | None:
    shape = getattr(info, "shape", None)
    if shape is None:
        return None
    count = 1
    for size in shape:
        count *= size
    return count, info.dtype


def shown(count: int) -> str:
    """Bytes as hovers show them: `813,056 bytes (794 KiB)`."""
    if count < 1024:
        return f"{count:,} bytes"
    return f"{count:,} bytes ({round(count / 1024):,} KiB)"


def model_bytes(checked, name: str, params_only: bool = False) -> int:
    """A model's params (and buffers) in bytes, the models it holds included."""
    total = 0
    for _path, field_info in every_field(checked.models, name):
        if params_only and getattr(field_info, "kind", "param") != "param":
            continue
        size = _field_size(field_info)
        if size is not None:
            total += size[0] * BYTES.get(size[1], 4)
    return total


def _params(checked, model: str, names: tuple[str, ...] | None) -> list[tuple[str, int, str]]:
    """A model's params, the held models' too (by path, `h.0.w`), with their sizes and
    dtypes; with `names`, only those a function reads (a field that holds models read
    counts for all its params)."""
    found = []
    for path, field_info in every_field(checked.models, model):
        if getattr(field_info, "kind", "param") != "param":
            continue
        if names is not None and path not in names and path.split(".")[0] not in names:
            continue
        size = _field_size(field_info)
        if size is not None:
            found.append((path, size[0], size[1]))
    return found


def _names(items: list[str]) -> str:
    quoted = [f"`{item}`" for item in items]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


class Table:
    """The collectives of a checked file on several devices."""

    def __init__(self, checked) -> None:
        self.checked = checked
        self.placement: Placement = checked.placement
        self.functions = {
            item.item.name: item
            for item in checked.items
            if isinstance(item.item, ast.FnDecl) and item.body is not None
        }
        self._memo: dict[tuple[str, bool], int] = {}

    def _types(self, name: str) -> dict:
        return self.functions[name].body.facts.types

    def own(self, name: str, node: ast.Call | ast.Binary, differentiated: bool) -> Sent | None:
        """The all-reduce of an operation across the batch (or the heads, with split H)."""
        found = self.placement.collective_at(name, node.span)
        if found is None or found.kind == "cut":
            return None  # cutting a whole value to each device's heads sends nothing
        if isinstance(node, ast.Binary):
            callee = node.op
        else:
            callee = node.callee.name if isinstance(node.callee, ast.Name) else "?"
        result_type = self._types(name).get(node.span)
        result = _size(result_type, self.checked.dim_values)
        if result is None and callee != "cross_entropy" and found.kind != "stats":
            return self._symbolic(callee, found.kind, result_type, differentiated)
        if callee == "cross_entropy":
            count, dtype, what = 2, "f32", "a sum and a count"
        elif found.kind == "stats":
            channels = self._channels(name, node)
            if channels is None:
                return None
            count, dtype = 2 * channels + 1, "f64"
            what = "each channel's sum and sum of squares, and a count"
        elif result is None:
            return None
        elif found.kind == "mean":
            count, dtype, what = result[0] + 1, result[1], "its values and a count"
        else:
            count, dtype, what = result[0], result[1], "its values"
        size = count * BYTES.get(dtype, 4) * (2 if differentiated else 1)
        twice = ", forward and backward" if differentiated else ""
        return Sent(
            f"all-reduce of `{callee}` across the batch, {what}: {count:,} × {dtype}{twice} = "
            f"{shown(size)}",
            size,
        )

    def _symbolic(
        self, callee: str, kind: str, type_: Type | None, differentiated: bool
    ) -> Sent | None:
        """An all-reduce whose size has a generic axis, with the dims' values put in."""
        if not isinstance(type_, TensorType) or type_.axes is None:
            return None
        dims = {k: Poly.const(v) for k, v in (self.checked.dim_values or {}).items()}
        count = Poly.const(1)
        for axis in type_.axes:
            count = count * axis.size.substitute(dims)
        what = "its values"
        if kind == "mean":
            count, what = count + 1, "its values and a count"
        dtype = type_.resolved_dtype
        size = count * (BYTES.get(dtype, 4) * (2 if differentiated else 1))
        twice = ", forward and backward" if differentiated else ""
        return Sent(
            f"all-reduce of `{callee}` across the "
            f"{'heads' if self.placement.split_dim else 'batch'}, {what}: "
            f"{_dotted(count)} × {dtype}{twice} = {_dotted(size)} bytes",
            0,
            size,
        )

    def _channels(self, name: str, node: ast.Call) -> int | None:
        """The size of batch_norm's channel axis (its `over=`), when the types give it."""
        result = self._types(name).get(node.span)
        over = next(
            (a.value.name for a in node.args if a.name == "over" and isinstance(a.value, ast.Name)),
            None,
        )
        if not isinstance(result, TensorType) or result.axes is None:
            return None
        dims = {k: Poly.const(v) for k, v in (self.checked.dim_values or {}).items()}
        for axis in result.axes:
            if axis.name == over:
                return axis.size.substitute(dims).value
        return None

    def gather(self, name: str, node: ast.Member, differentiated: bool) -> Sent | None:
        """With shard params, the all-gather of a param where it's read, padded to a
        multiple of N; its backward is a reduce-scatter as big."""
        if not self.placement.shard_params:
            return None
        model = self._types(name).get(node.target.span)
        if not isinstance(model, ModelType):
            return None
        info = self.checked.models.get(model.name)
        field_info = info.fields.get(node.name) if info is not None else None
        if field_info is None or getattr(field_info, "kind", "param") != "param":
            return None
        size = _field_size(field_info)
        if size is None:
            return None
        count = self.placement.device_count
        values = -(-size[0] // count) * count
        twice = ", and its gradient's reduce-scatter" if differentiated else ""
        total = values * BYTES.get(size[1], 4) * (2 if differentiated else 1)
        source = self.checked.source.text
        base = self.functions[name].base
        what = source[base + node.span.start : base + node.span.end]
        return Sent(
            f"all-gather of `{what}`, padded to a multiple of {count}: "
            f"{values:,} × {size[1]}{twice} = {shown(total)}",
            total,
        )

    def grad_norm(self, name: str, node: ast.Call, callee: str | None) -> Sent | None:
        """With shard params, norm and clip_norm of a gradient add up the pieces' squares."""
        if not self._pieces() or callee not in ("norm", "clip_norm"):
            return None
        if not node.args or not isinstance(
            self._types(name).get(node.args[0].value.span), GradType
        ):
            return None
        return _norm_sent(callee)

    def _piped_norms(self, name: str, node: ast.Pipe) -> list[Sent]:
        """`g |> clip_norm(1.0)`: grad_norm's all-reduce for a stage given a gradient."""
        if not self._pieces():
            return []
        found = []
        types = self._types(name)
        before = types.get(node.input.span)
        for stage in node.stages:
            callee = stage.callee if isinstance(stage, ast.Call) else stage
            named = isinstance(callee, ast.Name) and callee.name in ("norm", "clip_norm")
            if named and isinstance(before, GradType):
                found.append(_norm_sent(callee.name))
            before = types.get(stage.span)
        return found

    def gradients(self, name: str, node: ast.Call) -> Sent | None:
        """value_and_grad's all-reduce of the gradients of the params its function reads
        (with shard params, none: each param's gradient is reduce-scattered where it's
        read)."""
        if len(node.args) < 2 or self.placement.shard_params:
            return None
        first = node.args[0].value
        model = self._types(name).get(node.args[1].value.span)
        if not isinstance(first, ast.Name) or not isinstance(model, ModelType):
            return None
        reads = self.checked.param_reads.get(first.name, {})
        names = next(iter(reads.values()), None) if reads else None
        params = _params(self.checked, model.name, names)
        # With split H, a split param's gradient is each device's own: nothing is sent.
        split = set(self._split_paths(model.name))
        params = [param for param in params if param[0] not in split]
        if not params:
            return None
        count = sum(size for _, size, _ in params)
        dtypes = sorted({dtype for _, _, dtype in params})
        size = sum(size * BYTES.get(dtype, 4) for _, size, dtype in params)
        what = (
            "what each device computed from its heads"
            if self.placement.split_dim
            else "every device's part of the batch"
        )
        return Sent(
            f"all-reduce of the gradients of `{model.name}`'s params "
            f"{_names([p for p, _, _ in params])}, which adds up {what}: "
            f"{count:,} × {'/'.join(dtypes)} = {shown(size)}",
            size,
        )

    def _split_paths(self, model: str) -> list[str]:
        """With split H, the params of `model` split along H: its own by name, the held
        models' by path (`h.0.attn.w_o`), each split by the model that declares it."""
        from shapescript.check.analyses.heads import split_axis

        dim = self.placement.split_dim
        if dim is None:
            return []
        return [
            path
            for path, info in every_field(self.checked.models, model)
            if info.is_param and split_axis(info.type, dim) is not None
        ]

    def _pieces(self) -> bool:
        """Whether gradients are in pieces across the devices, whose norm adds up squares."""
        return self.placement.shard_params or bool(self.placement.split_fields)

    def _heads_text(self, type_: Type | None) -> str | None:
        """With split H, how a value or a model is split along H."""
        from shapescript.check.analyses.heads import split_axis

        dim = self.placement.split_dim
        if dim is None:
            return None
        count = self.placement.device_count
        size = self.placement.split_size
        share = f"each holds {size // count} of {dim} = {size}" if size else f"{dim} / {count}"
        if isinstance(type_, ModelType):
            fields = self._split_paths(type_.name)
            if not fields:
                return None
            size_bytes = model_bytes(self.checked, type_.name)
            return (
                f"A copy on every device ({shown(size_bytes)} whole), but for "
                f"{_names(list(fields))}, split along {dim}: {share}."
            )
        if split_axis(type_, dim) is not None:
            return f"Split across the {count} devices along {dim}: {share}."
        if isinstance(type_, TensorType):
            return "Whole on every device."
        return None

    def piece_bytes(self, model: str) -> int:
        """With shard params, the bytes of each device's pieces of a model's params."""
        count = self.placement.device_count
        return sum(
            -(-size // count) * BYTES.get(dtype, 4)
            for _, size, dtype in _params(self.checked, model, None)
        )

    def per_call(self, name: str, differentiated: bool = False) -> int:
        """Bytes a function on the workers sends per call, its calls included (the sizes
        the types fix; `symbolic_per_call` has the others)."""
        return self._per_call(name, differentiated)[0]

    def symbolic_per_call(self, name: str, differentiated: bool = False) -> Poly | None:
        """The bytes a function sends per call whose sizes have a generic axis."""
        return self._per_call(name, differentiated)[1]

    def _per_call(self, name: str, differentiated: bool) -> tuple[int, Poly | None]:
        key = (name, differentiated)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = (0, None)
        sent = self.sends(name, None, differentiated)
        found = (sum(item.bytes for item in sent), _added(sent))
        self._memo[key] = found
        return found

    def _gathers(self, name: str, line: int | None, differentiated: bool) -> list[Sent]:
        """With split H, each operand gathered whole before an operation along or across H
        (its backward pass adds up a gradient as big)."""
        gathers = self.placement.gathers.get(name)
        if not gathers:
            return []
        item = self.functions[name]
        source = self.checked.source
        types = self._types(name)
        inputs = {}  # a pipe stage's span: the type of its input
        for node in walk(item.item):
            if isinstance(node, ast.Pipe):
                before = types.get(node.input.span)
                for stage in node.stages:
                    inputs[stage.span] = before
                    before = types.get(stage.span)
        found = []
        for span in sorted(gathers, key=lambda span: span.start):
            if line is not None and source.position(item.base + span.start).line != line:
                continue
            type_ = inputs.get(span, types.get(span))
            if not isinstance(type_, TensorType) or type_.axes is None:
                continue
            dims = {k: Poly.const(v) for k, v in (self.checked.dim_values or {}).items()}
            count = Poly.const(1)
            for axis in type_.axes:
                count = count * axis.size.substitute(dims)
            size = count * (BYTES.get(type_.resolved_dtype, 4) * (2 if differentiated else 1))
            text = source.text[item.base + span.start : item.base + span.end]
            what = f"the input of `{text}`" if span in inputs else f"`{text}`"
            twice = ", and its gradient's all-reduce" if differentiated else ""
            label = (
                f"all-gather of {what} along {self.placement.split_dim}: "
                f"{_dotted(count)} × {type_.resolved_dtype}{twice} = {_dotted(size)} bytes"
            )
            value = size.value
            found.append(Sent(label, value or 0, None if value is not None else size))
        return found

    def _inside(self, callee: str, differentiated: bool) -> Sent | None:
        inner, symbolic = self._per_call(callee, differentiated)
        if not inner and symbolic is None:
            return None
        text = f"inside `{callee}`: {_both(inner, symbolic)} per call"
        return Sent(text, inner, symbolic)

    def sends(self, name: str, line: int | None, differentiated: bool = False) -> list[Sent]:
        """What the function sends, on one line (1-based) or in all."""
        item = self.functions.get(name)
        if item is None or self.placement.places.get(name) != WORKERS:
            return []
        source = self.checked.source
        found: list[Sent] = self._gathers(name, line, differentiated)
        for node in walk(item.item):
            if isinstance(node, ast.Binary) and node.op == "@":
                if line is None or source.position(item.base + node.span.start).line == line:
                    product = self.own(name, node, differentiated)
                    if product is not None:
                        found.append(product)
                continue
            if not isinstance(node, ast.Call | ast.Member | ast.Pipe):
                continue
            if line is not None and source.position(item.base + node.span.start).line != line:
                continue
            if isinstance(node, ast.Pipe):
                found.extend(self._piped_norms(name, node))
                continue
            if isinstance(node, ast.Member):
                gathered = self.gather(name, node, differentiated)
                if gathered is not None:
                    found.append(gathered)
                continue
            callee = node.callee.name if isinstance(node.callee, ast.Name) else None
            own = self.own(name, node, differentiated) or self.grad_norm(name, node, callee)
            if own is not None:
                found.append(own)
            if callee == "value_and_grad":
                grads = self.gradients(name, node)
                if grads is not None:
                    found.append(grads)
                first = node.args[0].value if node.args else None
                if isinstance(first, ast.Name) and first.name in self.functions:
                    inner = self._inside(first.name, True)
                    if inner is not None:
                        found.append(inner)
            elif callee in self.functions and callee != name:
                inner = self._inside(callee, differentiated)
                if inner is not None:
                    found.append(inner)
        return found

    def line_text(self, name: str, line: int) -> str | None:
        """The hover of a line that sends something, or None."""
        sent = self.sends(name, line)
        if not sent:
            return None
        count = self.placement.device_count
        lines = [f"Sent between the {count} devices on this line, per call:", ""]
        lines += [f"- {item.text}" for item in sent]
        total = sum(item.bytes for item in sent)
        lines += ["", f"In all: {_both(total, _added(sent))}."]
        return "\n".join(lines)

    def function_text(self, name: str) -> str | None:
        place = self.placement.places.get(name)
        if place is None:
            return None
        if place == CONTROLLER:
            return "Runs in the controller, once, as ordinary Python."
        if place == WORKERS:
            total, symbolic = self._per_call(name, False)
            return (
                f"Runs on the workers, each of the {self.placement.device_count} devices on "
                f"its part of the data; sends {_both(total, symbolic)} per call, its calls "
                "included."
            )
        return "Runs anywhere: where it's called."

    def value_text(self, name: str, type_: Type | None) -> str | None:
        """How a value of function `name` is laid out over the devices."""
        place = self.placement.places.get(name)
        count = self.placement.device_count
        if place == CONTROLLER:
            return "In the controller."
        heads = self._heads_text(type_)
        if heads is not None:
            return heads
        if isinstance(type_, ModelType) and self.placement.shard_params:
            piece = self.piece_bytes(type_.name)
            return (
                f"Sharded: each device holds {_fraction(count)} of every param of "
                f"`{type_.name}`, {shown(piece)} of its params."
            )
        if isinstance(type_, ModelType):
            size = model_bytes(self.checked, type_.name)
            return f"A copy on every device: {shown(size)} of params and buffers each."
        if not isinstance(type_, TensorType):
            return None
        split = self.placement.split_sizes.get(name, frozenset())
        axis = _split_axis(type_, split)
        if axis is not None:
            axis_name = type_.axes[axis].name or type_.axes[axis].size.single_symbol()
            shares = "/".join(str(n) for n in _shares(64, count))
            return (
                f"Split across the {count} devices along `{axis_name}`: each holds its share "
                f"of the batch ({shares} for a batch of 64)."
            )
        return "Whole on every device."


def _added(sent: list[Sent]) -> Poly | None:
    """The symbolic bytes of what is sent, added up, or None if the types fix them all."""
    found = [item.symbolic for item in sent if item.symbolic is not None]
    if not found:
        return None
    total = found[0]
    for size in found[1:]:
        total = total + size
    return total


def _both(total: int, symbolic: Poly | None) -> str:
    """Bytes with a symbolic part: `8 bytes + 128·b·n bytes`."""
    if symbolic is None:
        return shown(total)
    if not total:
        return f"{_dotted(symbolic)} bytes"
    return f"{shown(total)} + {_dotted(symbolic)} bytes"


def _dotted(size: Poly) -> str:
    """A size as hovers write it: `3,072·b·n`."""
    value = size.value
    if value is not None:
        return f"{value:,}"
    text = str(size).replace("*", "·")
    parts = text.split("·")
    if parts and parts[0].isdigit():
        parts[0] = f"{int(parts[0]):,}"
    return "·".join(parts)


def _norm_sent(callee: str) -> Sent:
    return Sent(f"all-reduce of `{callee}`'s sum of squares: 1 × f32 = 4 bytes", 4)


def _fraction(count: int) -> str:
    return {2: "a half", 3: "a third", 4: "a quarter"}.get(count, f"1/{count}")


def _shares(total: int, count: int) -> list[int]:
    base, extra = divmod(total, count)
    return [base + (1 if index < extra else 0) for index in range(count)]
