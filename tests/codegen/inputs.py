"""Random arguments that fit a function's signature: sizes, dtypes and domains."""

from __future__ import annotations

import math

import torch

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import HostType, TensorType, interval_of
from shapescript.check.declarations.signatures import Signature

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
#: The size every generic axis gets.
GENERIC = 2
HOST = {"int": 2, "float": 0.5, "bool": True}


class NoArguments(Exception):
    """The signature has a parameter these tests can't make an argument for."""


def arguments_for(signature: Signature, dims: dict[str, int]) -> list[object]:
    """One argument per parameter; generic sizes are all GENERIC, so they agree."""
    known = {name: Poly.const(value) for name, value in dims.items()}
    return [_argument(param.type, known) for param in signature.params]


def _size(size: Poly, known: dict[str, Poly]) -> int:
    for symbol in size.substitute(known).symbols():
        known.setdefault(symbol, Poly.const(GENERIC))
    value = size.substitute(known).value
    if value is None or value < 1:
        raise NoArguments(f"a size {size}")
    return int(value)


def _argument(type_, known: dict[str, Poly]) -> object:
    if isinstance(type_, HostType):
        return HOST[type_.kind]
    if not isinstance(type_, TensorType):
        raise NoArguments(f"a parameter of type {type_}")
    shape = [3] if type_.axes is None else [_size(axis.size, known) for axis in type_.axes]
    domain, dtype = type_.domain, DTYPES[type_.resolved_dtype]
    if domain.name == "Mask":
        return torch.rand(shape) > 0.5
    if domain.name == "Index" and domain.size is not None:
        return torch.randint(0, _size(domain.size, known), shape, dtype=dtype)
    if domain.name in ("Prob", "LogProb"):
        axis = [axis.name for axis in type_.axes].index(domain.over)
        probabilities = torch.softmax(torch.randn(shape, dtype=torch.float64), axis)
        return (probabilities.log() if domain.name == "LogProb" else probabilities).to(dtype)
    if domain.name == "Binary":
        return (torch.rand(shape) > 0.5).to(dtype)
    if domain.name == "Additive":
        return torch.zeros(shape, dtype=dtype).masked_fill(torch.rand(shape) > 0.5, -math.inf)
    if not dtype.is_floating_point:
        return torch.randint(0, 5, shape, dtype=dtype)
    interval = interval_of(type_)
    if interval is not None and not math.isinf(interval.lo):
        width = 1.0 if math.isinf(interval.hi) else interval.hi - interval.lo
        return (interval.lo + width * (0.1 + 0.8 * torch.rand(shape))).to(dtype)
    return torch.randn(shape).to(dtype)
