"""What the checker records about each model declaration, for the compiler and the editor."""

from __future__ import annotations

from collections.abc import Mapping

from shapescript.check.algebra.types import Type
from shapescript.check.declarations.symbols import Symbol
from shapescript.records import field, record
from shapescript.syntax.source import Span

#: A Python number an initializer is given: a float, an int (full of an integer field) or a
#: bool (full of a bool field).
Number = float | int | bool


@record(frozen=True)
class Initializer:
    """A field's initializer: `zeros`, `ones`, `full`, `normal` or `uniform`, with every
    argument (defaults filled in) as a Python number, dims already worked out."""

    name: str
    args: dict[str, Number] = field(default_factory=dict)


@record(frozen=True)
class FieldInfo:
    """One field of a model.

    `type` is the field's type as `m.w1` has it (a param's is a float tensor without a
    domain); `shape` its sizes as ints and `dtype` its resolved dtype. `initializer` is
    None when it was missing or broken (after E0903), and `type` is unknown after E0902.
    `span` is the absolute span of the field's name.
    """

    name: str
    kind: str
    type: Type
    shape: tuple[int, ...] | None
    dtype: str
    initializer: Initializer | None
    span: Span
    symbol: Symbol
    doc: str | None = None
    #: For a field that holds models (kind "model"): the model's name, and for a stack
    #: (`h: [L] Block`) how many it holds; `type` is then a `ModelType` or a `StackType`.
    model: str | None = None
    count: int | None = None

    @property
    def is_param(self) -> bool:
        return self.kind == "param"

    @property
    def is_model(self) -> bool:
        return self.kind == "model"


@record(frozen=True)
class ModelInfo:
    """A model declaration: its fields in declaration order, by name.

    `span` is the absolute span of the model's name. `ok` is False when a field or an
    initializer had an error, so the compiler should not build it.
    """

    name: str
    span: Span
    #: A dict, or for a model an edit above moved, `model_memo.MovedMembers`.
    fields: Mapping[str, FieldInfo]
    doc: str | None = None
    ok: bool = True

    @property
    def params(self) -> list[FieldInfo]:
        """The model's own params, not those of the models it holds."""
        return _fields_where(self.fields, "param")

    @property
    def param_names(self) -> list[str]:
        """The names of the model's own params, in order (no field is moved for them)."""
        fields = getattr(self.fields, "found", self.fields)  # a moved model's, unmoved
        return [name for name, info in fields.items() if info.kind == "param"]

    @property
    def nested(self) -> list[FieldInfo]:
        """The fields that hold models, `attn: Attention` and `h: [L] Block`."""
        return _fields_where(self.fields, "model")


def _fields_where(fields: Mapping[str, FieldInfo], kind: str) -> list[FieldInfo]:
    """The fields of one kind, in order; of a moved model's fields
    (`model_memo.MovedMembers`), only those are moved."""
    where = getattr(fields, "where", None)
    if where is not None:
        return where(lambda info: info.kind == kind)
    return [info for info in fields.values() if info.kind == kind]


#: Most field paths `every_field` lists: stacks of stacks multiply, and a checker listing
#: paths for an option's words stops here rather than run out of memory.
MAX_FIELD_PATHS = 100_000


def every_field(infos: dict[str, ModelInfo], model: str) -> list[tuple[str, FieldInfo]]:
    """Every tensor field of `model` and of the models it holds, by full path (`h.0.attn.w`),
    in the order the compiled model's `state_dict()` has them: own params, own buffers, then
    each held model's. Models on a cycle are listed once along a path; past
    `MAX_FIELD_PATHS` paths, or models visited, the list stops."""
    found: list[tuple[str, FieldInfo]] = []
    pending: list[tuple[str, str, frozenset[str]]] = [("", model, frozenset())]
    visits = 0
    while pending and len(found) < MAX_FIELD_PATHS and visits < MAX_FIELD_PATHS:
        visits += 1
        prefix, name, outer = pending.pop()
        info = infos.get(name)
        if info is None or name in outer:
            continue
        tensors = [f for f in info.fields.values() if f.is_param]
        tensors += [f for f in info.fields.values() if f.kind == "buffer"]
        found += [(prefix + f.name, f) for f in tensors]
        inner = outer | {name}
        held: list[tuple[str, str, frozenset[str]]] = []
        for f in info.nested:
            if f.model is None:
                continue
            if f.count is None:
                held.append((f"{prefix}{f.name}.", f.model, inner))
            else:
                count = min(f.count, MAX_FIELD_PATHS)
                held += [(f"{prefix}{f.name}.{i}.", f.model, inner) for i in range(count)]
        pending += reversed(held)
    return found[:MAX_FIELD_PATHS]
