"""`record`: slotted data classes whose methods are compiled when first used.

The standard `dataclass` compiles each generated method of each class at import time
and imports `inspect`; with the checker's 130-odd node and type classes that was most of
a cold `shapescript check`. `record` does what the package asked of
`dataclass(slots=True)` and `dataclass(frozen=True, slots=True)`: an `__init__` with
defaults and factories, `__repr__`, `__eq__`, `__hash__` when frozen, `__match_args__`.
Each method of a class is compiled, in an `exec` of its own, the first time it is called.
`field` and `replace` stand in for their `dataclasses` namesakes.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Raised on assignment to a field of a frozen record."""


class Field:
    """One field of a record: its default (or factory), and whether repr and == see it."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | Any = MISSING,
        repr: bool = True,
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("a field takes a default or a default_factory, not both")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    return Field(default, default_factory, repr, compare)


def _own_fields(cls: type) -> list[Field]:
    fields = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, MISSING)
        made = value if isinstance(value, Field) else Field(default=value)
        made.name = name
        fields.append(made)
    return fields


def _all_fields(cls: type, own: list[Field]) -> list[Field]:
    by_name: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in base.__dict__.get("__record_fields__", ()):
            by_name[inherited.name] = inherited
    for field_ in own:
        by_name[field_.name] = field_
    return list(by_name.values())


GENERATED = ("__init__", "__repr__", "__eq__", "__hash__")


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None] | None:
    """The `__set__` of the slot that holds field `name`, or None if no slot does."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return found.__set__ if type(found) is _MEMBER_DESCRIPTOR else None
    return None


class _Probe:
    __slots__ = ("slot",)


_MEMBER_DESCRIPTOR = type(_Probe.__dict__["slot"])


def init_parameters(
    fields: tuple[Field, ...], names: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """The parameters of a record's `__init__`, as source, and the expression each field
    is set to; the defaults and factories they name are put in `names`, with MISSING."""
    names["MISSING"] = MISSING
    params, values = [], []
    for item in fields:
        if item.default is not MISSING:
            names[f"_default_{item.name}"] = item.default
            params.append(f"{item.name}=_default_{item.name}")
            values.append(item.name)
        elif item.default_factory is not MISSING:
            names[f"_factory_{item.name}"] = item.default_factory
            params.append(f"{item.name}=MISSING")
            values.append(f"_factory_{item.name}() if {item.name} is MISSING else {item.name}")
        else:
            params.append(item.name)
            values.append(item.name)
    return params, values


def _methods_source(
    fields: tuple[Field, ...], frozen: bool, cls: type | None = None
) -> tuple[dict[str, str], dict[str, Any]]:
    """The source of each of the record's methods, and the names they need in their
    namespace.

    A frozen record's `__init__` sets each field through its slot's own setter, which
    skips the frozen `__setattr__` as `object.__setattr__` does, at half its cost."""
    names: dict[str, Any] = {}
    params, values = init_parameters(fields, names)
    body = []
    for item, value in zip(fields, values, strict=True):
        setter = _slot_setter(cls, item.name) if frozen and cls is not None else None
        if setter is not None:
            names[f"_set_{item.name}"] = setter
            body.append(f"  _set_{item.name}(self, {value})")
        elif frozen:
            body.append(f"  _set(self, {item.name!r}, {value})")
        else:
            body.append(f"  self.{item.name} = {value}")
    sources: dict[str, str] = {}
    lines = [f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):"]
    sources["__init__"] = "\n".join(lines + (body or ["  pass"]))
    shown = ", ".join(f"{item.name}={{self.{item.name}!r}}" for item in fields if item.repr)
    sources["__repr__"] = f"def __repr__(self):\n  return f'{{type(self).__qualname__}}({shown})'"
    compared = [item.name for item in fields if item.compare]
    mine = "".join(f"self.{name}," for name in compared)
    theirs = "".join(f"other.{name}," for name in compared)
    sources["__eq__"] = "\n".join(
        [
            "def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"    return ({mine}) == ({theirs})",
            "  return NotImplemented",
        ]
    )
    if frozen:
        names["_set"] = object.__setattr__
        sources["__hash__"] = f"def __hash__(self):\n  return hash(({mine}))"
    return {method: source + "\n" for method, source in sources.items()}, names


def _install(cls: type, method: str) -> None:
    """Compile one of a record's methods and put it in place of the stub that called this.

    Each method is compiled on its own when first called: most records of a check are
    only ever made, so compiling their `__repr__` and `__eq__` with it would be wasted
    (parsing the generated source is most of the cost)."""
    sources, names = _methods_source(cls.__record_fields__, cls.__record_frozen__, cls)
    if method not in sources or cls.__dict__.get(method) not in _STUB_SET:
        return
    exec(sources[method], names)
    function = names[method]
    function.__qualname__ = f"{cls.__qualname__}.{method}"
    setattr(cls, method, function)


def _stub(method: str) -> Callable[..., Any]:
    """A method that compiles the record's real methods on first use, then calls its own."""

    def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
        owner = next(klass for klass in type(self).__mro__ if method in klass.__dict__)
        _install(owner, method)
        return getattr(owner, method)(self, *args, **kwargs)

    stub.__name__ = method
    return stub


_STUBS = {method: _stub(method) for method in GENERATED}
_STUB_SET = set(_STUBS.values())


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _check_order(cls: type, fields: list[Field]) -> None:
    """As `dataclass` does at once: a field without a default can't follow one with one."""
    defaulted = None
    for item in fields:
        has_default = item.default is not MISSING or item.default_factory is not MISSING
        if has_default:
            defaulted = item.name
        elif defaulted is not None:
            raise TypeError(
                f"{cls.__name__}: field {item.name!r} without a default follows {defaulted!r}"
            )


def _frozen_setstate(self: Any, state: Any) -> None:
    """Unpickling: a frozen record's fields are set past its `__setattr__`."""
    slots = state[1] if isinstance(state, tuple) else state
    for name, value in (slots or {}).items():
        object.__setattr__(self, name, value)


def _build(cls: type, frozen: bool) -> type:
    """The slotted class; its generated methods are compiled when first called, since a
    check uses only some of the package's records and compiling is most of the cost."""
    own_fields = _own_fields(cls)
    fields = _all_fields(cls, own_fields)
    own = {item.name for item in own_fields}
    _check_order(cls, fields)
    inherited_slots = {
        name for base in cls.__mro__[1:] for name in base.__dict__.get("__slots__", ())
    }
    namespace = {
        key: value
        for key, value in cls.__dict__.items()
        if key not in own and key not in ("__dict__", "__weakref__")
    }
    namespace["__slots__"] = tuple(name for name in own if name not in inherited_slots)
    for method in ("__init__", "__repr__", "__eq__") + (("__hash__",) if frozen else ()):
        if method not in cls.__dict__:
            namespace[method] = _STUBS[method]
    if frozen:
        namespace.setdefault("__setattr__", _frozen_setattr)
        namespace.setdefault("__delattr__", _frozen_delattr)
        namespace.setdefault("__setstate__", _frozen_setstate)
    elif "__hash__" not in cls.__dict__:
        namespace["__hash__"] = None
    namespace["__match_args__"] = tuple(item.name for item in fields)
    namespace["__record_fields__"] = tuple(fields)
    namespace["__record_frozen__"] = frozen
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type[T] | None = None, /, *, frozen: bool = False) -> Any:
    """Make `cls` a slotted record; `frozen=True` makes it immutable and hashable."""
    if cls is None:
        return lambda wrapped: _build(wrapped, frozen)
    return _build(cls, frozen)


#: Each record class's fields as `replace` reads them: a getter of all their values in
#: order, and each field's position.
_FIELDS: dict[type, tuple[Callable[[Any], tuple], dict[str, int]]] = {}


def _one_or_none(names: list[str]) -> Callable[[Any], tuple]:
    """The getter `attrgetter` would be for one field or none, always giving a tuple."""
    if not names:
        return lambda instance: ()
    name = names[0]
    return lambda instance: (getattr(instance, name),)


def replace(instance: T, /, **changes: Any) -> T:
    """A copy of a record with some fields changed."""
    cls = type(instance)
    known = _FIELDS.get(cls)
    if known is None:
        names = [item.name for item in cls.__record_fields__]
        getter = attrgetter(*names) if len(names) > 1 else _one_or_none(names)
        known = _FIELDS[cls] = (getter, {name: index for index, name in enumerate(names)})
    getter, positions = known
    values = list(getter(instance))
    for name, value in changes.items():
        position = positions.get(name)
        if position is None:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
        values[position] = value
    return cls(*values)
