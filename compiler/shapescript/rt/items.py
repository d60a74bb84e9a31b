"""A dataset's items checked against a data record's fields and stacked into a batch.

This runs in the calling process and in loader worker processes alike, so that both give
the same batches. The common case is cheap: a field's values are stacked with one torch
call and checked once, as a whole; only when that fails are the items looked at one by one,
to name the first that doesn't fit. Domains are checked by the caller, on the whole batch
(`domains.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any, Protocol

import torch

from shapescript.records import record
from shapescript.rt.checks import DTYPE_NAMES, DTYPES
from shapescript.rt.errors import ShapeError

_NUMBERS = (bool, int, float)


@record(frozen=True)
class RecordField:
    """One field of a compiled data record: `img: [D]` at `mnist.ss:8:5`.

    `domain_bad(t)` is a bool tensor, true where `t`'s values break the field's domain; it
    is called with the field's values for a whole batch, the batch axis first.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    where: str
    type_text: str
    domain_bad: Callable[[torch.Tensor], torch.Tensor] | None = None
    domain_text: str | None = None


def location(where: str) -> dict[str, Any]:
    """`path:line:col` as the path, line and column fields of a CheckFailure."""
    path, _, rest = where.rpartition(":")
    path2, _, line = path.rpartition(":")
    if path2 and line.isdigit() and rest.isdigit():
        return {"path": path2, "line": int(line), "column": int(rest)}
    if path and rest.isdigit():
        return {"path": path, "line": int(rest)}
    return {"path": where}


def shape_text(field: RecordField) -> str:
    """The shape the field's type writes, `[D]` of `[D] f32`, with its sizes: `[D] = (784,)`."""
    text = field.type_text
    if text.startswith("["):
        end = text.find("]")
        text = text[: end + 1] if end >= 0 else text
    return f"{text} = {field.shape}"


def dtype_name(dtype: torch.dtype) -> str:
    return DTYPE_NAMES.get(dtype, str(dtype).removeprefix("torch."))


def kind_fits(field_dtype: torch.dtype, dtype: torch.dtype) -> bool:
    """Whether values of `dtype` may fill a field of `field_dtype`: a float field takes any
    numbers, an integer field integers or booleans, and a bool field booleans."""
    if dtype == torch.bool:
        return True
    if dtype.is_complex or field_dtype == torch.bool:
        return False
    return field_dtype.is_floating_point or not dtype.is_floating_point


def kind_text(field_dtype: torch.dtype) -> str:
    if field_dtype == torch.bool:
        return "booleans"
    if field_dtype.is_floating_point:
        return "numbers"
    return "integers or booleans"


def item_error(field: RecordField, index: int, message: str) -> ShapeError:
    return ShapeError(f"field `{field.name}` of item {index} {message}", **location(field.where))


def _described(value: Any) -> str:
    if isinstance(value, _NUMBERS):
        return f"{type(value).__name__} {value!r}"
    text = f"a {type(value).__name__}"
    return text if len(text) < 80 else text[:77] + "..."


def _item_tensor(field: RecordField, value: Any, index: int) -> torch.Tensor:
    """One item's value for the field as a tensor, after checking its shape and kind."""
    dtype = DTYPES[field.dtype]
    if isinstance(value, torch.Tensor):
        tensor = value
    else:
        try:
            tensor = torch.as_tensor(value)
            if _python_floats(value, tensor, dtype):
                # Python floats are doubles: read them as f64, so converting rounds once.
                tensor = torch.as_tensor(value, dtype=torch.float64)
        except Exception as error:
            raise item_error(
                field,
                index,
                f"should be {shape_text(field)}, got {_described(value)}, which isn't a "
                f"tensor, a number or anything torch.as_tensor takes ({error})",
            ) from None
    if tensor.shape != field.shape:
        raise item_error(
            field, index, f"should be {shape_text(field)}, got shape {tuple(tensor.shape)}"
        )
    if not kind_fits(dtype, tensor.dtype):
        got = (
            _described(value)
            if isinstance(value, _NUMBERS)
            else f"{dtype_name(tensor.dtype)} values"
        )
        raise item_error(
            field,
            index,
            f"should hold {kind_text(dtype)}, as its type {field.type_text} "
            f"({field.dtype}) does, got {got}",
        )
    return tensor


def _python_floats(value: Any, tensor: torch.Tensor, dtype: torch.dtype) -> bool:
    """Whether `tensor` was read from Python floats (torch reads them as f32), for a float
    field: a number or (nested) lists of them, not an array with a dtype of its own."""
    return (
        dtype.is_floating_point
        and tensor.dtype.is_floating_point
        and tensor.dtype != torch.float64
        and (isinstance(value, float | list | tuple))
    )


def stack_field(field: RecordField, values: Sequence[Any], indices: Sequence[int]) -> torch.Tensor:
    """The field's values for a batch, stacked and converted to the field's dtype."""
    dtype = DTYPES[field.dtype]
    first = values[0]
    stacked: torch.Tensor | None = None
    if isinstance(first, torch.Tensor):
        try:
            stacked = torch.stack(values)  # type: ignore[arg-type]
        except (TypeError, RuntimeError):
            stacked = None
        if stacked is not None and stacked.shape[1:] != field.shape:
            stacked = None
    elif type(first) in _NUMBERS and not field.shape:
        try:
            # A float field takes any numbers, read as the field's dtype directly.
            stacked = torch.tensor(values, dtype=dtype if dtype.is_floating_point else None)
        except (TypeError, ValueError, RuntimeError, OverflowError):
            stacked = None
        if stacked is not None and stacked.dim() != 1:
            stacked = None
    if stacked is None or not kind_fits(dtype, stacked.dtype):
        stacked = torch.stack(
            [
                _item_tensor(field, value, index)
                for value, index in zip(values, indices, strict=True)
            ]
        )
    if stacked.requires_grad:
        stacked = stacked.detach()
    return stacked if stacked.dtype == dtype else stacked.to(dtype)


def _fields_text(name: str, fields: Sequence[RecordField]) -> str:
    count = len(fields)
    names = ", ".join(f"`{field.name}`" for field in fields)
    return f"the record {name} has {count} field{'s' if count != 1 else ''} ({names})"


def _one_value(field: RecordField, item: Any, index: int) -> Any:
    """A one-field record's value in an item: the item itself, or its only element."""
    if isinstance(item, Mapping):
        return _by_name(field, item, index)
    if hasattr(item, "_ss_fields"):
        return getattr(item, field.name)
    if isinstance(item, tuple | list) and len(item) == 1 and not isinstance(item[0], _NUMBERS):
        return item[0]
    return item


def _by_name(field: RecordField, item: Any, index: int) -> Any:
    try:
        return item[field.name]
    except KeyError:
        keys = ", ".join(repr(key) for key in list(item)[:8])
        raise item_error(
            field, index, f"is missing: the item has no key {field.name!r} (its keys: {keys})"
        ) from None


def item_values(
    fields: Sequence[RecordField], record_name: str, item: Any, index: int
) -> list[Any]:
    """An item's value for each field, or the error that says why it has none."""
    if len(fields) == 1:
        return [_one_value(fields[0], item, index)]
    if isinstance(item, Mapping):
        return [_by_name(field, item, index) for field in fields]
    if isinstance(item, tuple | list):
        if len(item) != len(fields):
            raise ShapeError(
                f"item {index} is a {type(item).__name__} of {len(item)} values, but "
                f"{_fields_text(record_name, fields)}",
                **location(fields[0].where),
            )
        return list(item)
    if hasattr(item, "_ss_fields"):
        return [getattr(item, field.name) for field in fields]
    raise ShapeError(
        f"item {index} is a {type(item).__name__}, but {_fields_text(record_name, fields)}: "
        "an item is a dict of them, or a tuple or list in their order",
        **location(fields[0].where),
    )


def _columns(
    fields: Sequence[RecordField], record_name: str, items: list[Any], indices: Sequence[int]
) -> list[Sequence[Any]]:
    """Each field's values across the items: whole columns when every item has the same
    structure, else item by item."""
    first = items[0]
    same = len(set(map(type, items))) == 1
    if same and len(fields) == 1 and not isinstance(first, Mapping | tuple | list):
        if not hasattr(first, "_ss_fields"):
            return [items]
    elif same and isinstance(first, Mapping):
        try:
            return [list(map(itemgetter(field.name), items)) for field in fields]
        except (KeyError, TypeError):
            pass
    elif same and isinstance(first, tuple | list) and len(fields) > 1:
        try:
            columns = list(zip(*items, strict=True))
        except ValueError:
            columns = []
        if len(columns) == len(fields):
            return columns  # type: ignore[return-value]
    rows = [
        item_values(fields, record_name, item, index)
        for item, index in zip(items, indices, strict=True)
    ]
    return list(zip(*rows, strict=True))  # type: ignore[return-value]


def stack_items(
    fields: Sequence[RecordField], record_name: str, items: list[Any], indices: Sequence[int]
) -> dict[str, torch.Tensor]:
    """A batch's fields from its items, in the order of `indices` (their dataset indices)."""
    columns = _columns(fields, record_name, items, indices)
    return {
        field.name: stack_field(field, column, indices)
        for field, column in zip(fields, columns, strict=True)
    }


def items_text(indices: Sequence[int]) -> str:
    """`items 3, 17 and 40`, or the first few and how many more."""
    shown = [str(index) for index in indices[:6]]
    if len(indices) > 6:
        return f"items {', '.join(shown)} and {len(indices) - 6} more"
    if len(shown) == 1:
        return f"item {shown[0]}"
    return f"items {', '.join(shown[:-1])} and {shown[-1]}"


def check_collated(
    fields: Sequence[RecordField], record_name: str, result: Any, indices: Sequence[int]
) -> dict[str, torch.Tensor]:
    """A whole batch `__getitems__` gave as a dict of stacked fields (or, for a one-field
    record, a tensor), checked against the record."""
    count = len(indices)
    what = f"the batch `__getitems__` gave for {items_text(indices)}"
    out = {}
    for field in fields:
        if isinstance(result, Mapping):
            if field.name not in result:
                raise ShapeError(f"{what} has no field `{field.name}`", **location(field.where))
            value = result[field.name]
        else:
            value = result
        dtype = DTYPES[field.dtype]
        try:
            tensor = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        except Exception as error:
            raise ShapeError(
                f"field `{field.name}` of {what} isn't a tensor ({error})", **location(field.where)
            ) from None
        expected = (count, *field.shape)
        if tensor.shape != expected:
            raise ShapeError(
                f"field `{field.name}` of {what} should be [b] {shape_text(field)} with "
                f"b = {count}, so {expected}, got shape {tuple(tensor.shape)}",
                **location(field.where),
            )
        if not kind_fits(dtype, tensor.dtype):
            raise ShapeError(
                f"field `{field.name}` of {what} should hold {kind_text(dtype)}, as its type "
                f"{field.type_text} ({field.dtype}) does, got {dtype_name(tensor.dtype)} values",
                **location(field.where),
            )
        out[field.name] = tensor if tensor.dtype == dtype else tensor.to(dtype)
    return out


class Progress(Protocol):
    """Where a worker process writes the index of the item it is loading (a shared int)."""

    value: int


class BatchLoader:
    """Loads batches of one dataset's items, checked against a record's fields (but not
    their domains) and converted to their dtypes."""

    def __init__(self, dataset: Any, fields: Sequence[RecordField], record_name: str) -> None:
        self.dataset = dataset
        self.fields = fields
        self.record_name = record_name
        self.getitems = getattr(dataset, "__getitems__", None)

    def load(self, indices: list[int], progress: Progress | None = None) -> dict[str, torch.Tensor]:
        """The batch of the dataset's items at `indices`."""
        if self.getitems is not None:
            return self._load_whole(indices, progress)
        return stack_items(self.fields, self.record_name, self.fetch(indices, progress), indices)

    def fetch(self, indices: list[int], progress: Progress | None = None) -> list[Any]:
        """The dataset's items at `indices`; an error names the item it was loading."""
        getitem = self.dataset.__getitem__
        if progress is None:
            pending = iter(indices)
            try:
                return list(map(getitem, pending))
            except Exception as error:
                # `map` took the failing index from `pending` and no more.
                index = indices[len(indices) - len(list(pending)) - 1]
                error.add_note(f"(raised while loading item {index} of the dataset)")
                raise
        items = []
        append = items.append
        index = None
        try:
            for index in indices:
                progress.value = index
                append(getitem(index))
        except Exception as error:
            error.add_note(f"(raised while loading item {index} of the dataset)")
            raise
        return items

    def _load_whole(self, indices: list[int], progress: Progress | None) -> dict[str, torch.Tensor]:
        """A batch from the dataset's `__getitems__`: a list of items, or (for datasets that
        collate their own) a dict of the batch's fields."""
        fields = self.fields
        if progress is not None and indices:
            progress.value = indices[0]
        try:
            result = self.getitems(indices)  # type: ignore[misc]
        except Exception as error:
            error.add_note(f"(raised by __getitems__ while loading {items_text(indices)})")
            raise
        if isinstance(result, Mapping) or (isinstance(result, torch.Tensor) and len(fields) == 1):
            return check_collated(fields, self.record_name, result, indices)
        if not isinstance(result, Sequence) or len(result) != len(indices):
            got = f"{len(result)} items" if isinstance(result, Sequence) else type(result).__name__
            raise ShapeError(
                f"the dataset's __getitems__ was asked for {len(indices)} items "
                f"({items_text(indices)}) and gave {got}: it gives a list of items or a dict "
                "of the batch's fields",
                **location(fields[0].where),
            )
        return stack_items(fields, self.record_name, list(result), indices)
