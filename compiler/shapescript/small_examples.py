"""The small example a function runs (its picture, `shapescript verify`): the file with
small dims, compiled standalone for the CPU, and seeded argument values that each
parameter's type allows.

Everything here is plain data (nested lists), built without torch: the worker turns it
into tensors.
"""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any

from shapescript.analysis import check
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import HostType, ModelType, ModeType, TensorType
from shapescript.check.program import Checked
from shapescript.records import record
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span

#: The sizes a file's literal dims are made, tried in order until the file checks.
SMALL_DIMS = (6, 4, 8, 12)
#: A generic axis's size: the first one's, then the others'.
FIRST_AXIS, OTHER_AXES = 3, 5
SEED = 0
#: How much the dependency picture changes one input value, up and down.
CHANGE = 10.0
#: Calls that read or write outside the function, or train: a function using one isn't run.
NOT_RUN = frozenset(
    {
        "print",
        "save",
        "load",
        "batches",
        "shuffle",
        "update",
        "adamw",
        "sgd",
        "warmup",
        "value_and_grad",
        "clip_norm",
    }
)
DTYPES = {
    "f32": "float32",
    "f64": "float64",
    "f16": "float16",
    "bf16": "bfloat16",
    "i64": "int64",
    "i32": "int32",
    "i16": "int16",
    "i8": "int8",
    "u8": "uint8",
    "bool": "bool",
}
#: A literal dim's line. `[^\S\n]` is whitespace within the line: `\s` would cross line
#: ends, and trying that from every line start is quadratic in a run of blank lines.
_DIM = re.compile(
    r"^([^\S\n]*(?:export[^\S\n]+)?dim[^\S\n]+\w+[^\S\n]*=[^\S\n]*)(\d+)([^\S\n]*(?:#.*)?)$",
    re.MULTILINE,
)


@record
class Argument:
    """One argument: its parameter, type, value (a tensor as {"tensor", "dtype"}, a model
    as {"model": name, "seed"}, made by the module's `Name.init(seed=...)`, a mode as
    {"mode": "Eval"}, or a number)
    and whether it is a weight (every size fixed, or a model), which isn't drawn."""

    name: str
    type: object
    value: Any
    weight: bool = False


@record
class Example:
    """A function ready to run: the standalone module's source and the arguments."""

    function: str
    code: str
    arguments: list[Argument]
    dims: dict[str, int]
    return_type: object = None
    #: What the result's caption calls it: the call as written, for a call's picture.
    label: str = ""
    #: The result's structure (`check.structures.Structure`), whose background is hatched.
    structure: object = None

    def request(self) -> dict[str, Any]:
        """Run it on the example, then with one value of the first data input changed
        up and then down (when there is one that can change)."""
        args = [argument.value for argument in self.arguments]
        calls = [args]
        changed = self.changed()
        if changed is not None:
            index, path = changed
            for step in (CHANGE, -CHANGE):
                varied = list(args)
                varied[index] = _changed(args[index], path, step)
                calls.append(varied)
        return {"code": self.code, "call": self.function, "calls": calls}

    def changed(self) -> tuple[int, list[int]] | None:
        """Which argument and which element of it the dependency picture changes: the
        first data input's value at index 0 along leading axes, row 1, column 0."""
        for index, argument in enumerate(self.arguments):
            type_ = argument.type
            if argument.weight or not isinstance(type_, TensorType) or not type_.axes:
                continue
            if type_.domain.name not in ("Real", "Logit") or type_.domain.interval is not None:
                return None
            if not argument.value["dtype"].startswith(("float", "bfloat")):
                return None
            sizes = _shape(argument.value["tensor"])
            path = [0] * len(sizes)
            row = len(sizes) - 2 if len(sizes) >= 2 else 0
            path[row] = min(1, sizes[row] - 1)
            return index, path
        return None


def why_not_run(checked: Checked, name: str) -> str | None:
    """Why the function isn't run for a picture, or None when it may be."""
    if checked.errors:
        return "the file has errors"
    if any(isinstance(item, ast.ImportDecl) for item in checked.module.items):
        return "the file imports other .ss files"
    python_names = {
        item.parts[0] for item in checked.module.items if isinstance(item, ast.ImportPythonDecl)
    }
    functions = {item.name: item for item in checked.module.items if isinstance(item, ast.FnDecl)}
    externs = {
        item.name
        for item in checked.module.items
        if isinstance(item, ast.ExternFnDecl) and not _torch_path(item)
    }
    if name not in functions:
        return "it isn't a function of this file"
    seen: set[str] = set()
    waiting = [name]
    while waiting:
        current = waiting.pop()
        if current in seen:
            continue
        seen.add(current)
        declaration = functions[current]
        if any(param.mut for param in declaration.params):
            return f"`{current}` takes a mut parameter"
        for used in _names(declaration):
            if used in NOT_RUN:
                return f"`{current}` calls {used}"
            if used in externs:
                return f"`{current}` calls the extern fn {used}"
            if used in python_names:
                return f"`{current}` uses Python"
            if used in functions:
                waiting.append(used)
    signature = checked.signatures.get(name)
    if signature is None or getattr(signature, "is_generic", False):
        return "it is generic"
    defaults = [param.has_default for param in signature.params]
    if any(default and not later for default, later in zip(defaults, defaults[1:], strict=False)):
        return "a parameter with a default comes before one without"
    for param in signature.params:
        takes = (TensorType, HostType, ModelType, ModeType)
        if not param.has_default and not isinstance(param.type, takes):
            return f"`{param.name}` is neither a tensor, a number, a model nor a mode"
    return None


def _torch_path(declaration: ast.ExternFnDecl) -> bool:
    path = declaration.python_path.value if declaration.python_path is not None else ""
    return path.startswith("torch.")


def _names(node: object) -> list[str]:
    """Every name a declaration's body mentions."""
    found: list[str] = []
    waiting = [node]
    while waiting:
        current = waiting.pop()
        if isinstance(current, ast.Name):
            found.append(current.name)
            continue
        if isinstance(current, list | tuple):
            waiting.extend(current)
            continue
        if not hasattr(type(current), "__slots__") or isinstance(current, str | int | float):
            continue
        for cls in type(current).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                value = getattr(current, slot, None)
                if value is not None and not isinstance(value, str | int | float | bool):
                    waiting.append(value)
    return found


def small_file(checked: Checked) -> Checked | None:
    """The file checked again with its literal dims made small, or None if no size checks."""
    text = checked.source.text
    if not _DIM.search(text):
        return checked
    for size in SMALL_DIMS:
        small = _DIM.sub(lambda match, size=size: f"{match[1]}{size}{match[3]}", text)
        again = check(SourceFile.from_text(checked.source.path, small))
        if not again.errors:
            return again
    return None


def example(checked: Checked, name: str, shrink: bool = True) -> Example | None:
    """The function compiled with small dims (the file's own ones when not `shrink`) and
    its arguments, or None if it can't run."""
    from shapescript.codegen import BuildOptions, generate

    small = small_file(checked) if shrink else checked
    if small is None or why_not_run(small, name) is not None:
        return None
    generated = generate(small, BuildOptions(standalone=True, devices="cpu"))
    if generated.tree is None:
        return None
    signature = small.signatures[name]
    dims = dict(small.dim_values)
    generics = _sizes_the_asserts_divide(small, name, dims)
    rng = random.Random(SEED)
    arguments = []
    for param in signature.params:
        if param.has_default:
            break
        value, weight = _value(param.type, dims, generics, rng)
        if value is None:
            return None
        arguments.append(Argument(param.name, param.type, value, weight))
    returns = signature.return_type or _returned_type(small, name)
    return Example(name, generated.source, arguments, dims, returns)


def _sizes_the_asserts_divide(checked: Checked, name: str, dims: dict[str, int]) -> dict[str, Poly]:
    """Generic sizes that the function's asserts ask to divide or be divided: for
    `assert D % H == 0` at the top of its body, a generic D is the least common multiple of
    its known divisors (at least 2), and a generic H with D known is D's largest divisor up
    to the usual small size, so the example passes the assert."""
    multiples: dict[str, list[int]] = {}
    divisors: dict[str, list[int]] = {}
    for condition in _top_level_asserts(checked, name):
        for relation in _conjuncts(condition):
            parts = _divisibility(relation)
            if parts is None:
                continue
            dividend, divisor = parts
            if isinstance(divisor, int) or divisor in dims:
                value = divisor if isinstance(divisor, int) else dims[divisor]
                if dividend not in dims and value > 0:
                    multiples.setdefault(dividend, []).append(value)
            elif dividend in dims:
                divisors.setdefault(divisor, []).append(dims[dividend])
    sizes = {size: max(2, math.lcm(*values)) for size, values in multiples.items()}
    for size, values in divisors.items():
        common = math.gcd(*values)
        sizes[size] = max(d for d in range(1, min(common, OTHER_AXES) + 1) if common % d == 0)
    return {size: Poly.const(value) for size, value in sizes.items()}


def _top_level_asserts(checked: Checked, name: str) -> list[ast.Expr]:
    for item in checked.items:
        declaration = item.item
        if isinstance(declaration, ast.FnDecl) and declaration.name == name:
            return [
                statement.condition
                for statement in declaration.body or ()
                if isinstance(statement, ast.Assert)
            ]
    return []


def _conjuncts(condition: ast.Expr) -> list[ast.Expr]:
    """The relations joined by `and` (a loop, not recursion: `and` chains can be long)."""
    found, pending = [], [condition]
    while pending:
        expression = pending.pop()
        if isinstance(expression, ast.Binary) and expression.op == "and":
            pending.extend((expression.right, expression.left))
        else:
            found.append(expression)
    return found


def _divisibility(relation: ast.Expr) -> tuple[str, str | int] | None:
    """`A % B == 0` with A a name and B a name or a literal: (A, B)."""
    if not (
        isinstance(relation, ast.Binary)
        and relation.op == "=="
        and isinstance(relation.right, ast.IntLit)
        and relation.right.value == 0
        and isinstance(relation.left, ast.Binary)
        and relation.left.op == "%"
        and isinstance(relation.left.left, ast.Name)
    ):
        return None
    divisor = relation.left.right
    if isinstance(divisor, ast.IntLit):
        return relation.left.left.name, divisor.value
    if isinstance(divisor, ast.Name):
        return relation.left.left.name, divisor.name
    return None


def _returned_type(checked: Checked, name: str) -> object:
    """The type the checker found for what a function without `->` returns: its `= expr`
    body's, or its last top-level `return`'s."""
    for item in checked.items:
        declaration = item.item
        if not isinstance(declaration, ast.FnDecl) or declaration.name != name:
            continue
        value = declaration.expr_body
        for statement in declaration.body or ():
            if isinstance(statement, ast.Return) and statement.value is not None:
                value = statement.value
        if value is None:
            return None
        span = value.span
        return checked.type_of(Span(span.start + item.base, span.end + item.base))
    return None


def sizes_of(type_: TensorType, dims: dict[str, int], generics: dict[str, Poly]) -> list[int]:
    """The tensor's sizes in the example; a generic axis is given its small size here."""
    values = {name: Poly.const(value) for name, value in dims.items()}
    sizes = []
    for axis in type_.axes or ():
        for symbol in sorted(axis.size.symbols()):
            if symbol not in values and symbol not in generics:
                generics[symbol] = Poly.const(FIRST_AXIS if not generics else OTHER_AXES)
        size = axis.size.substitute({**values, **generics}).value
        sizes.append(size if size is not None and size > 0 else OTHER_AXES)
    return sizes


def _value(type_, dims, generics, rng: random.Random) -> tuple[Any, bool]:
    if isinstance(type_, ModelType):
        return {"model": type_.name, "seed": SEED}, True
    if isinstance(type_, ModeType):
        return {"mode": "Eval"}, False
    if isinstance(type_, HostType):
        return {"int": 2, "float": 1.0, "bool": True}.get(type_.kind, 1), False
    if not isinstance(type_, TensorType) or type_.axes is None:
        return None, False
    if any(axis.rest for axis in type_.axes):
        return None, False
    weight = all(not (axis.size.symbols() - set(dims)) for axis in type_.axes) and bool(type_.axes)
    sizes = sizes_of(type_, dims, generics)
    domain = type_.domain
    dtype = DTYPES.get(type_.resolved_dtype, "float32")
    count = math.prod(sizes)
    if domain.name == "Mask":
        flat: list[Any] = [rng.random() < 0.5 for _ in range(count)]
    elif domain.name == "Index":
        bound = _index_bound(domain, dims, generics)
        flat = [rng.randrange(bound) for _ in range(count)]
    elif dtype == "uint8":
        flat = [rng.randrange(256) for _ in range(count)]
    elif domain.interval is not None:
        flat = [_in_interval(domain.interval, rng) for _ in range(count)]
    else:
        flat = [round(rng.gauss(0.0, 1.0), 4) for _ in range(count)]
    if domain.name in ("Prob", "LogProb") and sizes:
        position = _axis_position(type_, domain.over)
        flat = _softmax(flat, sizes, position, log=domain.name == "LogProb")
    return {"tensor": _nest(flat, sizes), "dtype": dtype}, weight


def _index_bound(domain, dims, generics) -> int:
    if domain.size is None:
        return FIRST_AXIS
    values = {name: Poly.const(value) for name, value in dims.items()}
    bound = domain.size.substitute({**values, **generics}).value
    return bound if bound is not None and bound > 0 else FIRST_AXIS


def _in_interval(interval, rng: random.Random) -> float:
    """A value the range allows: uniform when both ends are finite, else a normal folded
    to the finite end's side."""
    low, high = interval.lo, interval.hi
    if math.isfinite(low) and math.isfinite(high):
        return round(low + (high - low) * rng.random(), 4)
    if math.isfinite(low):
        return round(low + abs(rng.gauss(0.0, 1.0)), 4)
    if math.isfinite(high):
        return round(high - abs(rng.gauss(0.0, 1.0)), 4)
    return round(rng.gauss(0.0, 1.0), 4)


def _axis_position(type_: TensorType, name: str | None) -> int:
    for position, axis in enumerate(type_.axes or ()):
        if axis.name == name:
            return position
    return len(type_.axes or ()) - 1


def _shape(value: Any) -> list[int]:
    sizes = []
    while isinstance(value, list):
        sizes.append(len(value))
        value = value[0] if value else None
    return sizes


def _changed(value: dict[str, Any], path: list[int], step: float) -> dict[str, Any]:
    """A copy of a tensor value with the element at `path` moved by `step`."""
    tensor = json.loads(json.dumps(value["tensor"]))
    inner = tensor
    for index in path[:-1]:
        inner = inner[index]
    inner[path[-1]] = inner[path[-1]] + step
    return {**value, "tensor": tensor}


def _nest(flat: list[Any], sizes: list[int]) -> Any:
    if not sizes:
        return flat[0]
    for size in reversed(sizes[1:]):
        flat = [flat[start : start + size] for start in range(0, len(flat), size)]
    return flat


def _softmax(flat: list[float], sizes: list[int], position: int, log: bool) -> list[float]:
    """A softmax (or log-softmax) of a flat row-major tensor along the axis at `position`."""
    stride = math.prod(sizes[position + 1 :])
    size = sizes[position]
    out = list(flat)
    for start in range(len(flat)):
        if (start // stride) % size:
            continue
        indices = [start + step * stride for step in range(size)]
        top = max(flat[index] for index in indices)
        exps = [math.exp(flat[index] - top) for index in indices]
        total = sum(exps)
        for index, value in zip(indices, exps, strict=True):
            out[index] = math.log(value / total) if log else value / total
    return out
