"""The controller: starts a worker per device when the program first needs them, sends each
its part of a call's arguments, and gathers their results.

A compiled module on several devices binds each function that runs on the workers to
`Program.remote(...)`; calling it from the controller (Python, or a function that runs
there) is a call on every worker. Models and optimizer state are sent once and stay on the
workers; a model or optimizer a call changes (`mut`) becomes a handle (remote.py) that
copies the first worker's state back only when something reads it. A batch from a loop
over a dataset goes as its examples' indices, each worker loading its own part from its
copy of the dataset (batches.py); a batch from Python goes as each worker's part of its
tensors, and not again while a call passes the very same, unchanged tensors.
"""

from __future__ import annotations

import atexit
import contextlib
import linecache
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import time
import weakref
from multiprocessing.connection import wait
from typing import Any

import torch

from shapescript.rt.data import Batch
from shapescript.rt.errors import DeviceError
from shapescript.rt.logs import Logs
from shapescript.rt.models import Model
from shapescript.rt.optimizers import Optimizer
from shapescript.rt.parallel import batches, hosts, later, remote, returns, wire
from shapescript.rt.parallel import worker as worker_side
from shapescript.rt.parallel.batches import RemoteBatch
from shapescript.rt.parallel.errors import WorkerError
from shapescript.rt.parallel.remote import make_handle

#: True in a worker process, where functions run as they are compiled.
ON_WORKER = False
_DEFAULT_TIMEOUT = 600.0
#: Seconds the other workers get to answer once one has failed.
_GRACE = 5.0
#: Seconds a worker's watch thread gets to say where the worker is.
_ASK = 2.0
#: How many calls back a worker's late error can still be named by its function.
_REMEMBERED = 16
_timeout: float | None = None
#: Whether a loop's steps are posted before the answer of the step before is read.
pipelined = True
#: Every program with workers started, to stop them at exit.
_RUNNING: weakref.WeakSet[Program] = weakref.WeakSet()


def collective_timeout(seconds: float | None = None) -> float:
    """The seconds a worker waits for the others at a collective, for workers started
    afterwards; with no argument, what it is ($SHAPESCRIPT_COLLECTIVE_TIMEOUT, else 600)."""
    global _timeout
    if seconds is not None:
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds <= 0:
            raise ValueError(
                f"collective_timeout takes a positive number of seconds, not {seconds!r}"
            )
        _timeout = float(seconds)
    if _timeout is not None:
        return _timeout
    text = os.environ.get("SHAPESCRIPT_COLLECTIVE_TIMEOUT")
    if text:
        try:
            return float(text)
        except ValueError:
            raise ValueError(
                f"$SHAPESCRIPT_COLLECTIVE_TIMEOUT is {text!r}, not a number of seconds"
            ) from None
    return _DEFAULT_TIMEOUT


def split_sizes(total: int, count: int) -> list[int]:
    """A batch of `total` over `count` workers, as evenly as possible, the first ones
    taking one more: 64 over 3 is 22, 21, 21."""
    base, extra = divmod(total, count)
    return [base + (1 if index < extra else 0) for index in range(count)]


class _Answered(Exception):
    """A program's error that every worker answered with: the workers can go on."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class _Unread:
    """A loop's step whose answer isn't read yet: its call's number, the workers that
    answer it, what it runs, and the record it returns."""

    def __init__(self, number: int, loud: list[int], running: str | None, result: Any) -> None:
        self.number = number
        self.loud = loud
        self.running = running
        self.result = result


class _Worker:
    def __init__(self, rank: int, process: Any, connection: Any, watch: Any) -> None:
        self.rank = rank
        self.process = process
        self.connection = connection
        #: The pipe to the worker's watch thread, which says where the worker is.
        self.watch = watch


class Program:
    """One compiled module on several devices, in the controller."""

    def __init__(self, path: str, devices_text: str, names: dict[str, Any]) -> None:
        self.path = path
        self.devices_text = devices_text
        self.names = names
        self.workers: list[_Worker] = []
        self.count = len(devices_text[devices_text.index("[") + 1 : -1].split())
        #: The workers of every host, and this host's first one's global rank (hosts.py).
        self.world = self.count
        self.first = 0
        self.sent: dict[int, tuple[int, int]] = {}
        #: The models and optimizer state sent to the workers, by number and by id, while
        #: the program using them keeps them (`_dropped` forgets the others).
        self.objects: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        self.numbers: dict[int, int] = {}
        #: The numbers of objects the program no longer has, for the workers to drop.
        self.dropped: list[int] = []
        #: The objects the workers have changed since the controller's copy was made.
        self.stale: set[int] = set()
        #: Objects that were stale when the workers stopped without giving them back: why.
        self.lost: dict[int, str] = {}
        self._next = 0
        #: The last batch from Python each function's parameter had, which the workers
        #: keep: (axis, the tensors' references and versions, the split's sizes), by slot.
        self.kept: dict[str, tuple[Any, ...]] = {}
        #: The datasets sent to the workers, by id: (number, reference, length).
        self.datasets: dict[int, tuple[int, Any, int]] = {}
        self._folder: str | None = None
        self.timeout = _DEFAULT_TIMEOUT
        self.running: str | None = None
        #: The calls posted to the current workers, and what the last few were (by number
        #: modulo _REMEMBERED), to name a call whose error a worker sends late.
        self.calls = 0
        self.called: dict[int, str | None] = {}
        #: The loop's step whose answer is read once the next call is posted (later.py).
        self.unread: _Unread | None = None
        #: The logs class each function returned last time, by name: a loop's step of one
        #: is posted before the step before is answered.
        self.logs_classes: dict[str, type] = {}
        #: An error a quiet worker sent for a call after the one being read, by rank.
        self.ahead: dict[int, Any] = {}

    @property
    def sharded(self) -> bool:
        """Whether the program has `shard params` or `split H` (copying a model back
        gathers it on every worker)."""
        return bool(self.names.get("_ss_shard_params") or self.names.get("_ss_split_heads"))

    # ------------------------------------------------------------------ functions

    def remote(
        self,
        function: Any,
        name: str,
        split: dict[str, int | None],
        result_axis: int | None,
        muts: tuple[str, ...] = (),
        where: str = "",
    ) -> Any:
        """`function` as the controller calls it: on every worker, or as it is on one."""
        if ON_WORKER:
            return function
        import inspect

        parameters = list(inspect.signature(function).parameters)
        program = self

        def on_workers(*args: Any, **kwargs: Any) -> Any:
            bound = dict(zip(parameters, args, strict=False)) | kwargs
            return program.call(name, bound, split, result_axis, muts, where)

        on_workers.__name__ = function.__name__
        on_workers.__qualname__ = function.__qualname__
        on_workers.__doc__ = function.__doc__
        on_workers.__wrapped__ = function
        return on_workers

    def call(
        self,
        name: str,
        bound: dict[str, Any],
        split: dict[str, int | None],
        result_axis: int | None,
        muts: tuple[str, ...],
        where: str,
    ) -> Any:
        for value in bound.values():
            self._check_usable(value)
        later.raise_held()
        self.start()
        if self.dropped:
            dropped, self.dropped = self.dropped, []
            self._post_all([("drop", dropped)] * len(self.workers))
        count, first = self.count, self.first
        mine_only = slice(first, first + count)
        parts: list[dict[str, Any]] = [{} for _ in range(count)]
        whole = 0
        looped = False
        shares = [0] * count
        every = shares
        changed: list[tuple[int, Any]] = []
        for key, value in bound.items():
            if key == "_ss_pad" and whole and value:
                # The masks of a padded batch, split with it (see rt/padding.py).
                for rank, masks in enumerate(split_pads(value, every, whole)[mine_only]):
                    parts[rank][key] = masks
                continue
            if key in split and isinstance(value, RemoteBatch):
                looped = True
                dataset, indices, where_loop = value.__dict__["_ss_source"]
                number = self._send_dataset(dataset)
                every = split_sizes(len(indices), self.world)
                whole, shares = len(indices), every[mine_only]
                record = value.__dict__["_ss_record"]._ss_name
                start = sum(every[:first])
                for rank, size in enumerate(shares):
                    mine = indices[start : start + size].tobytes()
                    parts[rank][key] = wire.Part(number, mine, record, where_loop)
                    start += size
                continue
            if key in split:
                slot = f"{name}/{key}"
                tensors = _tensors_of(value)
                known = self.kept.get(slot)
                if known is not None and _unchanged(known, split[key], tensors):
                    # The workers have this very batch from the last call: not sent again.
                    every = known[3]
                    whole, shares = sum(every), every[mine_only]
                    for rank in range(count):
                        parts[rank][key] = wire.Again(slot)
                    continue
                pieces, every = _split(value, split[key], self.world)
                whole, shares = sum(every), every[mine_only]
                for rank in range(count):
                    parts[rank][key] = wire.Kept(slot, wire.encode(pieces[first + rank]))
                self.kept[slot] = _keeping(split[key], tensors, every)
                continue
            sent = self._send_object(value)
            if sent is not None:
                if key in muts:
                    changed.append((sent.number, value))
                for part in parts:
                    part[key] = sent
                continue
            encoded = wire.encode(value)
            for part in parts:
                part[key] = encoded
        self.running = f"`{name}` ({where})" if where else f"`{name}`"
        # From now on the workers' copies of what the call changes may be ahead, and if
        # the call fails they are all there is.
        for number, value in changed:
            make_handle(value, self, number)
            self.stale.add(number)
        # Across hosts, the first worker gathers every worker's part of a result.
        gather = result_axis is not None and self.world > count
        messages = []
        # The workers whose answer is read; the others answer only if they fail.
        loud = []
        for rank in range(count):
            share = (shares[rank], whole) if whole else (1, 1)
            answer: bool | str = rank == 0 or (result_axis is not None and not gather)
            if gather:
                answer = "gather" if rank == 0 else "gather-only"
            if answer in (True, "gather"):
                loud.append(rank)
            # Posted before the answer of the call before is read: not run if that failed.
            blind = self.unread is not None
            messages.append(("call", name, [], parts[rank], share, answer, blind))
        self.calls += 1
        self.called[self.calls % _REMEMBERED] = self.running
        self._post_all(messages)
        if self.unread is not None:
            self._read_unread(next_call=True)
        logs_class = self.logs_classes.get(name) if result_axis is None else None
        if pipelined and looped and logs_class is not None:
            # A loop's step: its record is read once the next call is posted.
            result = later.record(logs_class, self)
            self.unread = _Unread(self.calls, loud, self.running, result)
            later.unread(self)
            self.running = None
            return result
        try:
            answers = self._gather(loud)
        except BaseException:
            # A worker may not have kept what this call sent it.
            self.kept.clear()
            raise
        self.running = None
        cpu = torch.device("cpu")
        if result_axis is None:
            result = returns.restore(wire.decode(answers[0][1], self.names, cpu), self)
            if isinstance(result, Logs):
                self.logs_classes[name] = type(result)
            else:
                self.logs_classes.pop(name, None)
            return result
        if gather:
            results = [wire.decode(part, self.names, cpu) for part in answers[0][1]]
        else:
            results = [wire.decode(answer[1], self.names, cpu) for answer in answers]
        return _join(results, result_axis)

    # ------------------------------------------------------------------ objects

    def _send_dataset(self, dataset: Any) -> int:
        """The workers' number for `dataset`, sent to each of them the first time, and
        again when its length changes (a dataset is taken not to change while used)."""
        known = self.datasets.get(id(dataset))
        if known is not None and known[1]() is dataset and known[2] == len(dataset):
            return known[0]
        data, reason = batches.pickled(dataset)
        if data is None:
            raise WorkerError(f"the dataset can't be sent to the workers: {reason}")
        self._next += 1
        number = self._next
        forget = [("forget", known[0])] if known is not None else []
        for message in [*forget, ("dataset", number, data)]:
            self._post_all([message] * len(self.workers))
        batches.sent(dataset)
        self.datasets[id(dataset)] = (number, _reference(dataset), len(dataset))
        return number

    def _send_object(self, value: Any) -> wire.Handle | None:
        if isinstance(value, Model):
            kind = "model"
        elif isinstance(value, Optimizer):
            kind = "optimizer"
        else:
            return None
        self._check_usable(value)
        number = self.numbers.get(id(value))
        if number is None:
            self._next += 1
            number = self._next
            self.numbers[id(value)] = number
            self.objects[number] = value
            weakref.finalize(value, _dropped, weakref.ref(self), number, id(value))
        version = _version(value) if number not in self.stale else 0
        known = self.sent.get(number)
        if number not in self.stale and (known is None or known[1] != version):
            if kind == "model":
                fields = {k: v.detach().cpu() for k, v in remote.fields(value).items()}
                message = ("model", number, type(value).__name__, fields)
            else:
                owner = self._owner(value._params)
                lr = value.lr
                message = ("optimizer", number, owner, value.name, lr, {}, value.state_dict())
            self._post_all([message] * len(self.workers))
            self.sent[number] = (id(value), version)
        return wire.Handle(kind, number)

    def _owner(self, params: tuple[Any, ...]) -> int:
        for number, model in self.objects.items():
            if isinstance(model, Model) and number in self.sent:
                first = next(iter(torch.nn.Module.parameters(model)), None)
                if params and first is params[0]:
                    return number
        raise WorkerError(
            "optimizer state for a model the workers don't have: pass its model to a "
            "function on the workers first"
        )

    def _check_usable(self, value: Any) -> None:
        """WorkerError if `value` is a model or optimizer state whose workers' copy was
        lost."""
        number = self.numbers.get(id(value))
        if number is None or number not in self.lost or self.objects.get(number) is not value:
            return
        what = f"{value.type_text} state" if isinstance(value, Optimizer) else type(value).__name__
        raise WorkerError(
            f"this {what} was changed on the workers, and {self.lost[number]}: what the workers "
            "had is gone, and the copy here is out of date; make new ones, or load a checkpoint, "
            "to go on"
        )

    def read_unread(self) -> None:
        """Read the answer of a loop's step left unread, if there is one."""
        self._read_unread(next_call=False)

    def _read_unread(self, next_call: bool) -> None:
        """Read the answer of the loop's step left unread, fill its record in, and make
        the writes that waited for it; its error, if it failed, named as that step's (with
        `next_call`, posted since: the workers that failed don't run that one)."""
        unread, self.unread = self.unread, None
        if unread is None:
            return
        later.read(self)
        running, self.running = self.running, unread.running
        try:
            answers = self._gather(unread.loud, unread.number)
        except BaseException as error:
            self.kept.clear()
            unread.result._ss_fail(error)
            later.made()
            if isinstance(error, Exception):
                if next_call:
                    error.add_note(
                        f"this is the error of the step before: {unread.running}, whose "
                        "answer was read once this call was posted; this call didn't run"
                    )
                else:
                    error.add_note(f"this is the error of a loop's step: {unread.running}")
            raise
        finally:
            self.running = running
        cpu = torch.device("cpu")
        unread.result._ss_fill(returns.restore(wire.decode(answers[0][1], self.names, cpu), self))
        later.made()

    def sync(self, number: int) -> None:
        """Copy the first worker's object `number` back into the controller's, if it is
        ahead; WorkerError if the workers stopped before it could be."""
        if number in self.lost:
            self._check_usable(self.objects[number])
        self.read_unread()
        if number not in self.stale or not self.workers:
            self.stale.discard(number)
            return
        every = self.sharded  # with shard params, every worker gathers its pieces
        messages = [("pull", [number] if rank == 0 or every else []) for rank in range(self.count)]
        self._post_all(messages)
        answers = self._gather()
        value = self.objects[number]
        self.stale.discard(number)
        _copy_back(value, answers[0][2][number])
        self.sent[number] = (id(value), _version(value))

    # ------------------------------------------------------------------ workers

    def start(self) -> None:
        """Start the workers, if they aren't running: DeviceError first if the machine
        doesn't have the devices."""
        if self.workers:
            return
        from shapescript.rt import devices
        from shapescript.rt.worker_pool import _start_without_main

        spec = devices.parse_devices(self.devices_text)
        if spec.kind == "cuda":
            have = torch.cuda.device_count() if torch.cuda.is_available() else 0
            wanted = max(spec.numbers or (0,))
            if wanted >= have:
                raise DeviceError(
                    f"`{spec.text}` (declared by {self.path}) can't be used: this machine has "
                    f"{have} CUDA GPU{'s' if have != 1 else ''}"
                )
        backend = hosts.backend_for(spec.kind)
        timeout = collective_timeout()
        self.timeout = timeout
        several = hosts.current()
        # Each host refuses a split its workers can't share by itself, before meeting the others.
        hosts.check_split(self.names, self.count, 1 if several is None else several.count)
        if several is None:
            self._folder = tempfile.mkdtemp(prefix="ss-workers-")
            rendezvous: Any = os.path.join(self._folder, "rendezvous")
        else:
            rendezvous = hosts.worker_rendezvous(spec.text, timeout)
            self.world = self.count * several.count
            self.first = self.count * several.rank
        text = "".join(linecache.getlines(self.path)) or _read(self.path)
        context = multiprocessing.get_context("spawn")
        for rank in range(self.count):
            mine, theirs = context.Pipe()
            watch, watched = context.Pipe()
            process = context.Process(
                target=_worker_main,
                args=(
                    self.first + rank,
                    self.world,
                    rendezvous,
                    theirs,
                    (self.path, text, self.devices_text),
                    backend,
                    timeout,
                    list(sys.path),
                    watched,
                    rank,
                ),
                daemon=True,
                name=f"shapescript-worker-{rank}",
            )
            _start_without_main(process)
            theirs.close()
            watched.close()
            self.workers.append(_Worker(rank, process, mine, watch))
        _RUNNING.add(self)
        self.running = "starting"
        try:
            self._gather()
        finally:
            self.running = None

    def _post_all(self, messages: list[Any]) -> None:
        """Each worker its message; a message sent to several is pickled once."""
        pickled: dict[int, bytes] = {}
        for worker, message in zip(self.workers, messages, strict=True):
            data = pickled.get(id(message))
            if data is None:
                data = pickled[id(message)] = wire.dumps(message)
            try:
                worker.connection.send_bytes(data)
            except (BrokenPipeError, OSError):
                self._failed(worker)

    def _gather(self, loud: list[int] | None = None, number: int | None = None) -> list[Any]:
        """Each worker's answer, in order. For a call (the last one posted, or call
        `number`), only the `loud` workers answer unless one fails (the others' answers are
        then ("ok", None, {})). WorkerError as soon as a worker stops; once one has failed,
        the others get a few seconds to answer, and those that don't are named with where
        each worker was. Ctrl-C stops the workers too."""
        try:
            return self._answers(loud, number)
        except _Answered as answered:
            # Every worker answered, so they can go on; the error is the program's.
            raise answered.error from None
        except BaseException as error:
            if self.workers:
                text = str(error)
                first = text.splitlines()[0].rstrip(":") if text else type(error).__name__
                why = first if isinstance(error, WorkerError) else f"{first} {self._while()}"
                self.stop(keep=False, why=f"the workers were stopped: {why}")
            raise

    def _while(self) -> str:
        return f"while running {self.running or 'nothing'}"

    def _answers(self, loud: list[int] | None, number: int | None = None) -> list[Any]:
        answers: dict[int, Any] = {}
        # A call's errors carry its number; anything else's, the next call's.
        current = self.calls if loud is not None else self.calls + 1
        current = current if number is None else number
        pending = {w.connection: w for w in self.workers if loud is None or w.rank in loud}
        quiet = {w.connection: w for w in self.workers if w.connection not in pending}
        syncing: set[Any] = set()
        sentinels = {w.process.sentinel: w for w in self.workers}
        deadline: float | None = None
        # Errors quiet workers sent for this call while an earlier one was read.
        early = [
            (self.workers[rank].connection, self.ahead.pop(rank))
            for rank in sorted(self.ahead)
            if self.ahead[rank][4] <= current
        ]
        while pending:
            if early:
                ready = [early[0][0]]
            else:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = wait(list(pending) + list(quiet) + list(sentinels), timeout=left)
                if not ready:
                    break
            for item in ready:
                if item in pending or item in quiet:
                    worker = pending.get(item) or quiet[item]
                    try:
                        answer = early.pop(0)[1] if early else wire.receive(item)
                    except (EOFError, OSError):
                        self._failed(worker)
                    if answer[0] == "error" and answer[4] > current:
                        # A quiet worker's error in a call posted after this one.
                        self.ahead[worker.rank] = answer
                        quiet.pop(item, None)
                        continue
                    if answer[0] == "error" and answer[4] < current:
                        self._late(worker, answer)
                    if answer[0] == "synced":
                        pending.pop(item, None)
                        answers.setdefault(worker.rank, ("ok", None, {}))
                        continue
                    answers.setdefault(worker.rank, answer)
                    if item not in syncing and item not in quiet:
                        del pending[item]
                    failed = answer[0] == "error"
                    if failed and quiet:
                        # The quiet workers say how their part went once it is done: a
                        # "synced" after the error they may have sent.
                        for other in quiet.values():
                            self._post(other, ("sync",))
                        syncing.update(quiet)
                        pending.update(quiet)
                        quiet.clear()
                    # Once one worker has answered, the others have the collective
                    # timeout to answer too (a few seconds, if it failed): one that
                    # doesn't is stuck, at a collective or outside one.
                    # (Starting, which compiles the program in each, varies too much.)
                    if failed or self.running != "starting":
                        wait_for = _GRACE if failed else self.timeout + _GRACE
                        soon = time.monotonic() + wait_for
                        deadline = soon if deadline is None else min(deadline, soon)
                elif item in sentinels:
                    worker = sentinels.pop(item)
                    # A quiet worker is needed alive for the calls to come.
                    if worker.connection in pending or worker.connection in quiet:
                        self._failed(worker)
        errors = {rank: a for rank, a in answers.items() if a[0] == "error"}
        silent = sorted(w.rank for w in pending.values())
        if not errors and not silent:
            return [answers.get(rank, ("ok", None, {})) for rank in range(len(self.workers))]
        own = [
            rank
            for rank, answer in errors.items()
            if answer[3] is None and answer[1] != worker_side.OTHERS_FAILED
        ]
        if self.world > self.count:
            # Every worker here waiting at a collective, or one that lost its connection
            # to another host's: a worker of another host stopped, or its host did.
            lost = [rank for rank, answer in errors.items() if _lost_connection(answer[1])]
            if silent and not own:
                # A worker here hasn't answered yet: on a busy machine it may not have
                # noticed. A connection closed by its other end says that a process
                # stopped, and this host's are alive (one that stopped was named already);
                # a timeout may be the silent worker's own doing.
                lost = [rank for rank in lost if _closed_by_peer(errors[rank][1])]
            if lost or (not silent and not own):
                raise WorkerError(self._other_host_text(errors, min(lost or errors)))
        if silent and not own:
            raise WorkerError(self._timeout_text(answers, silent))
        rank = min(own or errors)
        if silent:
            # One worker's own error left the others waiting at a collective: they can't
            # go on, so they are stopped, and the error is raised as on one device.
            kind = type(errors[rank][1]).__name__
            self.stop(keep=False, why=f"worker {rank} failed ({kind}) {self._while()}")
        raised, text = errors[rank][1], errors[rank][2]
        if isinstance(raised, BaseException):
            raised.add_note(f"raised on worker {rank}:\n{text.rstrip()}")
            if silent:
                raise raised
            raise _Answered(raised)
        raise WorkerError(f"worker {rank}: {raised}\n{text}")

    def _timeout_text(self, answers: dict[int, Any], silent: list[int]) -> str:
        names = ", ".join(f"worker {rank}" for rank in silent)
        lines = [
            f"a worker failed while running {self.running or 'nothing'}, and {names} didn't finish:"
        ]
        for rank in range(len(self.workers)):
            answer = answers.get(rank)
            if answer is None:
                where = self._whereabouts(self.workers[rank])
                lines.append(f"  worker {rank}: didn't answer" + (f"; {where}" if where else ""))
            elif answer[0] == "error" and answer[3]:
                lines.append(f"  worker {rank}: was waiting for the other workers at {answer[3]}")
            elif answer[0] == "error":
                lines.append(f"  worker {rank}: failed: {str(answer[1]).splitlines()[0]}")
            else:
                lines.append(f"  worker {rank}: finished")
        return "\n".join(lines)

    def _other_host_text(self, errors: dict[int, Any], rank: int) -> str:
        text = str(errors[rank][1])
        first = text.splitlines()[0] if text else type(errors[rank][1]).__name__
        at = f" at {errors[rank][3]}" if errors[rank][3] else ""
        return (
            f"the workers on another host stopped answering {self._while()}: worker "
            f"{self.first + rank} here was waiting for them{at} ({first}); this host's "
            "workers are stopped, so run the program again on every host (from a checkpoint)"
        )

    def _whereabouts(self, worker: _Worker) -> str | None:
        """Where a worker that didn't answer is, as its watch thread says, or None if that
        doesn't answer either (the process is stopped, or stuck holding the GIL)."""
        try:
            worker.watch.send_bytes(b"?")
            if worker.watch.poll(_ASK):
                return pickle.loads(worker.watch.recv_bytes())
        except (EOFError, OSError):
            pass
        return None

    def _post(self, worker: _Worker, message: Any) -> None:
        try:
            worker.connection.send_bytes(wire.dumps(message))
        except (BrokenPipeError, OSError):
            self._failed(worker)

    def _late(self, worker: _Worker, answer: Any) -> None:
        """WorkerError for a quiet worker's error in a call whose result was already
        returned: the workers no longer agree, so they are stopped."""
        _, raised, text, _where, number = answer
        first = str(raised).splitlines()[0] if str(raised) else type(raised).__name__
        running = None
        if self.calls - number < _REMEMBERED:
            running = self.called.get(number % _REMEMBERED)
        call = f"running {running}" if running else "an earlier call"
        what = f"worker {worker.rank} failed {call} after its result was returned ({first})"
        if self.world > self.count and _lost_connection(raised):
            # Its group lost a worker of another host: that host stopped, not this one.
            text_of_host = self._other_host_text({worker.rank: answer}, worker.rank)
            self.stop(keep=False, why=what)
            raise WorkerError(text_of_host)
        self.stop(keep=False, why=what)
        raise WorkerError(
            f"{what}; the other workers were stopped, and the models on the devices are gone: "
            "those the workers had changed raise WorkerError when used; make new ones, or load "
            f"a checkpoint, to go on\n{text}"
        )

    def _settle(self) -> None:
        """Wait until every worker has finished the calls it was sent, raising any error
        a quiet worker had."""
        self.read_unread()
        if self.workers and self.calls:
            self._post_all([("sync",)] * len(self.workers))
            self._gather()

    def _failed(self, worker: _Worker) -> None:
        worker.process.join(timeout=1)
        what = f"worker {worker.rank} stopped ({_how(worker.process.exitcode)}) {self._while()}"
        self.stop(keep=False, why=what)
        raise WorkerError(
            f"{what}; the other workers were stopped, and the models on the devices are gone: "
            "those the workers had changed raise WorkerError when used; make new ones, or load "
            "a checkpoint, to go on"
        )

    def stop(self, keep: bool = True, why: str | None = None) -> None:
        """Stop every worker and wait for it; nothing of the program outlives this. With
        `keep`, the controller's models and optimizer state first get the workers'; without,
        those the workers had changed are lost (`why` says what happened), and using them
        raises WorkerError."""
        if keep and self.workers:
            self._settle()
            for number in sorted(self.stale):
                self.sync(number)
        if self.workers:
            reason = why or f"the workers were stopped {self._while()}"
            self.lost.update(dict.fromkeys(self.stale, reason))
        self.stale.clear()
        self.calls = 0
        self.called.clear()
        self.ahead.clear()
        unread, self.unread = self.unread, None
        if unread is not None:
            unread.result._ss_fail(WorkerError(f"{why or 'the workers were stopped'}"))
        later.forget(self)
        workers, self.workers = self.workers, []
        for worker in workers:
            with contextlib.suppress(BrokenPipeError, OSError):
                worker.connection.send(("stop",))
        for worker in workers:
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=5)
            worker.connection.close()
            worker.watch.close()
        self.sent.clear()
        self.dropped.clear()
        self.datasets.clear()
        self.kept.clear()
        if self._folder is not None:
            import shutil

            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def pids(self) -> list[int]:
        """The workers' process ids (for tests that check none is left)."""
        return [worker.process.pid for worker in self.workers]


#: What Gloo's and NCCL's errors say when a peer's connection is gone.
_LOST = ("Connection reset by peer", "Connection closed by peer", "gloo/transport", "NCCL")


def _closed_by_peer(error: Any) -> bool:
    """Whether a worker's error is a connection that the process at its other end closed."""
    return any(mark in str(error) for mark in _LOST[:2])


def _lost_connection(error: Any) -> bool:
    """Whether a worker's error is its group losing another worker (on another host)."""
    import torch.distributed as dist

    if isinstance(error, dist.DistError):
        return True
    return isinstance(error, RuntimeError | str) and any(mark in str(error) for mark in _LOST)


def _dropped(program_reference: Any, number: int, key: int) -> None:
    """Forget the object `number`, which the program no longer has (`key` was its id): the
    workers drop their copy before the next call."""
    program = program_reference()
    if program is None:
        return
    if program.numbers.get(key) == number:
        del program.numbers[key]
    remote.forget(key, number)
    program.sent.pop(number, None)
    program.stale.discard(number)
    program.lost.pop(number, None)
    if program.workers:
        program.dropped.append(number)


def _reference(value: Any) -> Any:
    """A weak reference to `value`, or a strong one if it can't have weak ones."""
    try:
        return weakref.ref(value)
    except TypeError:
        return lambda: value


def _version(value: Any) -> int:
    """A number that changes when the object's tensors are changed in place."""
    if isinstance(value, Model):
        return sum(t._version for t in remote.fields(value).values())
    total = remote.steps(value)
    for state in value.torch.state.values():
        total += sum(t._version for t in state.values() if isinstance(t, torch.Tensor))
    return total


def _copy_back(value: Any, pulled: Any) -> None:
    if isinstance(value, Model):
        with torch.no_grad():
            for name, tensor in remote.fields(value).items():
                tensor.copy_(pulled[name])
    else:
        value.load_state_dict(pulled)


def _split(value: Any, axis: int | None, count: int) -> tuple[list[Any], list[int]]:
    """A batch, or a tensor along `axis`, in `count` parts: 22/21/21 for 64 over 3."""
    if isinstance(value, Batch):
        fields = value._fields()
    elif isinstance(value, dict):
        fields = value
    else:
        fields = None
    if fields is not None:
        first = next(iter(fields.values()))
        sizes = split_sizes(int(first.shape[0]), count)
        pieces = [dict[str, Any]() for _ in range(count)]
        for name, tensor in fields.items():
            for rank, piece in enumerate(torch.split(tensor, sizes, 0)):
                # A copy of its own: a view would be pickled with the whole batch's storage.
                pieces[rank][name] = piece.clone()
        return pieces, sizes
    if not isinstance(value, torch.Tensor):
        return [value] * count, [1] * count
    along = axis or 0
    sizes = split_sizes(int(value.shape[along]), count)
    return [piece.clone() for piece in torch.split(value, sizes, along)], sizes


def split_pads(pads: dict[str, Any], sizes: list[int], whole: int) -> list[Any]:
    """Each worker's masks, as (symbol, mask) pairs: those of the split batch cut with it,
    the others whole."""
    from shapescript.rt.padding import split_pads as cut

    along = {k: v for k, v in pads.items() if v is not None and v.shape[0] == whole}
    pieces = cut(along, sizes)
    return [tuple((k, wire.encode(piece.get(k, v))) for k, v in pads.items()) for piece in pieces]


def _tensors_of(value: Any) -> list[torch.Tensor] | None:
    """The tensors of a batch, a dict of tensors or a tensor; None for anything else."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, Batch):
        value = value._fields()
    if isinstance(value, dict) and all(isinstance(v, torch.Tensor) for v in value.values()):
        return list(value.values())
    return None


def _keeping(axis: int | None, tensors: list[torch.Tensor] | None, sizes: list[int]) -> Any:
    if tensors is None:
        return None
    references = [weakref.ref(tensor) for tensor in tensors]
    return (axis, references, [tensor._version for tensor in tensors], sizes)


def _unchanged(known: Any, axis: int | None, tensors: list[torch.Tensor] | None) -> bool:
    """Whether these are the very tensors last sent, unchanged since."""
    if known is None or tensors is None or known[0] != axis or len(known[1]) != len(tensors):
        return False
    return all(
        reference() is tensor and tensor._version == version
        for reference, version, tensor in zip(known[1], known[2], tensors, strict=True)
    )


def _join(results: list[Any], axis: int) -> Any:
    if isinstance(results[0], torch.Tensor):
        return torch.cat(results, axis)
    return results[0]


def _how(exitcode: int | None) -> str:
    if exitcode is None:
        return "it didn't answer"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def _worker_main(*args: Any) -> None:
    from shapescript.rt.parallel.worker import main

    main(*args)


@atexit.register
def _stop_all() -> None:
    for program in list(_RUNNING):
        program.stop(keep=False)
