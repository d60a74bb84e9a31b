"""The failure paths of compiled checks, and the value and `as` checks.

Compiled functions test their arguments inline (a few comparisons); only when a test fails
do they call `argument_error`, which works out what is wrong from the function's spec and
raises an error naming the `.ss` line, the function and the parameter.

A function's spec is `(path, line, column, name, params)`, each param
`(name, line, column, type text, axes, dtype)`, each axis `("size", expr, text)`,
`("read", symbol, factor, offset, text, factor text)` or `("any", text)`, where the
expressions are Python over the function's sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from shapescript.rt.errors import DeviceError, DomainError, ShapeError

DTYPES = {
    "bool": torch.bool,
    "u8": torch.uint8,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
}
DTYPE_NAMES = {value: key for key, value in DTYPES.items()}


@dataclass(frozen=True, slots=True)
class Domain:
    """A user `domain` declaration, as a compiled module exposes it."""

    name: str
    interval: str


def _dtype_name(dtype: Any) -> str:
    return DTYPE_NAMES.get(dtype, str(dtype).removeprefix("torch."))


def _evaluate(expression: str, known: dict[str, Any]) -> int | None:
    try:
        return int(eval(expression, {"__builtins__": {}}, dict(known)))  # noqa: S307
    except Exception:
        return None


def _source_of(params, symbol: str) -> str | None:
    """The parameter a generic size is read from."""
    for param in params:
        for axis in param[4]:
            if axis[0] == "read" and axis[1] == symbol:
                return param[0]
    return None


def argument_error(spec, index: int, value: Any, known: dict[str, Any]) -> None:
    """Raise the error that says why `value` doesn't fit parameter `index`."""
    path, _line, _column, function, params = spec
    name, line, column, shown, axes, dtype = params[index]
    where = {"path": path, "line": line, "column": column, "function": function, "parameter": name}
    shape = getattr(value, "shape", None)
    if not isinstance(value, torch.Tensor):
        raise ShapeError(f"expected a tensor {shown}, got {type(value).__name__}", **where)
    shape = tuple(shape)
    device = known.get("_ss_dev")
    if device is not None and value.device != device:
        raise DeviceError(
            f"the tensor is on {value.device}, but the program runs on {device}; "
            f"move it there first, with .to({str(device)!r})",
            **where,
        )
    rest = shown is not None and "..." in shown
    if (len(shape) < len(axes)) if rest else (len(shape) != len(axes)):
        raise ShapeError(
            f"expected {shown}, {'at least ' if rest else ''}{len(axes)} axes, got a tensor "
            f"of shape {shape}, {len(shape)} {'axis' if len(shape) == 1 else 'axes'}",
            **where,
        )
    if dtype is not None and value.dtype != DTYPES.get(dtype):
        raise ShapeError(
            f"expected {shown} with {dtype} values, got {_dtype_name(value.dtype)}; "
            f"convert it first, with .to(torch.{str(DTYPES[dtype]).removeprefix('torch.')})",
            **where,
        )
    for position, axis in enumerate(axes):
        size = shape[position] if not rest or position < len(axes) else None
        if size is None:
            continue
        kind = axis[0]
        if kind == "size":
            expected = _evaluate(axis[1], known)
            if expected is None or expected == size:
                continue
            text = axis[2]
            source = _source_of(params, text) if text.isidentifier() else None
            if source is not None and source != name:
                detail = f"{text} is {expected} from `{source}`"
            elif text != str(expected):
                detail = f"{text} = {expected}"
            else:
                detail = None
            raise ShapeError(
                f"expected {shown}"
                + (f" where {detail}" if detail else "")
                + f", got shape {shape}: axis {position + 1} is {size}, not {expected}",
                **where,
            )
        if kind == "read":
            _symbol, factor, offset, text, factor_text = axis[1:]
            factor_value = _evaluate(factor, known)
            offset_value = _evaluate(offset, known)
            if factor_value is None or offset_value is None:
                continue
            whole, remainder = divmod(size - offset_value, factor_value)
            if remainder == 0 and whole >= 0:
                continue
            if factor_value != 1 and offset_value == 0:
                written, _, value_text = factor_text.partition(" = ")
                aside = f" ({written} = {value_text})" if value_text else ""
                raise ShapeError(
                    f"expected {shown}, got shape {shape}: axis {position + 1} is {size}, "
                    f"which isn't {written} × {axis[1]} for a whole {axis[1]}{aside}",
                    **where,
                )
            raise ShapeError(
                f"expected {shown}, whose axis {position + 1} is {text} for some whole "
                f"{axis[1]} of at least 0, got shape {shape}: no whole {axis[1]} gives {size}",
                **where,
            )
    raise ShapeError(f"expected {shown}, got shape {shape}", **where)


def _whole(tensor: Any) -> Any:
    """Inside torch.vmap, the values of every element together: a value check in an
    iterator stage checks them all at once, without branching on one element."""
    while isinstance(tensor, torch.Tensor) and torch._C._functorch.is_batchedtensor(tensor):
        tensor = torch._C._functorch.get_unwrapped(tensor)
    return tensor


def _failed(bad: torch.Tensor) -> bool:
    return bool(_whole(bad).any())


def _found(value: Any, what: str) -> str:
    """What a value check found, for a range or index domain: the values' extent, or how
    many are NaN."""
    if not isinstance(value, torch.Tensor) or value.numel() == 0 or value.dtype == torch.bool:
        return ""
    if not what.startswith(("values in", "indices in", "only")) or "sum" in what:
        return _nan_text(_whole(value))
    value = _whole(value)
    nans = _nan_text(value)
    if nans:
        return nans
    low, high = value.min().item(), value.max().item()
    return f", but they go from {low:g} to {high:g}"


def _nan_text(values: torch.Tensor) -> str:
    """`, but 2 of them are NaN`, or "" when none is."""
    if not values.is_floating_point():
        return ""
    count = int(values.isnan().sum())
    if count == 0:
        return ""
    return f", but {count} of them {'is' if count == 1 else 'are'} NaN"


def not_tensors(spec, known: dict[str, Any]) -> None:
    """Raise the error for the first argument that should be a tensor and isn't."""
    for index, param in enumerate(spec[4]):
        if param[5] is None:
            continue
        # A parameter named like a Python keyword is a local with a `_` after its name.
        name = param[0] if param[0] in known else param[0] + "_"
        value = known.get(name)
        if not isinstance(value, torch.Tensor):
            argument_error(spec, index, value, known)
    raise AssertionError("an argument without a shape, but every one is a tensor")


def domain_error(bad: torch.Tensor, spec, index: int, what: str, value: Any = None) -> None:
    """Raise DomainError when `bad` (a [] bool tensor) is true; on CUDA, assert on the
    device instead of waiting for it."""
    if bad.device.type == "cuda":
        torch._assert_async(~_whole(bad).any())
        return
    if _failed(bad):
        path, _line, _column, function, params = spec
        name, line, column = params[index][:3]
        raise DomainError(
            f"its values break the promise of its type {params[index][3]}: expected {what}"
            + _found(value, what),
            path=path,
            line=line,
            column=column,
            function=function,
            parameter=name,
        )


def index_error(value: torch.Tensor, top: int, spec, index: int, what: str) -> None:
    """Raise DomainError unless every value of `value` is in [0, top): `domain_error` of
    `((value < 0) | (value >= top)).any()`, as one pass (torch.aminmax) and two numbers
    read back instead of four ops over the values. Off the CPU (on CUDA an assert on the
    device, not a wait for it), or for a dtype aminmax doesn't take, it is that test itself."""
    whole = _whole(value)
    if whole.device.type != "cpu" or whole.dtype not in _ORDERED_INDEX_DTYPES:
        domain_error((whole < 0) | (whole >= top), spec, index, what, value)
        return
    if whole.numel() == 0:
        return
    low, high = torch.aminmax(whole)
    if low.item() < 0 or high.item() >= top:
        domain_error(torch.tensor(True), spec, index, what, value)


#: The dtypes whose least and greatest value `index_error` reads with torch.aminmax.
_ORDERED_INDEX_DTYPES = frozenset({torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8})


def _site(site) -> dict[str, Any]:
    path, line, column, function = site
    return {"path": path, "line": line, "column": column, "function": function}


def assert_failed(text: str, values: dict[str, Any], site) -> None:
    """An `assert` the checker left to run time that doesn't hold."""
    shown = ", ".join(f"{name} = {value!r}" for name, value in values.items())
    raise ShapeError(f"`assert {text}` failed" + (f" for {shown}" if shown else ""), **_site(site))


def as_shape(value: Any, sizes: tuple, dtype: Any, site) -> Any:
    """`x as [..]`: the value, if its shape (and dtype, when written) fits."""
    shape = getattr(value, "shape", None)
    if not isinstance(value, torch.Tensor):
        raise ShapeError(
            f"`as` expected a tensor of shape {_shape_text(sizes)}, got {type(value).__name__}",
            **_site(site),
        )
    shape = tuple(shape)
    if len(shape) != len(sizes) or any(
        want is not None and have != want for have, want in zip(shape, sizes, strict=False)
    ):
        raise ShapeError(f"`as` expected shape {_shape_text(sizes)}, got {shape}", **_site(site))
    if dtype is not None and value.dtype != dtype:
        raise ShapeError(
            f"`as` expected {_dtype_name(dtype)} values, got {_dtype_name(value.dtype)}",
            **_site(site),
        )
    return value


def _shape_text(sizes: tuple) -> str:
    return "(" + ", ".join("?" if size is None else str(size) for size in sizes) + ")"


def as_domain(value: Any, bad: torch.Tensor, what: str, site) -> Any:
    """`x as D`: the value, if its values keep the domain's promise."""
    if bad.device.type == "cuda":
        torch._assert_async(~_whole(bad).any())
        return value
    if _failed(bad):
        raise DomainError(
            f"`as` claimed {what}" + (_found(value, what) or ", and the values aren't"),
            **_site(site),
        )
    return value


def as_host(value: Any, kind: str, site) -> Any:
    """`x as int`, `as float` or `as bool` on a Python value."""
    if kind == "bool":
        fits = isinstance(value, bool)
    elif kind == "int":
        fits = isinstance(value, int) and not isinstance(value, bool)
    else:
        fits = isinstance(value, int | float) and not isinstance(value, bool)
    if not fits:
        raise ShapeError(
            f"`as {kind}` got a {type(value).__name__}: {value!r}"[:200], **_site(site)
        )
    return value
