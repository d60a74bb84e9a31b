"""Data records, batches and datasets at run time: what `data`, `shuffle` and `batches` compile to.

A compiled record is `class Digit(Record)` with `_ss_name` and `_ss_fields`, a tuple of
`RecordField`. `batches(dataset, n, Digit, where)` loads a dataset's items in worker
processes (`worker_pool.py`) or in this one, checks them against the record (`items.py`,
`domains.py`), stacks them and copies each batch to the declared device; a TensorDataset is
checked once and gathered on the device instead (`tensor_datasets.py`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import torch

from shapescript.rt import devices, tensor_datasets, worker_pool
from shapescript.rt.checks import DTYPES
from shapescript.rt.domains import check_domains, value_checks_on
from shapescript.rt.errors import DeviceError, ShapeError
from shapescript.rt.items import (
    BatchLoader,
    RecordField,
    dtype_name,
    items_text,
    location,
)
from shapescript.rt.randomness import seed_for
from shapescript.rt.worker_pool import LoaderError, loader_timeout, loader_workers

__all__ = [
    "Batch",
    "Batches",
    "Dataset",
    "LoaderError",
    "Record",
    "RecordField",
    "Shuffled",
    "as_batch",
    "batches",
    "check_dataset",
    "loader_timeout",
    "loader_workers",
    "shuffle",
]

R = TypeVar("R", bound="Record", covariant=True)


class Record:
    """Base of compiled data records; an instance is one example, its fields attributes."""

    _ss_name: ClassVar[str] = "Record"
    _ss_fields: ClassVar[tuple[RecordField, ...]] = ()

    def __init__(self, **values: Any) -> None:
        names = [field.name for field in self._ss_fields]
        missing = [name for name in names if name not in values]
        unknown = [name for name in values if name not in names]
        if missing or unknown:
            problem = f"no field `{unknown[0]}`" if unknown else f"needs field `{missing[0]}`"
            raise TypeError(f"{self._ss_name} {problem}; its fields are {', '.join(names)}")
        self.__dict__.update(values)

    def __repr__(self) -> str:
        parts = ", ".join(
            f"{field.name}={_summary(getattr(self, field.name, None))}" for field in self._ss_fields
        )
        return f"{self._ss_name}({parts})"


class Dataset(Protocol, Generic[R]):
    """What a `Dataset[Digit]` parameter takes: a map-style dataset of Digit examples."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Any: ...


def _summary(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        if value.dim() == 0:
            return f"{value.item():g}" if not value.dtype.is_complex else repr(value.item())
        return f"<{tuple(value.shape)} {dtype_name(value.dtype)}>"
    return repr(value)


class Batch:
    """A batch of examples of a data record: each field an attribute, with the batch axis
    first. `batch.record` is the record's class (unless it has a field of that name) and
    `len(batch)` the number of examples."""

    def __init__(self, record: type[Record], fields: Mapping[str, torch.Tensor]) -> None:
        names = [field.name for field in record._ss_fields]
        missing = [name for name in names if name not in fields]
        if missing:
            raise TypeError(f"a batch of {record._ss_name} needs field `{missing[0]}`")
        self.__dict__.update({name: fields[name] for name in names})
        self._ss_record = record

    @classmethod
    def _made(
        cls, record: type[Record], fields: dict[str, torch.Tensor], values_checked: bool
    ) -> Batch:
        """A batch of fields already checked, in the record's order, stamped as such."""
        batch = cls.__new__(cls)
        batch.__dict__.update(fields)
        batch._ss_record = record
        _stamp(batch, record, 1, values_checked)
        return batch

    def __getattr__(self, name: str) -> Any:
        if name == "record":
            return self.__dict__["_ss_record"]
        record = self.__dict__.get("_ss_record")
        what = record._ss_name if record is not None else "a record"
        raise AttributeError(f"a batch of {what} has no field `{name}`")

    def _fields(self) -> dict[str, torch.Tensor]:
        return {field.name: self.__dict__[field.name] for field in self._ss_record._ss_fields}

    def __len__(self) -> int:
        for field in self._ss_record._ss_fields:
            value = self.__dict__[field.name]
            return int(value.shape[0]) if value.dim() else 1
        return 0

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={_summary(value)}" for name, value in self._fields().items())
        return f"Batch[{self._ss_record._ss_name}]({parts})"


def _stamp(batch: Batch, record: type[Record], axes: int, values_checked: bool) -> None:
    """Remember that `batch` fits `record` with `axes` batch axes on the declared device (and
    its values its domains, if checked), for these very tensors as they are now."""
    batch.__dict__["_ss_checked"] = (
        record,
        axes,
        values_checked,
        devices.device(),
        _versions(batch, record),
    )


def _versions(batch: Batch, record: type[Record]) -> tuple[tuple[int, int], ...]:
    """Which tensors the batch holds and how often each was changed in place."""
    fields = batch.__dict__
    return tuple((id(fields[f.name]), fields[f.name]._version) for f in record._ss_fields)


def _still_checked(batch: Batch, record: type[Record], axes: int, values: bool) -> bool:
    """Whether `batch` was checked as `as_batch` would check it now, and hasn't changed."""
    stamp = batch.__dict__.get("_ss_checked")
    return (
        stamp is not None
        and stamp[0] is record
        and stamp[1] == axes
        and (stamp[2] or not values)
        and stamp[3] == devices.device()
        and stamp[4] == _versions(batch, record)
    )


# ---------------------------------------------------------------- shuffle


class Shuffled:
    """A dataset in a seeded order: item i is `dataset[order[i]]`, the order drawn by a
    generator of its own, so the same seed gives the same order whatever torch's global
    random state."""

    def __init__(self, dataset: Any, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"shuffle: seed is an int, not {type(seed).__name__}")
        if not _is_dataset(dataset):
            raise TypeError(
                f"shuffle: expected a dataset (with __len__ and __getitem__), got "
                f"{type(dataset).__name__}"
            )
        generator = torch.Generator()
        generator.manual_seed(seed_for(f"shuffle/{seed}"))
        self.dataset = dataset
        self.seed = seed
        self.order = torch.randperm(len(dataset), generator=generator)

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[int(self.order[index])]

    def __repr__(self) -> str:
        return f"shuffle({self.dataset!r}, seed={self.seed})"


def shuffle(dataset: Any, seed: int) -> Shuffled:
    """`dataset |> shuffle(seed=s)`."""
    return Shuffled(dataset, seed)


def _unwrap(dataset: Any) -> tuple[Any, torch.Tensor | None]:
    """The dataset under any shuffles, and the order in which to read its items."""
    order: torch.Tensor | None = None
    while isinstance(dataset, Shuffled):
        order = dataset.order if order is None else dataset.order[order]
        dataset = dataset.dataset
    return dataset, order


# ---------------------------------------------------------------- batches


class Batches:
    """`dataset |> batches(n)`: a dataset's examples in batches of n, the last smaller."""

    def __init__(self, dataset: Any, size: int, record: type[Record], where: str) -> None:
        if not isinstance(size, int) or isinstance(size, bool):
            raise ShapeError(f"batches: n is an int, not {type(size).__name__}", **location(where))
        if size < 1:
            raise ShapeError(
                f"batches: n is {size}, but a batch holds at least one example", **location(where)
            )
        if not _is_dataset(dataset):
            raise ShapeError(
                f"batches: expected a dataset of {record._ss_name}, got {type(dataset).__name__}",
                **location(where),
            )
        self.dataset = dataset
        self.size = size
        self.record = record
        self.where = where

    def __len__(self) -> int:
        return math.ceil(len(self.dataset) / self.size)

    def __iter__(self) -> Iterator[Batch]:
        from shapescript.rt.parallel import batches as on_workers

        if on_workers.on_controller():
            # On several devices each worker loads its own part of each batch.
            base, order = _unwrap(self.dataset)
            loop = on_workers.remote_loop(base, order, self.size, self.record, self.where)
            if loop is not None:
                return loop
        return _loop(self.dataset, self.size, self.record, self.where)


def batches(dataset: Any, n: int, record: type[Record], where: str) -> Batches:
    """`dataset |> batches(n)` over a dataset of `record`, for a loop at `where`."""
    return Batches(dataset, n, record, where)


def _chunks(order: torch.Tensor | None, count: int, size: int) -> list[list[int]]:
    indices: Any = range(count) if order is None else order.tolist()
    return [list(indices[start : start + size]) for start in range(0, count, size)]


def _loop(dataset: Any, size: int, record: type[Record], where: str) -> Iterator[Batch]:
    device = devices.device()
    base, order = _unwrap(dataset)
    count = len(base) if order is None else len(order)
    fields = record._ss_fields
    name = record._ss_name
    checks = value_checks_on()
    made = Batch._made
    pool = None
    if tensor_datasets.is_plain(base):
        prepared = tensor_datasets.prepare(base, fields, device, checks)
        if prepared.fields is not None:
            for tensors in prepared.batches(order, size, count):
                yield made(record, tensors, checks)
            return
        # An item doesn't fit: load it as any dataset, which names that item.
    elif count:
        pool = worker_pool.pool_for(base, fields, name, stacklevel=2)
    chunks = _chunks(order, count, size)
    if pool is None:
        load = BatchLoader(base, fields, name).load
        on_cpu = device.type == "cpu"
        for indices in chunks:
            tensors = load(indices)
            if checks:
                check_domains(fields, tensors, _example(indices))
            if not (on_cpu and all(value.device == device for value in tensors.values())):
                tensors = {key: value.to(device) for key, value in tensors.items()}
            yield made(record, tensors, checks)
        return
    copy = _copied if device.type == "cpu" else lambda view: view.to(device)
    for indices, views in pool.run(chunks, where):
        if checks:
            check_domains(fields, views, _example(indices))
        yield made(record, {key: copy(value) for key, value in views.items()}, checks)


def _copied(view: torch.Tensor) -> torch.Tensor:
    """A copy of a contiguous CPU tensor, made by one memcpy in this thread: torch's own
    copy of a batch is split among its threads, which with loader workers busy on the same
    cores can wait far longer than the copy takes."""
    raw = view.reshape(-1).view(torch.uint8).numpy().copy()
    return torch.from_numpy(raw).view(view.dtype).reshape(view.shape)


def _example(indices: list[int]) -> Any:
    def example(position: int | None) -> str:
        if position is None:
            return f"the batch of {items_text(indices)}"
        return f"item {indices[position]}"

    return example


# ---------------------------------------------------------------- argument checks


def _is_dataset(value: Any) -> bool:
    kind = type(value)
    return (
        hasattr(kind, "__len__")
        and hasattr(kind, "__getitem__")
        and not isinstance(value, str | bytes | Mapping | Batch)
    )


def check_dataset(
    value: Any,
    record: type[Record],
    where: str,
    parameter: str,
    *,
    function: str | None = None,
) -> Any:
    """The argument for a `Dataset[Digit]` parameter: any map-style dataset (its items are
    checked as they're loaded); ShapeError for anything else."""
    if _is_dataset(value):
        return value
    hint = ""
    if isinstance(value, Mapping):
        hint = "; a dict of whole fields is a batch: for a dataset, wrap them in a TensorDataset"
    raise ShapeError(
        f"expected a dataset of {record._ss_name} (Dataset[{record._ss_name}]): an object with "
        f"__len__ and __getitem__, such as a torch.utils.data.Dataset, got "
        f"{type(value).__name__}{hint}",
        **location(where),
        function=function,
        parameter=parameter,
    )


def _same_record(one: type[Record], other: type[Record]) -> bool:
    """The same record class, or the same declaration compiled twice."""
    if one is other:
        return True

    def plain(record: type[Record]) -> tuple[Any, ...]:
        return record._ss_name, tuple(
            (field.name, field.shape, field.dtype) for field in record._ss_fields
        )

    return isinstance(one, type) and issubclass(one, Record) and plain(one) == plain(other)


def _batched_text(field: RecordField, axes: int) -> tuple[str, str]:
    """The field's batched type and its sizes: `[b D]` and `(b, 784)`."""
    names = ["b"] if axes == 1 else [f"b{number}" for number in range(1, axes + 1)]
    text = field.type_text
    if text.startswith("[") and "]" in text:
        inner = text[1 : text.index("]")].strip()
        typed = f"[{' '.join(names + ([inner] if inner else []))}]"
    else:
        typed = f"[{' '.join(names)}] {text}"
    sizes = ", ".join(names + [str(size) for size in field.shape])
    return typed, f"({sizes}{',' if len(names) + len(field.shape) == 1 else ''})"


def as_batch(
    value: Any,
    record: type[Record],
    where: str,
    parameter: str,
    *,
    function: str | None = None,
    axes: int = 1,
) -> Batch:
    """The argument for a `[b] Digit` parameter (`axes` batch axes): a Batch of the record,
    or a dict of its fields, each checked as a tensor argument is -> a Batch."""
    values = value_checks_on()
    if isinstance(value, Batch) and _still_checked(value, record, axes, values):
        return value
    site: dict[str, Any] = location(where) | {"function": function, "parameter": parameter}
    name = record._ss_name
    if isinstance(value, Batch):
        if not _same_record(value.record, record):
            raise ShapeError(
                f"expected a batch of {name}, got a batch of {value.record._ss_name}", **site
            )
        if "_ss_source" in value.__dict__:
            # A batch the workers would load, given to a function here: loaded here.
            value._fields()
        fields: Mapping[str, Any] = value.__dict__
    elif isinstance(value, Mapping):
        fields = value
    else:
        raise ShapeError(
            f"expected a batch of {name}: a shapescript.rt.Batch, or a dict of its fields "
            f"({', '.join(field.name for field in record._ss_fields)}), got "
            f"{type(value).__name__}",
            **site,
        )
    device = devices.device()
    leading: tuple[int, ...] | None = None
    first = ""
    checked = {}
    for field in record._ss_fields:
        typed, sizes = _batched_text(field, axes)
        if field.name not in fields:
            raise ShapeError(f"the batch of {name} has no field `{field.name}`", **site)
        tensor = fields[field.name]
        if not isinstance(tensor, torch.Tensor):
            raise ShapeError(
                f"field `{field.name}` should be a tensor {typed}, got {type(tensor).__name__}",
                **site,
            )
        if tensor.device != device:
            raise DeviceError(
                f"field `{field.name}` is on {tensor.device}, but the program runs on {device}; "
                f"move it there first, with .to({str(device)!r})",
                **site,
            )
        shape = tuple(tensor.shape)
        if len(shape) != axes + len(field.shape) or shape[axes:] != field.shape:
            raise ShapeError(
                f"field `{field.name}` should be {typed} = {sizes}, got shape {shape}", **site
            )
        want = DTYPES[field.dtype]
        if tensor.dtype != want:
            raise ShapeError(
                f"field `{field.name}` should be {typed} with {field.dtype} values, got "
                f"{dtype_name(tensor.dtype)}; convert it first, with "
                f".to(torch.{str(want).removeprefix('torch.')})",
                **site,
            )
        if leading is None:
            leading, first = shape[:axes], field.name
        elif shape[:axes] != leading:
            raise ShapeError(
                f"the fields' batch sizes differ: `{first}` has {leading}, but "
                f"`{field.name}` has {shape[:axes]}",
                **site,
            )
        checked[field.name] = tensor
    if values:
        check_domains(
            record._ss_fields,
            checked,
            lambda position: "the batch" if position is None else f"example {position}",
            on_device=True,
            **site,
        )
    if isinstance(value, Batch):
        _stamp(value, record, axes, values)
        return value
    batch = Batch._made(record, checked, values)
    _stamp(batch, record, axes, values)
    return batch
