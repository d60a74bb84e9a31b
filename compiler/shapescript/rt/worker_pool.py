"""Loader worker processes: started fresh, once per dataset, and kept for its loops.

Workers are started as multiprocessing's "spawn" starts them, whatever the start method,
and without the main module: a worker imports this module, unpickles the dataset (which
imports the dataset's own module) and nothing else. Each worker has a pipe for tasks and
one for results, and a few batch-sized slots of shared memory it writes batches into, so a
result is a short message and no tensor is pickled per batch. Batch k goes to worker
k mod W, so results come back in order, two batches ahead per worker.

A worker that dies is noticed at once (its process's sentinel is waited on with its pipe)
and named with the item it was loading, which it writes to a shared int before each one.
A batch that a worker doesn't finish within `loader_timeout()` seconds is an error naming
that item, and the dataset's workers are stopped (a `__getitem__` that blocks would
otherwise hang the loop forever).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import traceback
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from multiprocessing import spawn
from typing import Any

import torch
import torch.multiprocessing  # noqa: F401 - registers how tensors travel between processes

from shapescript.records import replace
from shapescript.rt.checks import DTYPES
from shapescript.rt.errors import CheckFailure
from shapescript.rt.items import BatchLoader, RecordField, items_text, location

#: Batches each worker works on ahead of the loop.
DEPTH = 2
#: Datasets that can't be weakly referenced keep their workers while they're among the
#: last few used.
STRONG_LIMIT = 4

#: Seconds a worker may take over one batch unless `loader_timeout` says otherwise.
DEFAULT_TIMEOUT = 300.0

_setting: int | None = None
_timeout_setting: float | None = None


class LoaderError(CheckFailure, RuntimeError):
    """A loader worker process died (or couldn't be talked to) while loading a batch."""


def default_workers() -> int:
    """4, unless this process may use fewer CPUs."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return min(4, cpus)


def loader_workers(n: int | None = None) -> int:
    """Set how many worker processes load batches (0: the calling process loads them);
    return the number in effect. Workers already started for a dataset are replaced at its
    next loop."""
    global _setting
    if n is not None:
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"loader_workers: n is an int, not {type(n).__name__}")
        if n < 0:
            raise ValueError(f"loader_workers: n is 0 or more, not {n}")
        _setting = n
    return default_workers() if _setting is None else _setting


def loader_timeout(seconds: float | None = None) -> float:
    """Set how many seconds a loader worker process may take over one batch before the loop
    raises LoaderError and stops the dataset's workers; return the number in effect
    ($SHAPESCRIPT_LOADER_TIMEOUT, else 300). Loading in the calling process
    (`loader_workers(0)`) has no time limit."""
    global _timeout_setting
    if seconds is not None:
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            raise TypeError(f"loader_timeout: seconds is a number, not {type(seconds).__name__}")
        if not seconds > 0 or seconds == float("inf"):
            raise ValueError(f"loader_timeout: seconds is a positive number, not {seconds}")
        _timeout_setting = float(seconds)
    if _timeout_setting is not None:
        return _timeout_setting
    text = os.environ.get("SHAPESCRIPT_LOADER_TIMEOUT")
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise ValueError(
            f"$SHAPESCRIPT_LOADER_TIMEOUT is {text!r}, not a positive number of seconds"
        )
    return value


# ---------------------------------------------------------------- the worker process


def _worker_main(
    fields: tuple[RecordField, ...],
    record_name: str,
    tasks: multiprocessing.connection.Connection,
    results: multiprocessing.connection.Connection,
    current: Any,
) -> None:
    """A worker's life: unpickle the dataset, then load the batches it is asked for."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    try:
        dataset = pickle.loads(tasks.recv_bytes())
    except BaseException as error:  # noqa: BLE001 - reported to the loop, which falls back
        results.send(("failed", "".join(traceback.format_exception_only(error)).strip()))
        return
    loader = BatchLoader(dataset, fields, record_name)
    results.send(("ready",))
    slots: list[dict[str, torch.Tensor]] = []
    while True:
        try:
            message = tasks.recv()
        except (EOFError, OSError):
            message = None
        if message is None:
            # Nothing to flush or clean up: skip the interpreter's slow teardown of torch.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        if message[0] == "slots":
            slots = message[1]
            continue
        _kind, loop, number, slot, indices = message
        try:
            batch = loader.load(indices, current)
            for name, values in batch.items():
                slots[slot][name][: len(indices)].copy_(values)
        except Exception as error:  # noqa: BLE001 - sent to the loop, which raises it
            results.send(("error", loop, number, _portable(error, current.value)))
            continue
        results.send(("done", loop, number, len(indices)))


def _portable(error: Exception, index: int) -> Any:
    """The error as the loop will raise it: itself with its traceback as a note, if it can
    be pickled, else its text."""
    if not isinstance(error, CheckFailure):
        error.add_note(
            f"(in a loader worker process, loading item {index}; its traceback there:)\n"
            + "".join(traceback.format_exception(error)).rstrip()
        )
    try:
        pickle.dumps(error)
        return error
    except Exception:  # noqa: BLE001 - anything that can't be pickled travels as text
        return "".join(traceback.format_exception(error)).rstrip()


# ---------------------------------------------------------------- starting workers

_START = threading.Lock()


def _start_without_main(process: multiprocessing.process.BaseProcess) -> None:
    """Start a spawned process that doesn't import the main module: spawn's preparation
    data, which says how to import it, is given without those entries."""
    with _START:
        original = spawn.get_preparation_data

        def without_main(name: str) -> dict[str, Any]:
            data = original(name)
            data.pop("init_main_from_name", None)
            data.pop("init_main_from_path", None)
            return data

        spawn.get_preparation_data = without_main
        try:
            process.start()
        finally:
            spawn.get_preparation_data = original


class _MainReference(Exception):
    pass


class _Checker(pickle.Pickler):
    """Pickles a dataset, to see whether workers can have it: anything defined in the main
    module can't be unpickled there, since workers don't import it."""

    def reducer_override(self, obj: Any) -> Any:
        if (isinstance(obj, type) or callable(obj)) and getattr(
            obj, "__module__", None
        ) == "__main__":
            raise _MainReference(getattr(obj, "__qualname__", repr(obj)))
        return NotImplemented


def _pickled(dataset: Any) -> tuple[bytes | None, str | None]:
    """The dataset pickled, or why it can't be sent to workers."""
    import io

    buffer = io.BytesIO()
    try:
        _Checker(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(dataset)
    except _MainReference as found:
        return None, (
            f"it refers to `{found.args[0]}`, defined in the main script, which loader worker "
            "processes don't import; define it in a module of its own to load in workers"
        )
    except Exception as error:  # noqa: BLE001 - any failure to pickle means in-process
        return None, f"it can't be pickled ({type(error).__name__}: {error})"
    return buffer.getvalue(), None


class _Worker:
    """One worker process, the parent's ends of its pipes, and its batch slots."""

    def __init__(
        self,
        context: Any,
        fields: tuple[RecordField, ...],
        record_name: str,
    ) -> None:
        task_read, self.tasks = context.Pipe(duplex=False)
        self.results, result_write = context.Pipe(duplex=False)
        self.current = context.RawValue("q", -1)
        self.process = context.Process(
            target=_worker_main,
            args=(fields, record_name, task_read, result_write, self.current),
            daemon=True,
            name="shapescript-loader",
        )
        _start_without_main(self.process)
        task_read.close()
        result_write.close()
        self.slots: list[dict[str, torch.Tensor]] = []
        self.capacity = 0
        self.pending = 0

    def receive(self, timeout: float | None = None) -> tuple[Any, ...] | None:
        """The worker's next message; None if it has died, TimeoutError if it sends none
        within `timeout` seconds."""
        ready = multiprocessing.connection.wait(
            [self.results, self.process.sentinel], timeout=timeout
        )
        if not ready:
            raise TimeoutError
        if self.results in ready:
            try:
                return self.results.recv()
            except (EOFError, OSError):
                return None
        return None

    def give_slots(self, fields: tuple[RecordField, ...], size: int) -> None:
        """Make sure the worker's slots hold batches of `size` examples."""
        if self.capacity >= size:
            return
        self.slots = [
            {
                field.name: torch.empty(
                    (size, *field.shape), dtype=DTYPES[field.dtype]
                ).share_memory_()
                for field in fields
            }
            for _ in range(DEPTH)
        ]
        self.capacity = size
        self.tasks.send(("slots", self.slots))

    def exit_text(self) -> str:
        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.tasks.send(None)

    def close(self, wait: float = 2) -> None:
        """Wait up to `wait` seconds for the process to end, then end it, and wait for it."""
        self.process.join(timeout=wait)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        for end in (self.tasks, self.results):
            end.close()


class WorkerPool:
    """The worker processes loading one dataset's batches."""

    def __init__(
        self,
        dataset: Any,
        data: bytes,
        count: int,
        fields: tuple[RecordField, ...],
        record_name: str,
    ) -> None:
        self.length = len(dataset)
        self.dataset_name = type(dataset).__name__
        self.count = count
        self.fields = fields
        self.record_name = record_name
        self.busy = False
        self.broken = False
        self.loops = 0
        context = multiprocessing.get_context("spawn")
        # Domains are checked in the calling process; workers get the fields without them.
        plain = tuple(replace(field, domain_bad=None, domain_text=None) for field in fields)
        self.workers: list[_Worker] = []
        try:
            for _ in range(count):
                self.workers.append(_Worker(context, plain, record_name))
            # Sent once each has started, so that they import torch meanwhile.
            for worker in self.workers:
                worker.tasks.send_bytes(data)
        except BaseException:
            self.shutdown()
            raise

    def wait_ready(self) -> str | None:
        """Wait for every worker to have the dataset; why one couldn't, or None."""
        for worker in self.workers:
            message = worker.receive()
            if message is None:
                return f"a loader worker process {worker.exit_text()} while starting"
            if message[0] == "failed":
                return f"loader worker processes couldn't unpickle it ({message[1]})"
        return None

    def fits(self, dataset: Any, fields: tuple[RecordField, ...]) -> bool:
        return (
            not self.broken
            and self.count == loader_workers()
            and self.fields == fields
            and self.length == len(dataset)
        )

    def drained(self) -> bool:
        """Forget the results of a loop that stopped early; False if a worker has died."""
        for worker in self.workers:
            while worker.pending:
                try:
                    message = worker.receive(loader_timeout())
                except TimeoutError:
                    message = None
                if message is None:
                    self.broken = True
                    return False
                worker.pending -= 1
        return True

    def run(
        self, chunks: Sequence[list[int]], where: str
    ) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
        """Each batch's indices and fields, in order; the fields are views of a slot, good
        until the next batch is asked for."""
        self.busy = True
        try:
            self.loops += 1
            loop = self.loops
            size = max((len(chunk) for chunk in chunks), default=0)
            for worker in self.workers:
                worker.give_slots(self.fields, size)
            total = len(chunks)
            ahead = len(self.workers) * DEPTH
            for number in range(min(ahead, total)):
                self._send(loop, number, chunks[number])
            limit = loader_timeout()
            for number in range(total):
                worker = self.workers[number % len(self.workers)]
                try:
                    message = worker.receive(limit)
                except TimeoutError:
                    raise self._timed_out(worker, chunks[number], limit, where) from None
                if message is None:
                    self.broken = True
                    raise LoaderError(
                        f"a loader worker process {worker.exit_text()} while loading item "
                        f"{worker.current.value} of the dataset (for the batch of "
                        f"{items_text(chunks[number])})",
                        **location(where),
                    )
                worker.pending -= 1
                if message[1:3] != (loop, number):
                    self.broken = True
                    raise LoaderError(
                        f"a loader worker process answered for batch {message[1:3]} when "
                        f"batch {(loop, number)} was expected",
                        **location(where),
                    )
                if message[0] == "error":
                    error = message[3]
                    if isinstance(error, BaseException):
                        raise error
                    raise RuntimeError(error)
                slot = worker.slots[(number // len(self.workers)) % DEPTH]
                filled = message[3]
                yield chunks[number], {name: view[:filled] for name, view in slot.items()}
                if number + ahead < total:
                    self._send(loop, number + ahead, chunks[number + ahead])
        finally:
            self.busy = False

    def _timed_out(
        self, worker: _Worker, indices: list[int], limit: float, where: str
    ) -> LoaderError:
        """The error for a batch that took longer than the time limit, once every worker of
        the pool is stopped."""
        item = worker.current.value
        self.shutdown(wait=0)
        return LoaderError(
            f"loading item {item} of the dataset ({self.dataset_name}) took longer than the "
            f"time limit, {limit:g} s (for the batch of {items_text(indices)}); "
            "its loader worker processes were stopped. Look for what its __getitem__ waits "
            "on; shapescript.loader_timeout(seconds) sets the limit",
            **location(where),
        )

    def _send(self, loop: int, number: int, indices: list[int]) -> None:
        worker = self.workers[number % len(self.workers)]
        slot = (number // len(self.workers)) % DEPTH
        worker.tasks.send(("load", loop, number, slot, indices))
        worker.pending += 1

    def shutdown(self, wait: float = 2) -> None:
        """Stop every worker (ended after `wait` seconds if it doesn't stop) and wait for it."""
        for worker in self.workers:
            worker.stop()
        for worker in self.workers:
            worker.close(wait)
        self.workers = []
        self.broken = True


# ---------------------------------------------------------------- one pool per dataset


class _InProcess:
    """A dataset loaded in the calling process, and why (said once, in a RuntimeWarning)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


_entries: dict[int, WorkerPool | _InProcess] = {}
_strong: OrderedDict[int, Any] = OrderedDict()


def _forget(key: int) -> None:
    entry = _entries.pop(key, None)
    if isinstance(entry, WorkerPool):
        entry.shutdown()


def _remember(dataset: Any, entry: WorkerPool | _InProcess) -> None:
    key = id(dataset)
    _forget(key)
    _entries[key] = entry
    try:
        weakref.finalize(dataset, _forget, key)
    except TypeError:
        _strong[key] = dataset
        _strong.move_to_end(key)
        while len(_strong) > STRONG_LIMIT:
            old, _ = _strong.popitem(last=False)
            _forget(old)


def pool_for(
    dataset: Any,
    fields: tuple[RecordField, ...],
    record_name: str,
    *,
    stacklevel: int,
) -> WorkerPool | None:
    """The workers loading this dataset, started on first use; None to load it in the
    calling process (no workers wanted, or it can't be sent to them, which is warned of)."""
    count = loader_workers()
    if count == 0:
        return None
    key = id(dataset)
    entry = _entries.get(key)
    if key in _strong:
        _strong.move_to_end(key)
    if isinstance(entry, _InProcess):
        return None
    if isinstance(entry, WorkerPool):
        if entry.busy:
            return None
        if entry.fits(dataset, fields) and entry.drained():
            return entry
        _forget(key)
    data, reason = _pickled(dataset)
    pool = None
    if data is not None:
        try:
            pool = WorkerPool(dataset, data, count, fields, record_name)
        except Exception as error:  # noqa: BLE001 - the dataset can still load here
            reason = f"loader worker processes couldn't be started ({error})"
        else:
            reason = pool.wait_ready()
        del data
        if pool is not None and reason is not None:
            pool.shutdown()
            pool = None
    if pool is None:
        warnings.warn(
            f"the dataset ({type(dataset).__name__}) is loaded in this process, not in "
            f"loader worker processes: {reason}",
            RuntimeWarning,
            stacklevel=stacklevel + 1,
        )
        _remember(dataset, _InProcess(reason or ""))
        return None
    _remember(dataset, pool)
    return pool


def shutdown_all() -> None:
    """Stop every loader worker process (at exit, and for tests)."""
    for key in list(_entries):
        _forget(key)
    _strong.clear()


atexit.register(shutdown_all)
