"""Sinks that logs records are written to, public as `shapescript.sinks`: CSV and TensorBoard.

A sink combines the records it is given, metric by metric, by each metric's rule, into
rows: `every=n` records per row (1 by default), or with `every=None` a row per `flush()`.
`flush()` and `close()` write a row for the records since the last one, if there are any.

One sink takes one kind of record, the first it is given: a CSV file has one header, and a
row can only combine records with the same metrics. Writing another kind is a ValueError
naming both; give each kind a sink of its own (for TensorBoard, a log_dir of its own, which
it shows as another run).
"""

from __future__ import annotations

import csv as csv_files
import math
import os
from collections.abc import Sequence
from typing import Any

from shapescript import atomic_write
from shapescript.rt.logs import RULES, LogRecord, Logs


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _extreme(values: list[Any], pick: Any) -> Any:
    """max or min, NaN if any value is NaN (as torch's are), whatever the order."""
    for value in values:
        if _is_nan(value):
            return value
    return pick(values)


def _mean(values: list[Any]) -> float:
    return math.fsum(values) / len(values)


def _sum(values: list[Any]) -> int | float:
    if all(isinstance(value, int) for value in values):
        return sum(int(value) for value in values)
    return math.fsum(values)


def _combined(rule: str, values: list[Any]) -> Any:
    if rule == "mean":
        return _mean(values)
    if rule == "sum":
        return _sum(values)
    if rule == "max":
        return _extreme(values, max)
    if rule == "min":
        return _extreme(values, min)
    return values[-1]


def _kind(record: LogRecord) -> str:
    return f"{record.name}({', '.join(record)})"


def _as_log_record(record: Any) -> LogRecord:
    if isinstance(record, LogRecord):
        return record
    if isinstance(record, Logs):
        return record._ss_record()
    raise TypeError(
        f"a sink is written shapescript.rt.LogRecord values (or logs records), "
        f"not {type(record).__name__}"
    )


def combine(records: Sequence[LogRecord]) -> LogRecord:
    """One record from several of the same kind, each metric combined by its rule.

    mean gives a float, sum of ints or bools an int, max, min and last a value of the
    metric's own type; max and min are NaN when any value is.
    """
    records = [_as_log_record(record) for record in records]
    if not records:
        raise ValueError("combine needs at least one record")
    first = records[0]
    for record in records[1:]:
        if record.name != first.name or list(record) != list(first):
            raise ValueError(f"can't combine {_kind(record)} with {_kind(first)} records")
    for metric, rule in first.combine.items():
        if rule not in RULES:
            raise ValueError(f"metric {metric!r} combines by {rule!r}, not one of {RULES}")
    values = {
        metric: _combined(rule, [record[metric] for record in records])
        for metric, rule in first.combine.items()
    }
    return LogRecord(values, name=first.name, combine=first.combine)


def _every(every: Any) -> int | None:
    if every is None:
        return None
    if not isinstance(every, int) or isinstance(every, bool):
        raise TypeError(f"every is an int or None, not {type(every).__name__}")
    if every < 1:
        raise ValueError(f"every is at least 1 (or None, for a row per flush), not {every}")
    return every


class Sink:
    """What the sinks here share: pending records, rows of `every`, flush, close, `with`.

    A subclass writes a combined row in `_row(record, step)`, where step counts records
    from 0 and is the last one's, and may flush and close its file in `_flush_output` and
    `_close_output`.
    """

    def __init__(self, every: int | None) -> None:
        self.every = _every(every)
        self.records = 0
        self.closed = False
        self._pending: list[LogRecord] = []
        self._kind: LogRecord | None = None

    def write(self, record: LogRecord) -> None:
        """Take one record; a row is written once `every` have been taken since the last."""
        record = _as_log_record(record)
        if self.closed:
            raise ValueError(f"this {type(self).__name__} is closed")
        if self._kind is None:
            self._kind = record
        elif record.name != self._kind.name or list(record) != list(self._kind):
            raise ValueError(
                f"this sink writes {_kind(self._kind)} records, and was given "
                f"{_kind(record)}; give each kind of record a sink of its own"
            )
        self._pending.append(record)
        self.records += 1
        if self.every is not None and len(self._pending) >= self.every:
            self._write_row()

    def flush(self) -> None:
        """Write a row for the records since the last row, if there are any."""
        if self.closed:
            return
        if self._pending:
            self._write_row()
        self._flush_output()

    def close(self) -> None:
        """Flush, then close the output; closing again does nothing."""
        if self.closed:
            return
        try:
            self.flush()
        finally:
            self.closed = True
            self._close_output()

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _write_row(self) -> None:
        row = combine(self._pending)
        self._pending = []
        self._row(row, self.records - 1)

    def _row(self, record: LogRecord, step: int) -> None:
        raise NotImplementedError

    def _flush_output(self) -> None:
        """Flush what `_row` wrote."""

    def _close_output(self) -> None:
        """Close what `_row` writes to."""


class CsvSink(Sink):
    """A CSV file: a header of the metrics' names, then a row per combined group."""

    def __init__(self, path: str | os.PathLike[str], every: int | None = 1) -> None:
        super().__init__(every)
        self.path = os.fspath(path)
        self._file = atomic_write.open_stream(self.path, newline="")
        self._writer = csv_files.writer(self._file)
        self._header = False

    def _row(self, record: LogRecord, step: int) -> None:
        if not self._header:
            self._writer.writerow(list(record))
            self._header = True
        self._writer.writerow(list(record.values()))
        self._file.flush()

    def _flush_output(self) -> None:
        self._file.flush()

    def _close_output(self) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"shapescript.sinks.csv({self.path!r}, every={self.every!r})"


class TensorBoardSink(Sink):
    """TensorBoard scalars, tagged with the metrics' names, at each row's last record."""

    def __init__(self, log_dir: str | os.PathLike[str], every: int | None = 1) -> None:
        super().__init__(every)
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError as error:
            raise ImportError(
                "shapescript.sinks.tensorboard needs the tensorboard package, which isn't "
                "installed: pip install tensorboard"
            ) from error
        self.log_dir = os.fspath(log_dir)
        self._writer = SummaryWriter(log_dir=self.log_dir)

    def _row(self, record: LogRecord, step: int) -> None:
        for metric, value in record.items():
            scalar = float(value) if isinstance(value, bool) else value
            self._writer.add_scalar(metric, scalar, global_step=step)

    def _flush_output(self) -> None:
        self._writer.flush()

    def _close_output(self) -> None:
        self._writer.close()

    def __repr__(self) -> str:
        return f"shapescript.sinks.tensorboard({self.log_dir!r}, every={self.every!r})"


def csv(path: str | os.PathLike[str], every: int | None = 1) -> CsvSink:
    """A sink writing a CSV file at `path`, a row per `every` records (None: per flush)."""
    return CsvSink(path, every)


def tensorboard(log_dir: str | os.PathLike[str], every: int | None = 1) -> TensorBoardSink:
    """A sink writing TensorBoard scalars to `log_dir`; needs the tensorboard package."""
    return TensorBoardSink(log_dir, every)


__all__ = ["CsvSink", "Sink", "TensorBoardSink", "combine", "csv", "tensorboard"]
