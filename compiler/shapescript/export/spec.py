"""The input spec of an export: each input's example shape, dtype and domain, and which of
its axes are a `torch.export.Dim`, derived from one, `Dim.AUTO` or static.

Worked out from the checked signature alone (no torch), so the editor's hover can show it.
"""

from __future__ import annotations

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import HostType, ModeType, TensorType
from shapescript.check.program import Checked
from shapescript.records import field, record

#: The dtypes as torch names them.
TORCH_DTYPES = {
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "u8": "uint8",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "bool": "bool",
}


class SpecError(ValueError):
    """A parameter the export can't make an input of (the checker reports most as E1705)."""


@record(frozen=True)
class AxisSpec:
    """One axis of an input: `kind` is static, dim, derived or auto; `example` its size in
    the example input; a derived axis is `factor * dim + offset`."""

    kind: str
    example: int
    written: str
    dim: str | None = None
    factor: int = 1
    offset: int = 0


@record(frozen=True)
class InputSpec:
    """One tensor input: its parameter, axes, dtype and the domain its example values
    come from (`over`: the axis a Prob or LogProb sums over; `size`: Index's bound;
    `low`/`high`: a range's ends)."""

    name: str
    position: int
    axes: tuple[AxisSpec, ...]
    dtype: str
    domain: str
    over: int | None = None
    size: int | None = None
    low: float | None = None
    high: float | None = None


@record
class ExportSpec:
    """What `torch.export.export` gets for one function: its inputs in order, the host
    parameters kept at their defaults, and each Dim's least value."""

    function: str
    inputs: list[InputSpec] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    #: The `Mode` parameters, given Eval: an exported program runs with dropout off.
    modes: list[str] = field(default_factory=list)
    dims: dict[str, int] = field(default_factory=dict)
    #: The model type baked into the program (its fields become the program's parameters),
    #: and the name of the parameter it is given for.
    model: str | None = None
    model_param: str | None = None

    def as_data(self) -> dict:
        """Plain data for the generated export module."""
        return {
            "function": self.function,
            "model": self.model,
            "model_param": self.model_param,
            "modes": list(self.modes),
            "dims": dict(self.dims),
            "inputs": [
                {
                    "name": spec.name,
                    "position": spec.position,
                    "dtype": TORCH_DTYPES.get(spec.dtype, "float32"),
                    "domain": spec.domain,
                    "over": spec.over,
                    "size": spec.size,
                    "low": spec.low,
                    "high": spec.high,
                    "axes": [
                        [axis.kind, axis.example, axis.dim, axis.factor, axis.offset]
                        for axis in spec.axes
                    ],
                }
                for spec in self.inputs
            ],
        }


def export_spec(checked: Checked, name: str, *, model_first: bool = False) -> ExportSpec:
    """The spec of the function `name` of a checked file; SpecError for a parameter that
    isn't a tensor with a known rank or a host scalar with a default. With `model_first`,
    the first parameter (the model, for a Hugging Face folder) isn't an input."""
    signature = checked.signatures.get(name)
    if signature is None or getattr(signature, "extern", False):
        raise SpecError(f"no function `{name}`")
    dims = {key: Poly.const(value) for key, value in checked.dim_values.items()}
    generics = set(getattr(signature, "generics", {}) or {})
    spec = ExportSpec(name)
    shapes: list[tuple[object, TensorType, list[Poly]]] = []
    for position, param in enumerate(signature.params):
        if model_first and position == 0:
            spec.model = getattr(param.type, "name", None)
            spec.model_param = param.name
            continue
        type_ = param.type
        if isinstance(type_, HostType) and param.has_default:
            spec.fixed.append(param.name)
            continue
        if isinstance(type_, ModeType):
            spec.modes.append(param.name)
            continue
        if not isinstance(type_, TensorType) or type_.axes is None:
            raise SpecError(f"parameter `{param.name}` isn't a tensor with a shape")
        if any(axis.rest for axis in type_.axes):
            raise SpecError(f"parameter `{param.name}` has `...`, whose rank isn't known")
        sizes = [axis.size.substitute(dims) for axis in type_.axes]
        shapes.append((position, param, type_, sizes))
    examples = _examples(shapes, generics)
    for position, param, type_, sizes in shapes:
        axes = tuple(
            _axis(size, axis, generics, examples, spec.dims)
            for size, axis in zip(sizes, type_.axes, strict=True)
        )
        spec.inputs.append(_input(param.name, position, type_, axes, dims))
    return spec


def _linear(size: Poly, generics: set[str]) -> tuple[str, int, int] | None:
    """`(g, a, b)` when the size is `a*g + b` for one generic axis g and a > 0."""
    names = size.symbols()
    if len(names) != 1:
        return None
    (name,) = names
    if name not in generics:
        return None
    split = size.linear_in(name)
    if split is None or split[0].value is None or split[1].value is None:
        return None
    factor, offset = split[0].value, split[1].value
    return (name, factor, offset) if factor > 0 else None


def _examples(shapes: list, generics: set[str]) -> dict[str, int]:
    """An example size for each generic axis, different from every other size of the
    signature (static sizes, and sizes derived from other axes' examples)."""
    used: set[int] = set()
    order: list[str] = []
    for _position, _param, _type, sizes in shapes:
        for size in sizes:
            if size.value is not None:
                used.add(size.value)
            for name in sorted(size.symbols()):
                if name in generics and name not in order:
                    order.append(name)
    derived: dict[str, list[tuple[int, int]]] = {}
    for _position, _param, _type, sizes in shapes:
        for size in sizes:
            found = _linear(size, generics)
            if found is not None:
                derived.setdefault(found[0], []).append((found[1], found[2]))
    examples: dict[str, int] = {}
    for name in order:
        forms = derived.get(name, [(1, 0)])
        candidate = 2
        while True:
            made = {factor * candidate + offset for factor, offset in forms} | {candidate}
            if min(made) >= 2 and not made & used:
                break
            candidate += 1
        examples[name] = candidate
        used |= made
    return examples


def _axis(
    size: Poly, axis, generics: set[str], examples: dict[str, int], dims: dict[str, int]
) -> AxisSpec:
    written = axis.written or (axis.name if axis.name else str(size))
    if size.value is not None:
        return AxisSpec("static", size.value, written)
    example = size.substitute({name: Poly.const(value) for name, value in examples.items()})
    value = example.value if example.value is not None else 2
    found = _linear(size, generics)
    if found is None:
        return AxisSpec("auto", value, written)
    name, factor, offset = found
    least = max(1, -((offset - 1) // factor))
    dims[name] = max(dims.get(name, 1), least)
    kind = "dim" if (factor, offset) == (1, 0) else "derived"
    return AxisSpec(kind, value, written, name, factor, offset)


def _input(
    name: str, position: int, type_: TensorType, axes: tuple[AxisSpec, ...], dims: dict
) -> InputSpec:
    domain = type_.domain
    over = None
    if domain.over is not None:
        names = [axis.name for axis in type_.axes or ()]
        over = names.index(domain.over) if domain.over in names else None
    size = None
    if domain.size is not None:
        size = domain.size.substitute(dims).value
    low = high = None
    if domain.interval is not None:
        low, high = domain.interval.lo, domain.interval.hi
    dtype = type_.resolved_dtype
    return InputSpec(name, position, axes, dtype, domain.name, over, size, low, high)


def describe(spec: ExportSpec) -> str:
    """The spec as Markdown lines, for the editor: each input's axes and how they vary."""
    lines = []
    for item in spec.inputs:
        parts = []
        for axis in item.axes:
            if axis.kind == "static":
                parts.append(f"{axis.written} static")
            elif axis.kind == "dim":
                parts.append(f"{axis.written} Dim")
            elif axis.kind == "derived":
                parts.append(f"{axis.written} derived from {axis.dim}")
            else:
                parts.append(f"{axis.written} Dim.AUTO")
        lines.append(f"- `{item.name}`: " + ", ".join(parts) + f" ({item.dtype})")
    for name in spec.fixed:
        lines.append(f"- `{name}`: fixed at its default")
    for name in spec.modes:
        lines.append(f"- `{name}`: Eval (dropout off)")
    return "\n".join(lines)
