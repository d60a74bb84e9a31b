"""What the checker records about each data record, for the compiler and the editor."""

from __future__ import annotations

from collections.abc import Mapping

from shapescript.check.algebra.types import Axis, TensorType
from shapescript.check.declarations.symbols import Symbol
from shapescript.records import record
from shapescript.syntax.source import Span


@record(frozen=True)
class DataFieldInfo:
    """One field of a data record, as one example holds it.

    `type` is the declared tensor type; `shape` its sizes as ints (dims worked out) and
    `dtype` its resolved dtype. `type_text` is the type as the source writes it, on one
    line. `span` is the absolute span of the field's name.
    """

    name: str
    type: TensorType
    shape: tuple[int, ...]
    dtype: str
    type_text: str
    span: Span
    symbol: Symbol
    doc: str | None = None

    def in_batch(self, axes: tuple[Axis, ...]) -> TensorType:
        """The field's type in a batch with these batch axes: theirs first, then its own."""
        declared = self.type
        return TensorType(axes + (declared.axes or ()), declared.domain, declared.dtype)


@record(frozen=True)
class DataInfo:
    """A data record: its valid fields in declaration order, by name.

    `span` is the absolute span of the record's name. `ok` is False when a field had an
    error (it is then left out of `fields`), so the compiler should not build it.
    """

    name: str
    span: Span
    #: A dict, or for a record an edit above moved, `model_memo.MovedMembers`.
    fields: Mapping[str, DataFieldInfo]
    doc: str | None = None
    ok: bool = True
