"""Logs records, writing them to sinks, and ShapeScript's `print`.

A compiled logs record is

    class StepLogs(_ss_rt.logs.Logs):
        _ss_name = "StepLogs"
        _ss_metrics = (("loss", "mean", "f32"), ("grad_norm", "max", "f32"))

where each metric is (name, how it combines, kind): the dtype name of a `[]` tensor metric,
or "int", "float" or "bool" for a host scalar. A record keeps its values as given, so a
tensor stays on the device until the record is written; `write` copies the values to the
CPU as Python numbers, in a `LogRecord`, and hands that to the sink.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any, ClassVar

import torch

from shapescript.rt.errors import ShapeError
from shapescript.rt.locations import location
from shapescript.rt.parallel import later as _later
from shapescript.rt.parallel.hosts import is_first as _first_host

#: How a metric's values combine when a sink reports several records as one row.
RULES = ("mean", "sum", "max", "min", "last")
#: The Python number each metric kind becomes.
FLOAT_KINDS = frozenset({"f16", "bf16", "f32", "f64", "float"})
INT_KINDS = frozenset({"u8", "i8", "i16", "i32", "i64", "int"})
BOOL_KINDS = frozenset({"bool"})
#: Kinds that are host scalars only; the others are `[]` tensors (and "bool" is either).
HOST_KINDS = frozenset({"int", "float"})


def _number_type(kind: str) -> type:
    if kind in FLOAT_KINDS:
        return float
    if kind in INT_KINDS:
        return int
    return bool


def _metric_problem(name: Any, rule: Any, kind: Any) -> str | None:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        return f"{name!r} isn't a metric name: an identifier that doesn't start with _"
    if keyword.iskeyword(name):
        return f"a metric can't be named {name!r}, a Python keyword"
    if rule not in RULES:
        return f"metric {name!r} combines by {rule!r}; the rules are {', '.join(RULES)}"
    if kind not in FLOAT_KINDS | INT_KINDS | BOOL_KINDS:
        return (
            f"metric {name!r} has kind {kind!r}, which isn't a number's dtype, int, float or bool"
        )
    return None


def _value_problem(kind: str, value: Any) -> str | None:
    """Why `value` can't be a metric of this kind, or None."""
    if isinstance(value, torch.Tensor):
        if kind in HOST_KINDS:
            return f"is a host {kind}, not a tensor"
        if value.dim() != 0:
            return f"is a single number, a [] tensor, not one of shape {tuple(value.shape)}"
        return None
    if kind in BOOL_KINDS:
        return None if isinstance(value, bool) else f"is a bool, not {type(value).__name__}"
    if kind in INT_KINDS:
        fits = isinstance(value, int) and (kind != "int" or not isinstance(value, bool))
        return None if fits else f"is an int, not {type(value).__name__}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return None
    return f"is a number, not {type(value).__name__}"


class LogRecord(dict):
    """A written logs record: metric name -> Python number, in declaration order.

    `name` is the record's name and `combine` maps each metric to how it combines.
    """

    name: str
    combine: dict[str, str]

    def __init__(self, values: Mapping[str, Any], *, name: str, combine: Mapping[str, str]):
        super().__init__(values)
        self.name = name
        self.combine = dict(combine)
        if list(self.combine) != list(self):
            raise ValueError(
                f"a {name} LogRecord needs a rule for each metric, in order: "
                f"metrics {list(self)}, rules for {list(self.combine)}"
            )

    def __reduce__(self):
        return (_log_record, (dict(self), self.name, self.combine))


def _log_record(values: dict[str, Any], name: str, combine: dict[str, str]) -> LogRecord:
    return LogRecord(values, name=name, combine=combine)


class Logs:
    """The base of compiled logs records; make one with every metric by keyword."""

    _ss_name: ClassVar[str] = ""
    _ss_metrics: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    _ss_kinds: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_ss_name" not in cls.__dict__:
            cls._ss_name = cls.__name__
        kinds: dict[str, str] = {}
        for metric in cls._ss_metrics:
            problem = (
                "a metric is (name, rule, kind)"
                if not isinstance(metric, tuple) or len(metric) != 3
                else _metric_problem(*metric)
            )
            if problem is None and metric[0] in kinds:
                problem = f"two metrics are named {metric[0]!r}"
            if problem is not None:
                raise TypeError(f"logs {cls._ss_name}: {problem}")
            kinds[metric[0]] = metric[2]
        cls._ss_kinds = kinds

    def __init__(self, *args: Any, **values: Any) -> None:
        cls = type(self)
        if cls is Logs:
            raise TypeError("Logs is the base of compiled logs records; make one of those")
        names = list(cls._ss_kinds)
        if args:
            raise TypeError(f"{cls._ss_name} takes its metrics by name: {', '.join(names)}")
        unknown = [name for name in values if name not in cls._ss_kinds]
        missing = [name for name in names if name not in values]
        if unknown or missing:
            parts = []
            if unknown:
                parts.append(f"it has no metric {', '.join(map(repr, unknown))}")
            if missing:
                parts.append(f"missing {', '.join(map(repr, missing))}")
            raise TypeError(f"{cls._ss_name} takes {', '.join(names)}: {'; '.join(parts)}")
        for name in names:
            value = values[name]
            problem = _value_problem(cls._ss_kinds[name], value)
            if problem is not None:
                raise ShapeError(f"{cls._ss_name}: metric `{name}` {problem}")
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self)._ss_name} records can't be changed; make a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self)._ss_name} records can't be changed; make a new one")

    def _ss_record(self) -> LogRecord:
        """The values as Python numbers, copied to the CPU, after each metric's kind."""
        cls = type(self)
        values = {}
        for name, kind in cls._ss_kinds.items():
            value = getattr(self, name)
            if isinstance(value, torch.Tensor):
                value = value.detach().item()
            values[name] = _number_type(kind)(value)
        rules = {name: rule for name, rule, _kind in cls._ss_metrics}
        return LogRecord(values, name=cls._ss_name, combine=rules)

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={value!r}" for name, value in self._ss_record().items())
        return f"{type(self)._ss_name}({values})"


def write(sink: Any, record: Any) -> None:
    """`sink.write(record)`: the record as a LogRecord of Python numbers, to `sink.write`."""
    if not isinstance(record, Logs):
        raise TypeError(f"sink.write takes a logs record, not {type(record).__name__}")
    # On several hosts, host 0 alone writes (they have the same records); a record of a
    # loop's step that the workers haven't answered yet is written once they have.
    if _first_host() and not _later.write_later(sink, record):
        sink.write(record._ss_record())


def flush(sink: Any) -> None:
    """`sink.flush()`: the sink's `flush()`, if it has one."""
    method = getattr(sink, "flush", None)
    if callable(method) and _first_host():
        _later.settle()
        method()


def check_sink(value: Any, where: str, parameter: str, function: str | None = None) -> None:
    """ShapeError, naming the parameter, unless `value` has a callable `write`: a LogSink."""
    if callable(getattr(value, "write", None)):
        return
    raise ShapeError(
        f"expected a LogSink, an object with a write method, got {type(value).__name__}",
        **location(where, function=function, parameter=parameter),
    )


def _printable(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        value = value.detach()
        return value.item() if value.dim() == 0 else value.cpu()
    if isinstance(value, Logs):
        return dict(value._ss_record())
    return value


def print_values(*values: Any) -> None:
    """ShapeScript's `print`: Python's, with tensors copied to the CPU, a `[]` tensor as a
    number and a logs record as a dict of numbers; on several hosts, host 0's alone."""
    if _first_host():
        _later.settle()
        print(*(_printable(value) for value in values))


__all__ = ["RULES", "LogRecord", "Logs", "check_sink", "flush", "print_values", "write"]
