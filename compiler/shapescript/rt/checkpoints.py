"""Checkpoints: `save(path, values...)` and `load(path, Types...)`.

The file is a `torch.save` of

    {"format": "shapescript.checkpoint", "version": 2, "values": [entry, ...],
     "checksums": {"metadata": crc, "tensors": [crc, ...]}}

with an entry per value: a model, `{"kind": "model", "type", "fields", "tensors"}`;
optimizer state, `{"kind": "optimizer", "type", "optimizer", "model", "fields", "of",
"state"}`; or a host scalar, `{"kind": "int" | "float" | "bool", "value"}`. Each field is
`{"name", "kind", "shape", "dtype"}`, dtype as torch names it ("float32"). A field of a
model another holds is named by its full path, as `state_dict()` names it (`h.0.attn.w`),
so a model that holds none writes the same file it wrote before models could nest, and
that file still loads: the format stayed at version 2.

The checksums are CRC-32s (`checksums.py`): one of the values' metadata, everything but the
tensors' data, and one of each tensor's bytes, in the order the values hold them. A load
checks them, and a damaged file is a ShapeError naming the field whose data changed. A
version 1 file, written before checksums, loads with a warning, once per file.

A save writes the file through `shapescript.atomic_write`: a new file beside the path,
synced and renamed over it, so the path always holds a whole checkpoint, and the temporary
files of saves that were killed are removed by the next save into that folder.

A load reads with `weights_only=True` onto the declared device, checks the whole file
against the types before it makes anything, and raises one ShapeError listing every
difference.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

import torch

from shapescript.atomic_write import atomic_writer
from shapescript.records import record
from shapescript.rt import devices
from shapescript.rt.checksums import metadata_and_tensors, metadata_checksum, tensor_checksum
from shapescript.rt.errors import CheckFailure, ShapeError
from shapescript.rt.locations import caller, location
from shapescript.rt.models import Field, Model, build, params_of, same_model_type, tensors_of
from shapescript.rt.optimizers import (
    STATE_KEYS,
    TYPE_NAMES,
    Optimizer,
    adamw,
    schedule_from_state,
    sgd,
)

FORMAT = "shapescript.checkpoint"
VERSION = 2
#: The versions `load` reads: 1 was written before checkpoints had checksums.
READS = (1, 2)
#: Host scalars by kind, bool first since a bool is also an int.
SCALARS: dict[str, type] = {"bool": bool, "int": int, "float": float}
#: The runtime's name of each optimizer type name, `AdamW` -> "adamw".
OPTIMIZERS = {written: name for name, written in TYPE_NAMES.items()}
#: What each optimizer is made with: its hyperparameters in torch's param group.
MAKERS: dict[str, Callable[..., Optimizer]] = {"adamw": adamw, "sgd": sgd}


@record(frozen=True)
class OptimizerType:
    """The type of optimizer state, `AdamW[Mlp]`: an optimizer ("AdamW", "SGD") and a model."""

    optimizer: str
    model: type

    @property
    def text(self) -> str:
        return f"{self.optimizer}[{getattr(self.model, '__name__', self.model)}]"

    def __str__(self) -> str:
        return self.text


class OptimizerFamily:
    """`shapescript.AdamW`, `shapescript.SGD`: subscripted with a model class, a state type."""

    __slots__ = ("optimizer",)

    def __init__(self, optimizer: str) -> None:
        self.optimizer = optimizer

    def __getitem__(self, model: type) -> OptimizerType:
        if not (isinstance(model, type) and issubclass(model, Model) and model is not Model):
            raise TypeError(
                f"{self.optimizer}[...] takes a compiled model class, not {model!r}"[:200]
            )
        return OptimizerType(self.optimizer, model)

    def __repr__(self) -> str:
        return f"shapescript.{self.optimizer}"


AdamW = OptimizerFamily("AdamW")
SGD = OptimizerFamily("SGD")


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _field_entry(name: str, kind: str, tensor: torch.Tensor) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "shape": list(tensor.shape),
        "dtype": _dtype_name(tensor.dtype),
    }


# ---- save


def _model_entry(model: Model) -> dict[str, Any]:
    from shapescript.rt.parallel.remote import RemoteModel

    if isinstance(model, RemoteModel):
        model.state_dict()  # the workers are ahead: copy the first worker's fields back first
    tensors = tensors_of(model)
    by_name = type(model)._ss_all_by_name
    return {
        "kind": "model",
        "type": type(model).__name__,
        "fields": [_field_entry(name, by_name[name].kind, t) for name, t in tensors.items()],
        "tensors": {name: tensor.detach() for name, tensor in tensors.items()},
    }


def _updates(opt: Optimizer, value: Any) -> bool:
    """Whether `opt` is bound to `value`'s params: `value` is the model it was updating."""
    if not isinstance(value, Model):
        return False
    params = params_of(value)
    return len(params) == len(opt._params) and all(
        mine is theirs for mine, theirs in zip(params, opt._params, strict=True)
    )


def _optimizer_entry(opt: Optimizer, values: tuple[Any, ...]) -> dict[str, Any]:
    names = opt.model_type._ss_params
    of = next((position for position, value in enumerate(values) if _updates(opt, value)), None)
    return {
        "kind": "optimizer",
        "type": opt.type_text,
        "optimizer": opt.name,
        "model": opt.model_type.__name__,
        "fields": [_field_entry(n, "param", p) for n, p in zip(names, opt._params, strict=True)],
        "of": of,
        "state": opt.state_dict(),
    }


def _entry(value: Any, position: int, values: tuple[Any, ...], fields: dict[str, Any]) -> dict:
    """The file's entry for one value; TypeError for a value a checkpoint can't hold."""
    if isinstance(value, Model):
        return _model_entry(value)
    if isinstance(value, Optimizer):
        return _optimizer_entry(value, values)
    for kind, scalar in SCALARS.items():
        if isinstance(value, scalar):
            return {"kind": kind, "value": scalar(value)}
    what = "a tensor" if isinstance(value, torch.Tensor) else f"a {type(value).__name__}"
    hint = "; keep a tensor in a model, as a param or a buffer" if what == "a tensor" else ""
    message = (
        f"save: value {position + 1} is {what}, which a checkpoint can't hold: it holds "
        f"models, optimizer state, and int, float and bool values{hint}"
    )
    raise TypeError(str(CheckFailure(message, **fields)))


def _write_atomically(path: str, checkpoint: dict[str, Any]) -> None:
    """torch.save through the project's atomic writer: the path holds the old checkpoint or
    the new one, and a killed save's temporary file is removed by the next write there."""
    with atomic_writer(path, binary=True) as file:
        torch.save(checkpoint, file)


def _path_text(path: Any, operation: str, fields: dict[str, Any]) -> str:
    if isinstance(path, str | os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    message = f"{operation}: the path is a string or a path, not {type(path).__name__}"
    raise TypeError(str(CheckFailure(message, **fields)))


def save(path: str | os.PathLike[str], *values: Any, where: str | None = None) -> None:
    """Write `values` (models, optimizer state, ints, floats, bools) to the checkpoint `path`.

    TypeError for a value a checkpoint can't hold; the file at `path` is then unchanged.
    """
    fields = location(where if where is not None else caller())
    text = _path_text(path, "save", fields)
    if not values:
        raise TypeError(str(CheckFailure("save: give at least one value after the path", **fields)))
    entries = [_entry(value, position, values, fields) for position, value in enumerate(values)]
    metadata, tensors = metadata_and_tensors(entries)
    checksums = {
        "metadata": metadata_checksum(metadata),
        "tensors": [tensor_checksum(tensor) for _path, tensor in tensors],
    }
    checkpoint = {"format": FORMAT, "version": VERSION, "values": entries, "checksums": checksums}
    from shapescript.rt.parallel import controller, hosts

    if hosts.current() is None:
        _write_atomically(text, checkpoint)
        return
    # On several hosts host 0 writes it, and the others go on once it has (to load it).
    if hosts.is_first():
        _write_atomically(text, checkpoint)
    hosts.barrier(f"save(`{text}`)", controller.collective_timeout())


# ---- load: reading and checking the file


class _Damaged(Exception):
    """A file whose contents aren't what save writes."""


def _reason(error: Exception) -> str:
    """The first sentence of an error from torch.load, with its type."""
    text = str(error).strip().split("\n")[0].split(". ")[0].rstrip(".")
    if len(text) > 160:
        text = text[:159] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _unreadable(path: str, error: Exception, fields: dict[str, Any]) -> ShapeError:
    if "weights only load failed" in str(error).lower():
        problem = (
            "it holds Python objects other than tensors and plain values, which load "
            "never runs, so save didn't write it"
        )
    else:
        problem = f"it isn't a checkpoint save wrote, or it was cut short ({_reason(error)})"
    return ShapeError(f"`{path}` can't be loaded: {problem}", **fields)


def _read(path: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The file's contents, on the CPU; OSError if it can't be opened, ShapeError if torch
    can't read it."""
    with open(path, "rb") as file:
        try:
            with warnings.catch_warnings():
                # torch warns about pickle protocols of files it then refuses; the error says so.
                warnings.simplefilter("ignore", UserWarning)
                # On the CPU, where the checksums are computed; `_make` moves the values
                # to the declared device.
                data = torch.load(file, map_location="cpu", weights_only=True)
        except Exception as error:
            raise _unreadable(path, error, fields) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        what = "a dict" if isinstance(data, dict) else f"a {type(data).__name__}"
        raise ShapeError(
            f"`{path}` isn't a ShapeScript checkpoint: it holds {what} that save didn't write",
            **fields,
        )
    if data.get("version") not in READS:
        raise ShapeError(
            f"`{path}` is a version {data.get('version')!r} checkpoint; this shapescript reads "
            f"versions {' and '.join(str(version) for version in READS)}",
            **fields,
        )
    return data


def _require(condition: bool, problem: str) -> None:
    if not condition:
        raise _Damaged(problem)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_field_entries(fields: Any, what: str, params_only: bool) -> list[dict[str, Any]]:
    _require(isinstance(fields, list), f"{what} has no list of fields")
    names = set()
    for field in fields:
        _require(
            isinstance(field, dict)
            and isinstance(field.get("name"), str)
            and field.get("kind") in (("param",) if params_only else ("param", "buffer"))
            and isinstance(field.get("shape"), list)
            and all(_is_int(size) and size >= 0 for size in field["shape"])
            and isinstance(field.get("dtype"), str),
            f"{what} has a field that isn't a name, kind, shape and dtype",
        )
        _require(field["name"] not in names, f"{what} has two fields named `{field['name']}`")
        names.add(field["name"])
    return fields


def _fits_field(tensor: Any, field: dict[str, Any]) -> bool:
    return (
        isinstance(tensor, torch.Tensor)
        and list(tensor.shape) == field["shape"]
        and _dtype_name(tensor.dtype) == field["dtype"]
    )


def _check_model_entry(entry: dict[str, Any], what: str) -> None:
    _require(isinstance(entry.get("type"), str), f"{what} has no type")
    fields = _check_field_entries(entry.get("fields"), what, params_only=False)
    tensors = entry.get("tensors")
    _require(isinstance(tensors, dict), f"{what} has no tensors")
    _require(
        list(tensors) == [field["name"] for field in fields],
        f"{what}'s tensors aren't its fields",
    )
    for field in fields:
        _require(
            _fits_field(tensors[field["name"]], field),
            f"{what}'s tensor `{field['name']}` isn't its field's shape and dtype",
        )


def _check_optimizer_entry(entry: dict[str, Any], what: str, entries: list[Any]) -> None:
    _require(isinstance(entry.get("type"), str), f"{what} has no type")
    _require(entry.get("optimizer") in MAKERS, f"{what} is state of an unknown optimizer")
    _require(isinstance(entry.get("model"), str), f"{what} names no model")
    fields = _check_field_entries(entry.get("fields"), what, params_only=True)
    names = [field["name"] for field in fields]
    state = entry.get("state")
    _require(
        isinstance(state, dict)
        and state.keys() >= STATE_KEYS
        and state["optimizer"] == entry["optimizer"]
        and state["model"] == entry["model"]
        and state["params"] == names
        and _is_int(state["steps"])
        and state["steps"] >= 0,
        f"{what}'s state isn't that of its optimizer and params",
    )
    inner = state["torch"]
    _require(
        isinstance(inner, dict)
        and isinstance(inner.get("state"), dict)
        and _groups_hold_each_once(inner.get("param_groups"), len(names)),
        f"{what}'s PyTorch state isn't groups holding each of its params once",
    )
    for index, values in inner["state"].items():
        _require(
            _is_int(index) and 0 <= index < len(names) and isinstance(values, dict),
            f"{what}'s PyTorch state is for params it doesn't have",
        )
        for key, value in values.items():
            if isinstance(value, torch.Tensor) and key != "step":
                _require(
                    list(value.shape) == fields[index]["shape"],
                    f"{what}'s `{key}` of `{names[index]}` isn't the param's shape",
                )
    try:
        schedule_from_state(state["lr"])
    except (KeyError, TypeError, ValueError) as error:
        raise _Damaged(f"{what}'s learning rate isn't a number or a schedule") from error
    of = entry.get("of")
    if of is not None:
        _require(
            _is_int(of)
            and 0 <= of < len(entries)
            and isinstance(entries[of], dict)
            and entries[of].get("kind") == "model"
            and entries[of].get("type") == entry["model"],
            f"{what} is bound to a value that isn't its model",
        )


def _groups_hold_each_once(groups: Any, count: int) -> bool:
    """Whether `groups` are param groups (dicts with a list of params, numbered by field)
    that together hold each of `count` params once."""
    if not isinstance(groups, list) or not groups:
        return False
    held: list[Any] = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("params"), list):
            return False
        held += group["params"]
    return all(_is_int(index) for index in held) and sorted(held) == list(range(count))


def _check_entries(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The file's entries; _Damaged for anything save doesn't write."""
    entries = data.get("values")
    _require(isinstance(entries, list) and len(entries) > 0, "it has no list of values")
    for position, entry in enumerate(entries):
        what = f"value {position + 1}"
        _require(isinstance(entry, dict), f"{what} isn't an entry")
        kind = entry.get("kind")
        if kind == "model":
            _check_model_entry(entry, what)
        elif kind == "optimizer":
            _check_optimizer_entry(entry, what, entries)
        elif kind in SCALARS:
            value = entry.get("value")
            fits = isinstance(value, SCALARS[kind]) and (kind == "bool") == (
                isinstance(value, bool)
            )
            _require(fits, f"{what} isn't the {kind} its entry says")
        else:
            raise _Damaged(f"{what} is of an unknown kind {kind!r}")
    return entries


# ---- load: the checksums

#: The files (real paths) a load has warned about for having no checksums.
_warned_unchecked: set[str] = set()


def _tensor_text(path: tuple[Any, ...], entries: list[dict[str, Any]]) -> str:
    """Which tensor of the file `path` leads to, as a message says it."""
    position = path[0]
    entry = entries[position]
    value = f"value {position + 1} (`{entry['type']}`)"
    if entry["kind"] == "model":
        return f"field `{path[2]}` of {value}"
    if entry["kind"] == "optimizer" and path[1:4] == ("state", "torch", "state"):
        param = entry["fields"][path[4]]["name"]
        return f"`{path[5]}` of param `{param}` in {value}"
    return f"a tensor of {value}"


def _check_sums(
    text: str, data: dict[str, Any], entries: list[dict[str, Any]], fields: dict[str, Any]
) -> None:
    """ShapeError when the file's checksums don't match what it holds; a warning, once
    per file, for a version 1 file, which has none."""
    if data["version"] == 1:
        key = os.path.realpath(text)
        if key not in _warned_unchecked:
            _warned_unchecked.add(key)
            warnings.warn(
                f"`{text}` has no checksums: an older shapescript saved it, so damage to it "
                "can't be found. Save it again to add them.",
                UserWarning,
                stacklevel=3,
            )
        return
    damaged = f"`{text}` is damaged: "
    advice = "; it changed after save wrote it. Use another copy, or save it again"
    sums = data.get("checksums")
    metadata, tensors = metadata_and_tensors(entries)
    if not (
        isinstance(sums, dict)
        and isinstance(sums.get("tensors"), list)
        and len(sums["tensors"]) == len(tensors)
    ):
        raise ShapeError(damaged + "its checksums are missing or cut short" + advice, **fields)
    if sums.get("metadata") != metadata_checksum(metadata):
        raise ShapeError(
            damaged + "its metadata doesn't match its checksum (the values' types, fields, "
            "numbers and optimizer settings)" + advice,
            **fields,
        )
    for (path, tensor), expected in zip(tensors, sums["tensors"], strict=True):
        if tensor_checksum(tensor) != expected:
            raise ShapeError(
                f"{damaged}the data of {_tensor_text(path, entries)} doesn't match its "
                f"checksum{advice}",
                **fields,
            )


# ---- load: comparing the file with the types


def _type_text(declared: Any) -> str:
    if isinstance(declared, OptimizerType):
        return declared.text
    return declared.__name__


def _check_types(types: tuple[Any, ...], fields: dict[str, Any]) -> None:
    for position, declared in enumerate(types):
        if declared in (int, float, bool):
            continue
        if isinstance(declared, type) and issubclass(declared, Model) and declared is not Model:
            continue
        if (
            isinstance(declared, OptimizerType)
            and declared.optimizer in OPTIMIZERS
            and isinstance(declared.model, type)
            and issubclass(declared.model, Model)
        ):
            continue
        message = (
            f"load: type {position + 1} is {declared!r}, which a checkpoint can't hold: give "
            "a model class, shapescript.AdamW[Model], shapescript.SGD[Model], int, float or bool"
        )
        raise TypeError(str(CheckFailure(message[:400], **fields)))


def _entry_text(entry: dict[str, Any]) -> str:
    return entry["type"] if entry["kind"] in ("model", "optimizer") else entry["kind"]


def _shape_text(shape: Any) -> str:
    return repr(tuple(shape))


def _declared_fields(cls: type[Model], params_only: bool) -> list[Field]:
    """The fields a file of `cls` holds: its own in declaration order, then those of the
    models it holds by full path."""
    own = len(cls._ss_fields)
    fields = [*cls._ss_fields, *cls._ss_all_fields[own:]]
    return [field for field in fields if not params_only or field.kind == "param"]


def _field_differences(
    prefix: str, file_fields: list[dict[str, Any]], cls: type[Model], params_only: bool
) -> list[str]:
    model = f"`{cls.__name__}`"
    theirs = {field["name"]: field for field in file_fields}
    declared = _declared_fields(cls, params_only)
    lines = []
    for field in declared:
        dtype = _dtype_name(field.torch_dtype)
        found = theirs.get(field.name)
        if found is None:
            lines.append(
                f"{prefix}: field `{field.name}` isn't in the file, but {model} declares it "
                f"as {field.kind} {_shape_text(field.shape)} {dtype}"
            )
            continue
        if found["kind"] != field.kind:
            lines.append(
                f"{prefix}: field `{field.name}` is a {found['kind']} in the file, but "
                f"{model} declares a {field.kind}"
            )
        if tuple(found["shape"]) != field.shape or found["dtype"] != dtype:
            lines.append(
                f"{prefix}: field `{field.name}` is {_shape_text(found['shape'])} "
                f"{found['dtype']} in the file, but {model} declares "
                f"{_shape_text(field.shape)} {dtype}"
            )
    names = {field.name for field in declared}
    for field in file_fields:
        other = cls._ss_all_by_name.get(field["name"])
        if field["name"] in names:
            continue
        if other is not None:
            lines.append(
                f"{prefix}: field `{field['name']}` is a {field['kind']} in the file, but "
                f"{model} declares a {other.kind}"
            )
        else:
            lines.append(
                f"{prefix}: field `{field['name']}` is in the file, as {field['kind']} "
                f"{_shape_text(field['shape'])} {field['dtype']}, but {model} doesn't declare it"
            )
    return lines


def _same_type(declared: Any, entry: dict[str, Any]) -> bool:
    kind = entry["kind"]
    if declared is int:
        return kind == "int"
    if declared is float:
        return kind in ("float", "int")
    if declared is bool:
        return kind == "bool"
    if isinstance(declared, OptimizerType):
        return (
            kind == "optimizer"
            and entry["optimizer"] == OPTIMIZERS[declared.optimizer]
            and entry["model"] == declared.model.__name__
        )
    return kind == "model" and entry["type"] == declared.__name__


def _differences(entries: list[dict[str, Any]], types: tuple[Any, ...]) -> list[str]:
    lines = []
    for position, (declared, entry) in enumerate(zip(types, entries, strict=True)):
        if not _same_type(declared, entry):
            lines.append(
                f"value {position + 1}: the file has `{_entry_text(entry)}`, but `load` was "
                f"given `{_type_text(declared)}`"
            )
            continue
        prefix = f"value {position + 1}, `{_type_text(declared)}`"
        if isinstance(declared, OptimizerType):
            lines += _field_differences(prefix, entry["fields"], declared.model, True)
        elif entry["kind"] == "model":
            lines += _field_differences(prefix, entry["fields"], declared, False)
    return lines


def _listed(count: int, noun: str, texts: list[str]) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'} ({', '.join(texts)})"


# ---- load: making the values


def _model_from(cls: type[Model], tensors: dict[str, torch.Tensor], device: torch.device) -> Model:
    """A `cls` made of these tensors, by full path (`h.0.attn.w`), as `init` makes one of
    drawn ones."""
    return build(cls, lambda path, _field: tensors[path].to(device))


def _stand_in(cls: type[Model], device: torch.device) -> Model:
    """Zeros in place of a model's fields, for state loaded without its model."""
    zeros = {
        field.name: torch.zeros(field.shape, dtype=field.torch_dtype, device=device)
        for field in cls._ss_all_fields
    }
    return _model_from(cls, zeros, device)


def _hyperparameters(name: str, group: dict[str, Any]) -> dict[str, Any]:
    if name == "adamw":
        beta1, beta2 = group["betas"]
        keys = ("eps", "weight_decay", "amsgrad", "maximize")
        chosen = {key: group[key] for key in keys}
        return {"beta1": beta1, "beta2": beta2, **chosen, "fused": bool(group.get("fused"))}
    keys = ("momentum", "dampening", "weight_decay", "nesterov", "maximize")
    return {key: group[key] for key in keys}


def _optimizer_from(declared: OptimizerType, entry: dict[str, Any], model: Model) -> Optimizer:
    """State made with the file's hyperparameters, then given its saved state, bound to `model`."""
    state = entry["state"]
    name = entry["optimizer"]
    group = state["torch"]["param_groups"][0]
    opt = MAKERS[name](model, lr=schedule_from_state(state["lr"]), **_hyperparameters(name, group))
    declared_names = list(declared.model._ss_params)
    file_names = list(state["params"])
    inner = state["torch"]["state"]
    by_name = {file_names[index]: values for index, values in inner.items()}
    remapped = {
        index: by_name[param] for index, param in enumerate(declared_names) if param in by_name
    }
    declared_index = {param: index for index, param in enumerate(declared_names)}
    own_group = opt.torch.param_groups[0]
    groups = [
        {**saved, "params": [declared_index[file_names[index]] for index in saved["params"]]}
        for saved in state["torch"]["param_groups"]
    ]
    if "capturable" in own_group:
        for saved in groups:
            saved["capturable"] = own_group["capturable"]
    opt.load_state_dict(
        {
            **state,
            "params": declared_names,
            "torch": {"state": remapped, "param_groups": groups},
        }
    )
    return opt


def _make(entries: list[dict[str, Any]], types: tuple[Any, ...], device: torch.device) -> list[Any]:
    made: list[Any] = [None] * len(types)
    for position, (declared, entry) in enumerate(zip(types, entries, strict=True)):
        if entry["kind"] == "model":
            made[position] = _model_from(declared, entry["tensors"], device)
        elif entry["kind"] in SCALARS:
            made[position] = SCALARS[_type_text(declared)](entry["value"])
    for position, (declared, entry) in enumerate(zip(types, entries, strict=True)):
        if entry["kind"] != "optimizer":
            continue
        of = entry["of"]
        model = made[of] if of is not None else None
        if not (isinstance(model, Model) and same_model_type(type(model), declared.model)):
            model = _stand_in(declared.model, device)
        made[position] = _optimizer_from(declared, entry, model)
    return made


def _checked_entries(text: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of the checkpoint at `text`, its structure and checksums checked."""
    data = _read(text, fields)
    try:
        entries = _check_entries(data)
    except _Damaged as damage:
        raise ShapeError(f"`{text}` isn't a checkpoint save wrote: {damage}", **fields) from None
    _check_sums(text, data, entries, fields)
    return entries


def load(path: str | os.PathLike[str], *types: Any, where: str | None = None) -> Any:
    """The values of the checkpoint at `path`, made as `types` say: one value for one type,
    else a tuple. ShapeError listing every difference when the file doesn't match them."""
    fields = location(where if where is not None else caller())
    text = _path_text(path, "load", fields)
    if not types:
        raise TypeError(str(CheckFailure("load: give at least one type after the path", **fields)))
    _check_types(types, fields)
    device = devices.device()
    entries = _checked_entries(text, fields)
    if len(entries) != len(types):
        held = _listed(len(entries), "value", [_entry_text(entry) for entry in entries])
        given = _listed(len(types), "type", [_type_text(declared) for declared in types])
        raise ShapeError(f"`{text}` holds {held}, but `load` was given {given}", **fields)
    lines = _differences(entries, types)
    if lines:
        listed = "".join(f"\n  {line}" for line in lines)
        raise ShapeError(f"`{text}` doesn't match the types it's loaded as:{listed}", **fields)
    made = _make(entries, types, device)
    return made[0] if len(made) == 1 else tuple(made)


def load_model(path: str | os.PathLike[str], cls: type[Model], where: str | None = None) -> Model:
    """The first `cls` model of the checkpoint at `path`, whatever else it holds (an
    optimizer saved with it, say): how an export takes a model's weights from a checkpoint.
    ShapeError when the file holds no `cls` model or its fields differ from `cls`'s; it names
    `where` when given (not the export's own code, which the user didn't write)."""
    fields = location(where)
    text = _path_text(path, "load", fields)
    device = devices.device()
    entries = _checked_entries(text, fields)
    for entry in entries:
        if entry["kind"] == "model" and _same_type(cls, entry):
            lines = _field_differences(f"`{_type_text(cls)}`", entry["fields"], cls, False)
            if lines:
                listed = "".join(f"\n  {line}" for line in lines)
                raise ShapeError(f"`{text}` doesn't match `{_type_text(cls)}`:{listed}", **fields)
            return _model_from(cls, entry["tensors"], device)
    held = _listed(len(entries), "value", [_entry_text(entry) for entry in entries])
    raise ShapeError(f"`{text}` holds no `{_type_text(cls)}` model: it holds {held}", **fields)


__all__ = ["SGD", "AdamW", "OptimizerFamily", "OptimizerType", "load", "load_model", "save"]
