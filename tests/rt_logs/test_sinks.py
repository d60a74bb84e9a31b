"""shapescript.sinks: combining records by each metric's rule, CSV and TensorBoard sinks."""

from __future__ import annotations

import math
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import torch

import shapescript
from shapescript.rt.logs import LogRecord, write
from shapescript.rt.sinks import combine
from tests.rt_logs.records import EvalLogs, StepLogs

RULES = {"loss": "mean", "tokens": "sum", "norm": "max", "low": "min", "lr": "last"}


def _record(loss: float, tokens: int, norm: float, low: float, lr: float) -> LogRecord:
    values = {"loss": loss, "tokens": tokens, "norm": norm, "low": low, "lr": lr}
    return LogRecord(values, name="Step", combine=RULES)


def _step(loss: float, grad_norm: float = 1.0, tokens: int = 10) -> StepLogs:
    return StepLogs(
        loss=torch.tensor(loss),
        grad_norm=torch.tensor(grad_norm),
        tokens=torch.tensor(tokens),
        finite=torch.tensor(True),
        lr=0.5,
    )


def test_combine_uses_each_metrics_rule() -> None:
    combined = combine(
        [
            _record(1.0, 3, 2.0, 5.0, 0.1),
            _record(2.0, 4, 7.0, -1.0, 0.2),
            _record(6.0, 5, 1.0, 0.0, 0.3),
        ]
    )
    assert combined == {"loss": 3.0, "tokens": 12, "norm": 7.0, "low": -1.0, "lr": 0.3}
    assert type(combined["tokens"]) is int
    assert (combined.name, combined.combine) == ("Step", RULES)


def test_combine_keeps_bools_for_max_min_and_last_and_counts_them_for_sum() -> None:
    rules = {"any": "max", "all": "min", "count": "sum", "share": "mean", "latest": "last"}
    records = [
        LogRecord(dict.fromkeys(rules, flag), name="Flags", combine=rules)
        for flag in (True, False, True)
    ]
    assert combine(records) == {
        "any": True,
        "all": False,
        "count": 2,
        "share": 2 / 3,
        "latest": True,
    }
    assert [type(value) for value in combine(records).values()] == [bool, bool, int, float, bool]


def test_max_and_min_are_nan_when_any_value_is_in_any_order() -> None:
    for values in ([1.0, math.nan, 2.0], [math.nan, 1.0], [1.0, math.nan]):
        records = [_record(v, 1, v, v, v) for v in values]
        combined = combine(records)
        assert math.isnan(combined["norm"]) and math.isnan(combined["low"])


def test_combine_takes_records_of_one_kind() -> None:
    step = _step(1.0)
    other = EvalLogs(accuracy=torch.tensor(0.5))
    with pytest.raises(
        ValueError,
        match=r"can't combine EvalLogs\(accuracy\) with "
        r"StepLogs\(loss, grad_norm, tokens, finite, lr\) records",
    ):
        combine([step, other])
    with pytest.raises(ValueError, match="at least one record"):
        combine([])
    with pytest.raises(TypeError, match="not dict"):
        combine([{"loss": 1.0}])


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_csv_with_every_1_writes_a_header_and_a_row_per_record_at_once(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    sink = shapescript.sinks.csv(path)
    assert _lines(path) == []
    write(sink, _step(0.5, 2.0, 10))
    assert _lines(path) == ["loss,grad_norm,tokens,finite,lr", "0.5,2.0,10,True,0.5"]
    write(sink, _step(0.25, 1.0, 20))
    assert _lines(path)[2:] == ["0.25,1.0,20,True,0.5"]
    sink.close()
    assert len(_lines(path)) == 3


def test_csv_with_every_n_combines_n_records_per_row_and_close_writes_the_rest(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.csv"
    with shapescript.sinks.csv(str(path), every=2) as sink:
        for loss, norm in [(1.0, 1.0), (3.0, 4.0), (5.0, 2.0), (7.0, 3.0), (9.0, 0.5)]:
            write(sink, _step(loss, norm))
        assert _lines(path)[1:] == ["2.0,4.0,20,True,0.5", "6.0,3.0,20,True,0.5"]
    assert _lines(path)[1:] == ["2.0,4.0,20,True,0.5", "6.0,3.0,20,True,0.5", "9.0,0.5,10,True,0.5"]
    assert sink.closed


def test_csv_with_every_none_writes_a_row_per_flush(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    sink = shapescript.sinks.csv(path, every=None)
    for loss in (1.0, 2.0, 3.0):
        write(sink, _step(loss))
    assert _lines(path) == []
    sink.flush()
    sink.flush()
    write(sink, _step(10.0, 9.0))
    sink.flush()
    sink.close()
    assert _lines(path) == [
        "loss,grad_norm,tokens,finite,lr",
        "2.0,1.0,30,True,0.5",
        "10.0,9.0,10,True,0.5",
    ]


def test_a_sink_takes_one_kind_of_record(tmp_path: Path) -> None:
    with shapescript.sinks.csv(tmp_path / "log.csv") as sink:
        write(sink, _step(1.0))
        with pytest.raises(ValueError) as raised:
            write(sink, EvalLogs(accuracy=torch.tensor(0.5)))
    assert str(raised.value) == (
        "this sink writes StepLogs(loss, grad_norm, tokens, finite, lr) records, and was given "
        "EvalLogs(accuracy); give each kind of record a sink of its own"
    )


def test_a_closed_sink_takes_no_records_and_closing_twice_is_fine(tmp_path: Path) -> None:
    sink = shapescript.sinks.csv(tmp_path / "log.csv")
    sink.close()
    sink.close()
    sink.flush()
    with pytest.raises(ValueError, match="closed"):
        write(sink, _step(1.0))


def test_every_is_a_positive_int_or_none(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        shapescript.sinks.csv(tmp_path / "a.csv", every=0)
    with pytest.raises(TypeError, match="int or None"):
        shapescript.sinks.csv(tmp_path / "a.csv", every=True)
    with pytest.raises(TypeError, match="int or None"):
        shapescript.sinks.csv(tmp_path / "a.csv", every=2.0)
    assert not (tmp_path / "a.csv").exists()


def test_a_sink_takes_logs_records_from_python_too(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    with shapescript.sinks.csv(path) as sink:
        sink.write(EvalLogs(accuracy=torch.tensor(0.75)))
        with pytest.raises(TypeError, match="LogRecord"):
            sink.write({"accuracy": 0.5})
    assert _lines(path) == ["accuracy", "0.75"]


def test_tensorboard_without_the_package_is_an_import_error_saying_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)
    with pytest.raises(ImportError, match="needs the tensorboard package"):
        shapescript.sinks.tensorboard(tmp_path / "runs")


class FakeWriter:
    """torch.utils.tensorboard.SummaryWriter as far as the sink uses it."""

    made: list[FakeWriter] = []

    def __init__(self, log_dir: str) -> None:
        self.log_dir = log_dir
        self.scalars: list[tuple[str, Any, int]] = []
        self.flushes = 0
        self.closed = False
        FakeWriter.made.append(self)

    def add_scalar(self, tag: str, value: Any, global_step: int) -> None:
        self.scalars.append((tag, value, global_step))

    def flush(self) -> None:
        self.flushes += 1

    def close(self) -> None:
        self.closed = True


def test_tensorboard_writes_each_metric_at_the_step_of_each_rows_last_record(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = types.ModuleType("torch.utils.tensorboard")
    fake.SummaryWriter = FakeWriter  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", fake)
    FakeWriter.made.clear()
    with shapescript.sinks.tensorboard(tmp_path / "runs", every=2) as sink:
        for loss in (1.0, 3.0, 5.0, 7.0, 9.0):
            write(sink, _step(loss))
    (writer,) = FakeWriter.made
    assert writer.log_dir == str(tmp_path / "runs")
    losses = [(value, step) for tag, value, step in writer.scalars if tag == "loss"]
    assert losses == [(2.0, 1), (6.0, 3), (9.0, 4)]
    assert [tag for tag, _, step in writer.scalars if step == 1] == list(StepLogs._ss_kinds)
    assert ("finite", 1.0, 4) in writer.scalars
    assert writer.flushes == 1 and writer.closed
