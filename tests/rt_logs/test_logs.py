"""Logs records: making them, writing them to a sink as Python numbers, and `print`."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
import torch

from shapescript.rt.errors import ShapeError
from shapescript.rt.logs import LogRecord, Logs, check_sink, flush, print_values, write
from tests.rt_logs.records import Counts, StepLogs
from tests.rt_training.nets import Tiny


class Collect:
    """A sink of one's own: keeps what it is written."""

    def __init__(self) -> None:
        self.written: list[Any] = []
        self.flushes = 0

    def write(self, record: Any) -> None:
        self.written.append(record)

    def flush(self) -> None:
        self.flushes += 1


def _step(**changes: Any) -> StepLogs:
    values: dict[str, Any] = {
        "loss": torch.tensor(0.25),
        "grad_norm": torch.tensor(1.5),
        "tokens": torch.tensor(64),
        "finite": torch.tensor(True),
        "lr": 3e-4,
    }
    return StepLogs(**{**values, **changes})


def test_a_record_keeps_its_values_as_given_and_shows_them_as_numbers() -> None:
    loss = torch.tensor(0.25, requires_grad=True) * 2
    record = _step(loss=loss)
    assert record.loss is loss
    assert record.lr == 3e-4
    assert repr(record) == ("StepLogs(loss=0.5, grad_norm=1.5, tokens=64, finite=True, lr=0.0003)")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: StepLogs(1.0), "takes its metrics by name"),
        (lambda: StepLogs(loss=1.0), "missing 'grad_norm', 'tokens', 'finite', 'lr'"),
        (lambda: _step(los=1.0), "it has no metric 'los'"),
    ],
)
def test_every_metric_is_given_by_name(call: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        call()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"loss": torch.zeros(3)},
            "metric `loss` is a single number, a [] tensor, not one of shape (3,)",
        ),
        ({"lr": torch.tensor(0.1)}, "metric `lr` is a host float, not a tensor"),
        ({"lr": "fast"}, "metric `lr` is a number, not str"),
        ({"finite": 1}, "metric `finite` is a bool, not int"),
        ({"tokens": 2.5}, "metric `tokens` is an int, not float"),
    ],
)
def test_a_value_that_doesnt_fit_its_metric_is_a_shape_error(changes: dict, message: str) -> None:
    with pytest.raises(ShapeError) as raised:
        _step(**changes)
    assert str(raised.value) == f"StepLogs: {message}"


def test_records_cant_be_changed() -> None:
    record = _step()
    with pytest.raises(AttributeError, match="can't be changed"):
        record.loss = torch.tensor(1.0)  # type: ignore[misc]


def test_declaring_a_record_checks_its_metrics() -> None:
    with pytest.raises(TypeError, match="combines by 'median'"):
        type("Bad", (Logs,), {"_ss_name": "Bad", "_ss_metrics": (("loss", "median", "f32"),)})
    with pytest.raises(TypeError, match="two metrics are named 'loss'"):
        type(
            "Twice",
            (Logs,),
            {"_ss_metrics": (("loss", "mean", "f32"), ("loss", "max", "f32"))},
        )
    with pytest.raises(TypeError, match="isn't a number's dtype"):
        type("Text", (Logs,), {"_ss_metrics": (("name", "last", "str"),)})


def test_write_gives_the_sink_python_numbers_after_each_metrics_dtype() -> None:
    sink = Collect()
    write(
        sink,
        _step(
            loss=torch.tensor(0.5, dtype=torch.bfloat16),
            tokens=torch.tensor(7, dtype=torch.int32),
            finite=torch.tensor(False),
            lr=1,
        ),
    )
    (record,) = sink.written
    assert isinstance(record, LogRecord)
    assert record == {"loss": 0.5, "grad_norm": 1.5, "tokens": 7, "finite": False, "lr": 1.0}
    assert [type(value) for value in record.values()] == [float, float, int, bool, float]
    assert list(record) == ["loss", "grad_norm", "tokens", "finite", "lr"]
    assert record.name == "StepLogs"
    assert record.combine == {
        "loss": "mean",
        "grad_norm": "max",
        "tokens": "sum",
        "finite": "min",
        "lr": "last",
    }


def test_numbers_for_tensor_metrics_and_host_metrics_are_converted_too() -> None:
    sink = Collect()
    write(sink, _step(loss=1, tokens=True, finite=True))
    write(sink, Counts(epoch=3, seen=128, done=False))
    first, second = sink.written
    assert (first["loss"], first["tokens"], first["finite"]) == (1.0, 1, True)
    assert type(first["loss"]) is float and type(first["tokens"]) is int
    assert second == {"epoch": 3, "seen": 128, "done": False}
    assert second.name == "Counts"


def test_write_takes_only_logs_records() -> None:
    with pytest.raises(TypeError, match="takes a logs record, not dict"):
        write(Collect(), {"loss": 1.0})


def test_a_log_record_pickles_with_its_name_and_rules() -> None:
    sink = Collect()
    write(sink, _step())
    copy = pickle.loads(pickle.dumps(sink.written[0]))
    assert copy == sink.written[0]
    assert (copy.name, copy.combine) == (sink.written[0].name, sink.written[0].combine)


def test_flush_calls_the_sinks_flush_only_when_it_has_one() -> None:
    sink = Collect()
    flush(sink)
    assert sink.flushes == 1

    class WriteOnly:
        def write(self, record: Any) -> None:
            pass

    flush(WriteOnly())


def test_check_sink_wants_a_callable_write_and_names_the_parameter() -> None:
    check_sink(Collect(), "train.ss:4:9", "sink")
    with pytest.raises(ShapeError) as raised:
        check_sink([], "train.ss:4:9", "sink", function="fit")
    error = raised.value
    assert (error.path, error.line, error.column, error.parameter) == ("train.ss", 4, 9, "sink")
    assert str(error) == (
        "train.ss:4:9: in fn fit, argument for parameter `sink`: "
        "expected a LogSink, an object with a write method, got list"
    )

    class NotCallable:
        write = None

    with pytest.raises(ShapeError):
        check_sink(NotCallable(), "train.ss:4:9", "sink")


def test_print_copies_tensors_to_the_cpu_and_shows_numbers(capsys: pytest.CaptureFixture) -> None:
    weights = torch.tensor([1.0, 2.0], requires_grad=True)
    print_values("loss", torch.tensor(0.5), 3, True, weights * 2, _step())
    assert capsys.readouterr().out == (
        "loss 0.5 3 True tensor([2., 4.]) "
        "{'loss': 0.25, 'grad_norm': 1.5, 'tokens': 64, 'finite': True, 'lr': 0.0003}\n"
    )


def test_print_shows_a_model_as_it_reprs(capsys: pytest.CaptureFixture) -> None:
    model = Tiny.init(seed=0)
    print_values(model)
    assert capsys.readouterr().out == repr(model) + "\n"
    print_values()
    assert capsys.readouterr().out == "\n"
