"""Compiled models: `nn.Module` subclasses whose fields are declared, seeded and checked.

A compiled model is `class Mlp(Model): _ss_fields = (Field(...), ...)`. `Mlp.init(seed=s)`
makes one on the declared device, each field drawn from a generator of its own, so the same
seed gives the same values and adding or reordering fields leaves the others unchanged.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import torch

from shapescript.rt import devices
from shapescript.rt.checks import DTYPE_NAMES, DTYPES
from shapescript.rt.errors import ShapeError
from shapescript.rt.randomness import seed_for

KINDS = ("param", "buffer")
INITIALIZERS = ("zeros", "ones", "full", "normal", "uniform")
FLOAT_DTYPES = ("f16", "bf16", "f32", "f64")


@dataclass(frozen=True, slots=True)
class Field:
    """One declared field: `param w1: [D Hd] = normal(std=0.02)`."""

    name: str
    kind: str
    shape: tuple[int, ...]
    dtype: str
    init: tuple[str, dict[str, Any]] = dataclasses.field(hash=False)

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]

    @property
    def type_text(self) -> str:
        """The field's type as ShapeScript writes it, `[784 256] f32`."""
        return f"[{' '.join(str(size) for size in self.shape)}] {self.dtype}"


@dataclass(frozen=True, slots=True)
class Held:
    """A field that holds models: `attn: Attention` (`count` None), or `h: [L] Block`, a
    stack of `count` of them, an `nn.ModuleList`."""

    name: str
    model: type[Model]
    count: int | None = None

    def paths(self) -> list[str]:
        """The path prefix of each model it holds: `attn.`, or `h.0.`, `h.1.`, ..."""
        if self.count is None:
            return [f"{self.name}."]
        return [f"{self.name}.{index}." for index in range(self.count)]


ModelT = TypeVar("ModelT", bound="Model", covariant=True)


class Stack(Protocol[ModelT]):
    """How type checkers see a stack of models, `h: [L] Block` (an `nn.ModuleList` when it
    runs): indexed by an int, iterated, and sized, each one a `Block`."""

    def __getitem__(self, index: int, /) -> ModelT: ...

    def __iter__(self) -> Iterator[ModelT]: ...

    def __len__(self) -> int: ...


def _field_problem(field: Field) -> str | None:
    """Why a field can't be declared, or None."""
    if not field.name.isidentifier() or field.name.startswith("_"):
        return "a field's name is an identifier that doesn't start with _"
    if (
        keyword.iskeyword(field.name)
        or field.name in ("init", "training")
        or hasattr(torch.nn.Module, field.name)
    ):
        return "a field can't be named init, a Python keyword or an attribute of nn.Module"
    if field.kind not in KINDS:
        return f"a field is a param or a buffer, not {field.kind!r}"
    if field.dtype not in DTYPES:
        return f"{field.dtype!r} isn't a dtype"
    if field.kind == "param" and field.dtype not in FLOAT_DTYPES:
        return "a param holds floats"
    name, arguments = field.init
    if name not in INITIALIZERS:
        return f"the initializers are {', '.join(INITIALIZERS)}, not {name!r}"
    if name in ("normal", "uniform") and field.dtype not in FLOAT_DTYPES:
        return f"{name} only fills float fields"
    if name == "full" and "value" not in arguments:
        return "full needs a value"
    return None


def draw(field: Field, seed: int, device: torch.device, path: str | None = None) -> torch.Tensor:
    """The field's first value for a model seeded with `seed`, on `device`. A field of a
    model another holds is drawn from its full path (`h.0.attn.w`); a top-level one from
    its name."""
    name, arguments = field.init
    dtype = field.torch_dtype
    if name == "zeros":
        return torch.zeros(field.shape, dtype=dtype, device=device)
    if name == "ones":
        return torch.ones(field.shape, dtype=dtype, device=device)
    if name == "full":
        return torch.full(field.shape, arguments["value"], dtype=dtype, device=device)
    generator = torch.Generator(device="cpu")
    generator.manual_seed(seed_for(f"{seed}/{path or field.name}"))
    drawn = torch.empty(field.shape, dtype=torch.float64 if field.dtype == "f64" else torch.float32)
    if name == "normal":
        drawn.normal_(arguments.get("mean", 0.0), arguments.get("std", 1.0), generator=generator)
    else:
        drawn.uniform_(arguments.get("lo", 0.0), arguments.get("hi", 1.0), generator=generator)
    return drawn.to(dtype=dtype).to(device=device)


class Model(torch.nn.Module):
    """The base of compiled models; make one with `Name.init(seed=...)`."""

    _ss_fields: ClassVar[tuple[Field, ...]] = ()
    #: The fields that hold models, after the tensors (`attn: Attention`, `h: [L] Block`).
    _ss_held: ClassVar[tuple[Held, ...]] = ()
    _ss_by_name: ClassVar[dict[str, Field]] = {}
    #: Every param, the held models' too, by its full path (`h.0.attn.w`), in the order of
    #: `named_parameters()`; a flat model's are its param names.
    _ss_params: ClassVar[tuple[str, ...]] = ()
    #: The model's own params' names, without the held models'.
    _ss_own_params: ClassVar[tuple[str, ...]] = ()
    #: Every field, the held models' too, named by its full path, in `state_dict()` order.
    _ss_all_fields: ClassVar[tuple[Field, ...]] = ()
    _ss_all_by_name: ClassVar[dict[str, Field]] = {}
    #: Each field as checks compare it: name, whether it's a param, shape, dtype.
    _ss_types: ClassVar[tuple[tuple[str, bool, torch.Size, torch.dtype], ...]] = ()
    #: The same for the fields of the models it holds, by full path (`h.0.attn.w`).
    _ss_held_types: ClassVar[tuple[tuple[str, bool, torch.Size, torch.dtype], ...]] = ()
    #: On a worker with `shard params` or `split H`, its params are the worker's pieces of
    #: them (`_ss_part` cuts a whole value to its piece).
    _ss_sharded: ClassVar[bool] = False

    def _ss_part(self, name: str, value: torch.Tensor) -> torch.Tensor:
        return value

    def _ss_assigned(self, field: Field) -> Field:
        """The field as a value assigned to it is checked on this worker (`split H`: a
        split param's value is this worker's heads)."""
        return field

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        by_name: dict[str, Field] = {}
        for field in cls._ss_fields:
            problem = _field_problem(field)
            if problem is None and field.name in by_name:
                problem = "two fields have this name"
            if problem is not None:
                raise TypeError(f"model {cls.__name__}, field {field.name!r}: {problem}")
            by_name[field.name] = field
        for held in cls._ss_held:
            if held.name in by_name or not held.name.isidentifier() or held.name.startswith("_"):
                raise TypeError(f"model {cls.__name__}, field {held.name!r}: invalid name")
        cls._ss_by_name = by_name
        own = tuple(field for field in cls._ss_fields if field.kind == "param")
        buffers = tuple(field for field in cls._ss_fields if field.kind != "param")
        every = [*own, *buffers]
        for held in cls._ss_held:
            for prefix in held.paths():
                every += [
                    dataclasses.replace(field, name=prefix + field.name)
                    for field in held.model._ss_all_fields
                ]
        cls._ss_all_fields = tuple(every)
        cls._ss_all_by_name = {field.name: field for field in every}
        cls._ss_own_params = tuple(field.name for field in own)
        cls._ss_params = tuple(field.name for field in own) + tuple(
            prefix + name
            for held in cls._ss_held
            for prefix in held.paths()
            for name in held.model._ss_params
        )
        cls._ss_types = tuple(
            (field.name, field.kind == "param", torch.Size(field.shape), field.torch_dtype)
            for field in cls._ss_fields
        )
        own_count = len(own) + len(buffers)
        cls._ss_held_types = tuple(
            (field.name, field.kind == "param", torch.Size(field.shape), field.torch_dtype)
            for field in every[own_count:]
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        raise TypeError(f"make a {name} with {name}.init(seed=...), not {name}()")

    @classmethod
    def init(cls, *, seed: int) -> Model:
        """A model whose fields are drawn from `seed`, on the declared device."""
        if cls is Model:
            raise TypeError("Model is the base of compiled models; call init on one of them")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"{cls.__name__}.init: seed is an int, not {type(seed).__name__}")
        device = devices.device()
        top = not cls._ss_held
        return build(cls, lambda path, field: draw(field, seed, device, None if top else path))

    def extra_repr(self) -> str:
        return ", ".join(
            f"{field.kind} {field.name}: {field.type_text}" for field in self._ss_fields
        )

    @classmethod
    def _ss_holds(cls, name: str) -> bool:
        """Whether `name` is a field that holds models."""
        return any(held.name == name for held in cls._ss_held)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._ss_by_name or name == "training" or self._ss_holds(name):
            super().__setattr__(name, value)
            return
        storable = not isinstance(value, torch.Tensor | torch.nn.Module)
        if name.startswith("_") and storable:
            super().__setattr__(name, value)
            return
        fields = ", ".join([*self._ss_by_name, *(h.name for h in self._ss_held)]) or "none"
        raise AttributeError(
            f"{type(self).__name__} has only its declared fields ({fields}); "
            f"it can't store {name!r}"
        )


def build(cls: type[Model], value: Callable[[str, Field], torch.Tensor], prefix: str = "") -> Model:
    """A `cls` whose fields (and those of the models it holds) are `value(path, field)`:
    params and buffers registered in declaration order, then the held models as submodules
    (`nn.ModuleList` for a stack), so `state_dict()` names are PyTorch's (`h.0.attn.w`)."""
    model = cls.__new__(cls)
    torch.nn.Module.__init__(model)
    for field in cls._ss_fields:
        tensor = value(prefix + field.name, field)
        if field.kind == "param":
            model.register_parameter(field.name, torch.nn.Parameter(tensor))
        else:
            model.register_buffer(field.name, tensor)
    for held in cls._ss_held:
        made = [build(held.model, value, prefix + path) for path in held.paths()]
        model.add_module(held.name, made[0] if held.count is None else torch.nn.ModuleList(made))
    return model


def tensors_of(model: Model) -> dict[str, torch.Tensor]:
    """Every field's tensor, the held models' too, by full path, in `_ss_all_fields` order."""
    if not model._ss_held:
        return fields_of(model)
    found = dict(model.named_parameters())
    found.update(model.named_buffers())
    return {field.name: found[field.name] for field in type(model)._ss_all_fields}


def fields_of(model: Model) -> dict[str, torch.Tensor]:
    """The model's declared fields in declaration order, by name."""
    tensors = {**model._parameters, **model._buffers}
    return {field.name: tensors[field.name] for field in model._ss_fields}


def params_of(model: Model) -> tuple[torch.nn.Parameter, ...]:
    """The model's params in declaration order, then the held models' (the order of
    `named_parameters()` and of `_ss_params`)."""
    if not model._ss_held:
        return tuple(map(model._parameters.__getitem__, model._ss_params))
    found: list[torch.nn.Parameter] = []
    # Depth first on a stack of its own, children pushed in reverse so they come off in
    # order; the declared structure is walked directly, a few times faster than
    # `parameters()`, which a training step calls for twice.
    stack: list[torch.nn.Module] = [model]
    while stack:
        current = stack.pop()
        parameters = current._parameters
        found.extend(map(parameters.__getitem__, current._ss_own_params))
        modules = current._modules
        for held in reversed(current._ss_held):
            inner = modules[held.name]
            if held.count is None:
                stack.append(inner)
            else:
                stack.extend(reversed(inner._modules.values()))
    return tuple(found)


def same_model_type(first: type, second: type) -> bool:
    """One model type, or two of the same name with the same fields (a reloaded module)."""
    if first is second:
        return True
    return (
        isinstance(first, type)
        and isinstance(second, type)
        and issubclass(first, Model)
        and issubclass(second, Model)
        and first.__name__ == second.__name__
        and _signature(first) == _signature(second)
    )


def _signature(cls: type[Model]) -> tuple[tuple[str, str, tuple[int, ...], str], ...]:
    return tuple((f.name, f.kind, f.shape, f.dtype) for f in cls._ss_all_fields)


def _shape_text(tensor: torch.Tensor) -> str:
    sizes = " ".join(str(size) for size in tensor.shape)
    return f"[{sizes}] {DTYPE_NAMES.get(tensor.dtype, str(tensor.dtype))}"


def field_problem(field: Field, value: torch.Tensor) -> str | None:
    """Why `value` can't be the field's tensor (shape or dtype), or None."""
    if tuple(value.shape) != field.shape or value.dtype != field.torch_dtype:
        return f"its field {field.name} is {_shape_text(value)}, not {field.type_text}"
    return None


def set_field(model: Model, name: str, value: Any) -> None:
    """`m.w1 = e`: copy `value` into the field's tensor in place, outside autograd."""
    field = type(model)._ss_by_name.get(name)
    if field is None:
        raise AttributeError(f"{type(model).__name__} has no field {name!r}")
    target = fields_of(model)[name]
    if isinstance(value, torch.Tensor):
        expected = model._ss_assigned(field)
        problem = field_problem(expected, value)
        if problem is not None:
            raise ShapeError(
                f"can't assign {_shape_text(value)} to {type(model).__name__}.{name}, "
                f"which is {expected.type_text}"
            )
        if model._ss_sharded:
            value = model._ss_part(name, value)  # this worker's piece of the whole value
        with torch.no_grad():
            target.copy_(value)
        return
    if isinstance(value, bool | int | float) and field.shape == ():
        with torch.no_grad():
            target.fill_(value)
        return
    raise ShapeError(
        f"can't assign a {type(value).__name__} to {type(model).__name__}.{name}, "
        f"which is {field.type_text}"
    )


def check_model(value: Any, cls: type[Model], where: dict[str, Any], path: str = "") -> None:
    """ShapeError unless `value` is a `cls` whose fields, and those of the models it holds,
    have their declared shapes and dtypes."""
    if not cls._ss_held:
        if not (isinstance(value, cls) and (value._ss_sharded or _fits(value, cls))):
            _check_one(value, cls, where, path)
        return
    # The models it holds, on a stack of its own. Each entry keeps the index of the entry
    # that holds it and its name there, so a path is made only for a problem.
    seen: list[tuple[int, str]] = [(-1, "")]
    stack: list[tuple[Any, type[Model], int]] = [(value, cls, 0)]
    while stack:
        current, current_cls, at = stack.pop()
        fine = isinstance(current, current_cls) and (
            current._ss_sharded or _fits(current, current_cls)
        )
        if not fine:  # _check_one raises, saying what is wrong where
            _check_one(current, current_cls, where, path, _steps(seen, at))
        modules = current._modules
        for held in current_cls._ss_held:
            inner = modules.get(held.name)
            seen.append((at, held.name))
            here = len(seen) - 1
            if held.count is None:
                stack.append((inner, held.model, here))
                continue
            if not isinstance(inner, torch.nn.ModuleList) or len(inner) != held.count:
                shown = _joined(path, _steps(seen, here))
                raise ShapeError(
                    f"a {current_cls.__name__} whose {shown} isn't {held.count} "
                    f"{held.model.__name__} models",
                    **where,
                )
            for index, one in enumerate(inner._modules.values()):
                seen.append((here, str(index)))
                stack.append((one, held.model, len(seen) - 1))


def _steps(seen: list[tuple[int, str]], at: int) -> tuple[str, ...]:
    """The names from the model checked down to entry `at` of `check_model`'s walk."""
    names: list[str] = []
    while at > 0:
        at, name = seen[at]
        names.append(name)
    return tuple(reversed(names))


def _fits(value: Model, cls: type[Model]) -> bool:
    """Whether `value`'s own fields have their declared shapes and dtypes."""
    parameters, buffers = value._parameters, value._buffers
    for name, is_param, shape, dtype in cls._ss_types:
        tensor = parameters.get(name) if is_param else buffers.get(name)
        if tensor is None or tensor.shape != shape or tensor.dtype is not dtype:
            return False
    return True


def _joined(path: str, steps: tuple[str, ...]) -> str:
    return path + ".".join(steps)


def _check_one(
    value: Any, cls: type[Model], where: dict[str, Any], path: str, steps: tuple[str, ...] = ()
) -> None:
    """ShapeError unless `value` is a `cls` whose own fields have their declared shapes and
    dtypes; `path` and `steps` say where it is in the model checked."""
    if not isinstance(value, cls):
        at = _at(_joined(path, steps))
        got = type(value).__name__
        if isinstance(value, torch.nn.Module) and not isinstance(value, Model):
            origin = _defined_in(type(value))
            got = (
                f"a torch.nn.Module `{got}` from {origin}, not a ShapeScript model `{cls.__name__}`"
            )
        raise ShapeError(f"expected a {cls.__name__} model{at}, got {got}", **where)
    if value._ss_sharded or _fits(value, cls):
        return  # a sharded one was checked whole when it was sent to the worker
    tensors = fields_of(value)
    for field in cls._ss_fields:
        problem = field_problem(field, tensors[field.name])
        if problem is not None:
            raise ShapeError(
                f"a {cls.__name__}{_at(_joined(path, steps))} whose {problem.removeprefix('its ')}",
                **where,
            )


def _defined_in(cls: type) -> str:
    """The file a class was defined in, by name (`ref_model.py`), or its module's name."""
    module = getattr(cls, "__module__", "") or ""
    file = getattr(sys.modules.get(module), "__file__", None)
    return os.path.basename(file) if file else (module or "Python")


def _at(path: str) -> str:
    return f" at {path.rstrip('.')}" if path else ""


__all__ = [
    "Field",
    "Held",
    "Stack",
    "build",
    "tensors_of",
    "Model",
    "check_model",
    "draw",
    "fields_of",
    "params_of",
    "same_model_type",
    "set_field",
]
