"""A loop's steps on the workers don't wait for the controller: the controller posts a
step's call before it reads the answer of the step before, so the workers always have their
next call at hand. A record that a step returns for a sink is written once its answer is
read, in order, at the latest when the loop ends; an error of a step is raised one call
late, naming its call, and the call posted after it doesn't run."""

from __future__ import annotations

import copy
import pickle
import sys

import pytest
import torch
from torch.utils.data import TensorDataset

import shapescript
from shapescript.rt.parallel import controller, later
from tests.parallel.programs import alive, compiled, readme_on

LOOP = """
fn steps(mut m: Mlp, mut opt: AdamW[Mlp], train: Dataset[Digit], sink: LogSink, mode: Mode):
    for batch in train |> batches(8):
        sink.write(train_step(mut m, mut opt, batch, mode))
"""


class _Noting:
    """A sink that notes each record's loss and how many calls the controller had posted
    when it was written."""

    def __init__(self, program) -> None:
        self.program = program
        self.rows: list[tuple[int, float]] = []

    def write(self, record: dict) -> None:
        calls = self.program.calls if self.program is not None else 0
        self.rows.append((calls, record["loss"]))


def _dataset(count: int) -> TensorDataset:
    generator = torch.Generator().manual_seed(3)
    images = torch.rand(count, 784, generator=generator)
    return TensorDataset(images, torch.randint(0, 10, (count,), generator=generator))


def _losses(module, program) -> list[tuple[int, float]]:
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    sink = _Noting(program)
    module.steps(m, opt, _dataset(40), sink, shapescript.Eval)
    return sink.rows


def test_a_loops_next_step_is_posted_before_its_answer_is_read(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        one = compiled(readme_on("cpu", 8, LOOP), tmp_path / "one.ss")
        expected = [loss for _, loss in _losses(one, None)]
        two = compiled(readme_on("cpu[0 1]", 8, LOOP), tmp_path / "two.ss")
        program = two._ss_program
        try:
            rows = _losses(two, program)
        finally:
            program.stop()
    finally:
        torch.set_num_threads(threads)
    # Five steps: each record is written once the next step's call is posted (the first
    # call of train_step is answered at once), the last one when the loop ends.
    assert [calls for calls, _ in rows] == [1, 3, 4, 5, 5]
    assert len(rows) == len(expected)
    for step, ((_, got), want) in enumerate(zip(rows, expected, strict=True)):
        assert abs(got - want) <= 1e-5, f"step {step}: {got} vs {want}"


FAILING = """devices cpu[0 1]

dim D = 4

data Ex:
    x: [D]

logs Seen:
    calls: [] mean

extern fn counted(x: []) -> [] = "tests.parallel.counting.counted"

fn step(batch: [b] Ex) -> Seen:
    return Seen(calls=counted(mean(batch.x)))

fn steps(train: Dataset[Ex], sink: LogSink):
    for batch in train |> batches(2):
        sink.write(step(batch))
"""


class _Rows:
    def __init__(self) -> None:
        self.rows: list[float] = []

    def write(self, record: dict) -> None:
        self.rows.append(record["calls"])


def test_a_steps_error_is_raised_one_call_late_and_the_next_call_doesnt_run(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    module = compiled(FAILING, tmp_path / "failing.ss")
    program = module._ss_program
    sink = _Rows()
    try:
        with pytest.raises(RuntimeError, match="the third call fails") as caught:
            module.steps(TensorDataset(torch.ones(10, 4)), sink)
        pids = program.pids()
        # The workers go on, and the call posted after the failed one didn't run: this
        # is each worker's fourth call of `counted`.
        again = module.step({"x": torch.ones(2, 4)})
        assert float(again.calls) == 4.0
        assert program.pids() == pids
        assert all(alive(pid) for pid in pids)
    finally:
        program.stop()
        torch.set_num_threads(threads)
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "the step before: `step` (" in notes, notes
    assert "failing.ss:" in notes
    assert sink.rows == [1.0, 2.0]
    assert controller.ON_WORKER is False


LEAVING = (
    FAILING
    + """
fn first_step(train: Dataset[Ex], sink: LogSink) -> []:
    for batch in train |> batches(2):
        sink.write(step(batch))
        return 0.0
    return 1.0
"""
)


def test_a_loop_left_by_return_reads_its_last_step_and_the_next_call_raises_its_error(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    module = compiled(LEAVING, tmp_path / "leaving.ss")
    program = module._ss_program
    sink = _Rows()
    try:
        # Calls from Python are answered at once: the workers' first and second calls.
        assert float(module.step({"x": torch.ones(2, 4)}).calls) == 1.0
        assert float(module.step({"x": torch.ones(2, 4)}).calls) == 2.0
        # The loop's one step (each worker's third call, which fails) is posted, and the
        # loop is left by its `return` before the answer is read.
        assert float(module.first_step(TensorDataset(torch.ones(10, 4)), sink)) == 0.0
        assert program.unread is None
        with pytest.raises(RuntimeError, match="the third call fails"):
            module.step({"x": torch.ones(2, 4)})
        # The call that raised the held error didn't run: this is each worker's fourth.
        assert float(module.step({"x": torch.ones(2, 4)}).calls) == 4.0
    finally:
        program.stop()
        torch.set_num_threads(threads)
    assert sink.rows == []


SEEN = """devices cpu

logs Seen:
    calls: [] mean

fn seen(x: []) -> Seen:
    return Seen(calls=x)
"""


class _Answering:
    """A program whose one unread call answers with `answer` (or fails with `error`)."""

    def __init__(self, answer=None, error: BaseException | None = None) -> None:
        self.answer, self.error, self.record = answer, error, None

    def read_unread(self) -> None:
        if self.record is None:
            return
        record, self.record = self.record, None
        if self.error is not None:
            record._ss_fail(self.error)
            raise self.error
        record._ss_fill(self.answer)


def _placeholder(seen_class, program: _Answering):
    program.record = later.record(seen_class, program)
    return program.record


def test_a_placeholder_read_becomes_a_record_of_the_logs_class_itself(tmp_path, monkeypatch):
    module = compiled(SEEN, tmp_path / "seen.ss")
    # Importable by its name, as a program imported by the import hook is, for pickle.
    monkeypatch.setitem(sys.modules, module.__name__, module)
    answer = module.seen(torch.tensor(2.0))
    record = _placeholder(module.Seen, _Answering(answer))
    assert isinstance(record, module.Seen) and type(record) is not module.Seen
    assert float(record.calls) == 2.0
    assert type(record) is module.Seen
    assert vars(record) == vars(answer)
    copied = copy.deepcopy(_placeholder(module.Seen, _Answering(answer)))
    assert type(copied) is module.Seen and float(copied.calls) == 2.0
    pickled_text = pickle.dumps(_placeholder(module.Seen, _Answering(answer)))
    assert pickled_text == pickle.dumps(answer)
    pickled = pickle.loads(pickled_text)
    assert type(pickled) is module.Seen and float(pickled.calls) == 2.0


def test_a_failed_placeholder_raises_its_error_when_read_or_copied(tmp_path):
    module = compiled(SEEN, tmp_path / "seen.ss")
    record = _placeholder(module.Seen, _Answering(error=RuntimeError("the step failed")))
    with pytest.raises(RuntimeError, match="the step failed"):
        _ = record.calls
    with pytest.raises(RuntimeError, match="the step failed"):
        copy.copy(record)
