"""A worker process: one per device, running the tensor code the compiler made for it.

It is started fresh (spawn), without the controller's main module, joins the
torch.distributed process group, compiles the program's `.ss` file itself, and then runs
what the controller asks, one message at a time, keeping models and optimizer state.
"""

from __future__ import annotations

import datetime
import os
import pickle
import sys
import traceback
from typing import Any

#: The function this worker is running for the controller, or None while it waits.
running: str | None = None


def main(
    rank: int,
    world: int,
    rendezvous: str | tuple[str, int, str],
    connection: Any,
    program: tuple[str, str, str],
    backend: str,
    timeout: float,
    search_path: list[str],
    watch: Any = None,
    local: int | None = None,
) -> None:
    """Serve the controller until it says stop or the pipe closes. `rank` is the worker's
    in the group of every host's workers, `local` its device's on this host; `rendezvous`
    is the group's file on one host, or host 0's store (address, port, prefix) on several."""
    import torch

    from shapescript.rt.parallel import wire

    torch.set_num_threads(1)
    sys.path[:] = search_path
    os.environ.setdefault("SHAPESCRIPT_WORKER", str(rank))
    if watch is not None:
        _watch(watch, program[0])
    try:
        local = rank if local is None else local
        state = _start(rank, world, rendezvous, program, backend, timeout, local)
    except BaseException as error:  # noqa: BLE001 - every failure goes to the controller
        # An error before any call is the first call's (see _call_of).
        failed = ("error", _portable(error), traceback.format_exc(), _where(), _call_of("", 0))
        wire.send(connection, failed)
        return
    wire.send(connection, ("ready", rank))
    _serve(state, connection)


class _State:
    def __init__(self, module: Any, device: Any) -> None:
        self.module = module
        self.names = module.__dict__
        self.device = device
        self.objects: dict[int, Any] = {}
        #: The last part of each function's parameter sent from Python, by slot.
        self.kept: dict[str, Any] = {}
        #: The datasets the controller sent, by number.
        self.datasets: dict[int, Any] = {}
        #: Whether this is its host's first worker, the one whose answers are read.
        self.first_here = True


def _start(rank, world, rendezvous, program, backend, timeout, local) -> _State:
    import torch
    import torch.distributed as dist

    from shapescript.rt import data, devices, gradients
    from shapescript.rt.compiling import compile_code, remember_lines
    from shapescript.rt.modes import resolve
    from shapescript.rt.parallel import collectives, controller, deferral, sharding

    path, text, devices_text = program
    spec = devices.parse_devices(devices_text)
    if spec.kind == "cuda":
        device = torch.device("cuda", spec.numbers[local])
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    if isinstance(rendezvous, str):
        joined: dict[str, Any] = {"init_method": f"file://{rendezvous}"}
    else:
        from shapescript.rt.parallel import hosts

        joined = {"store": hosts.join(*rendezvous, timeout)}
    dist.init_process_group(
        backend,
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=timeout),
        **joined,
    )
    devices.declare_worker(devices_text, device)
    # A worker loads its parts of batches itself, never through loader processes of its own.
    data.loader_workers(0)
    controller.ON_WORKER = True
    gradients.combine = collectives.combine_grads
    gradients.seeded = collectives.seeded
    gradients.deferral = deferral
    remember_lines(path, text)
    # The controller's devices, for a file compiled with `devices=` rather than a line.
    code = compile_code(text, path, modes=resolve(None, None), devices=devices_text)
    import types

    module = types.ModuleType("_ss_worker_program")
    module.__file__ = path
    exec(code, module.__dict__)
    sharding.setup(module.__dict__)
    state = _State(module, device)
    state.first_here = local == 0
    return state


def _watch(connection: Any, path: str) -> None:
    """Answer the controller's "where are you?" from a thread of its own, so that a worker
    busy outside ShapeScript's collectives (a long extern fn, an endless loop) can still
    say where it is."""
    import threading

    main_thread = threading.main_thread().ident

    def serve() -> None:
        while True:
            try:
                connection.recv_bytes()
                connection.send_bytes(pickle.dumps(whereabouts(main_thread, path)))
            except (EOFError, OSError):
                return

    threading.Thread(target=serve, name="shapescript-watch", daemon=True).start()


def whereabouts(thread: int | None, path: str) -> str:
    """Where the thread is, by the innermost `.ss` location on its stack: "it was idle",
    or "it was running `f` at model.ss:12:5"."""
    if running is None:
        return "it was idle"
    frame = sys._current_frames().get(thread) if thread is not None else None
    while frame is not None:
        code = frame.f_code
        if code.co_filename == path:
            positions = list(code.co_positions())
            line, _, column, _ = positions[frame.f_lasti // 2]
            line = frame.f_lineno if line is None else line
            column = 0 if column is None else column
            return f"it was running `{code.co_name}` at {path}:{line}:{column + 1}"
        frame = frame.f_back
    return f"it was running `{running}`"


def _serve(state: _State, connection: Any) -> None:
    """Answer each message that asks for an answer. A call this worker needn't answer
    (nothing of its result is read here) is answered only if it fails; "sync" then asks
    whether it did, once the calls before it are done. Each error says which call (by
    count) it belongs to, so that one the controller reads late isn't taken for a later
    call's. A call posted "blind" (in a loop's steps, before the controller read the answer
    of the one before) doesn't run when that one failed here: the controller raises that
    one's error, as if the loop had stopped there. Nor does a call whose model, optimizer
    state or dataset (sent ahead of it) failed to load here: that error, which carries the
    call's number, is this worker's one answer to the call."""
    global running
    from shapescript.rt.parallel import collectives, wire

    #: The calls received so far: the number of the current (or, between calls, next) one.
    calls = 0
    #: Whether the last call, or what was sent since, failed.
    failed = False
    #: Whether what was sent ahead of the next call failed (its error is that call's).
    failed_ahead = False
    while True:
        running = None
        try:
            message = wire.receive(connection)
        except (EOFError, OSError):
            return
        kind = message[0]
        running = kind
        if kind == "stop":
            return
        if kind == "sync":
            wire.send(connection, ("synced", calls))
            continue
        try:
            if kind == "model":
                _, number, class_name, fields = message
                state.objects[number] = _model(state, class_name, fields)
                continue
            if kind == "optimizer":
                _, number, model_number, name, lr, options, saved = message
                state.objects[number] = _optimizer(state, model_number, name, lr, options, saved)
                continue
            if kind == "pull":
                pulled = _pulled(state, message[1])
                wire.send(connection, ("ok", None, pulled))
                continue
            if kind == "dataset":
                _, number, data = message
                state.datasets[number] = pickle.loads(data)
                continue
            if kind == "forget":
                state.datasets.pop(message[1], None)
                continue
            if kind == "drop":
                for number in message[1]:
                    state.objects.pop(number, None)
                continue
            if kind == "call":
                from shapescript.rt.parallel import returns, sharding

                _, name, args, kwargs, share, answer, blind = message
                calls += 1
                if (blind and failed) or failed_ahead:
                    failed_ahead = False
                    continue
                failed = True  # until it returns
                running = name
                collectives.set_share(*share)
                function = state.names[name]
                args = [_value(state, arg) for arg in args]
                kwargs = _arguments(state, kwargs)
                result = sharding.returned(function(*args, **kwargs))
                if answer or sharding.laid_out_here():
                    # Models and optimizer state as what they hold (gathered whole by every
                    # worker when laid out over them).
                    result = returns.portable(result, state.objects, _pull)
                encoded = wire.encode(result) if answer else None
                if answer in ("gather", "gather-only"):
                    every = _gathered(encoded)
                    encoded = every if answer == "gather" else None
                if answer in (True, "gather"):
                    wire.send(connection, ("ok", encoded, {}))
                failed = False
        except _OthersFailed:
            wire.send(connection, ("error", OTHERS_FAILED, "", None, _call_of(kind, calls)))
        except BaseException as error:  # noqa: BLE001 - every failure goes to the controller
            failed = True
            failed_ahead = kind in _AHEAD
            text = traceback.format_exc()
            answer = ("error", _portable(error), text, _where(), _call_of(kind, calls))
            wire.send(connection, answer)


#: What the controller sends ahead of a call, without waiting for an answer.
_AHEAD = frozenset({"model", "optimizer", "dataset", "forget", "drop"})


def _call_of(kind: str, calls: int) -> int:
    """The number of the call an error belongs to: the one running, or for what the
    controller sends ahead of a call (a model, a dataset), the next one."""
    return calls if kind == "call" else calls + 1


def _gathered(encoded: Any) -> list[Any]:
    """Every worker's part of a result, by global rank (across hosts, where this host's
    controller has only its own workers' parts)."""
    import torch.distributed as dist

    parts: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(parts, encoded)
    return parts


#: A worker's answer when another worker couldn't load its part of a batch.
OTHERS_FAILED = "another worker couldn't load its part of the batch"


class _OthersFailed(Exception):
    pass


def _arguments(state: _State, kwargs: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments here: each batch part loaded from this worker's copy of its
    dataset. Unless every part comes from a TensorDataset kept whole (checked when it was
    kept), the workers then agree that each has its part, so that none starts the step
    when one of them can't."""
    from shapescript.rt.parallel import wire

    agree = any(
        isinstance(value, wire.Part) and not _kept(state, value) for value in kwargs.values()
    )
    failure: BaseException | None = None
    out: dict[str, Any] = {}
    try:
        for key, value in kwargs.items():
            out[key] = _part(state, value) if isinstance(value, wire.Part) else _value(state, value)
    except BaseException as error:  # noqa: BLE001 - raised once the workers agree
        if not agree:
            raise
        failure = error
    if agree:
        import torch
        import torch.distributed as dist

        flag = torch.tensor([0 if failure is None else 1], dtype=torch.int32, device=state.device)
        dist.all_reduce(flag)
        if failure is not None:
            raise failure
        if int(flag.item()):
            raise _OthersFailed
    return out


def _kept(state: _State, part: Any) -> bool:
    """Whether the part's dataset is a TensorDataset kept whole on this worker's device."""
    return _prepared(state, part) is not None


def _prepared(state: _State, part: Any) -> Any:
    """The part's TensorDataset as kept on this worker's device, or None."""
    from shapescript.rt import tensor_datasets
    from shapescript.rt.domains import value_checks_on

    dataset = state.datasets[part.number]
    if not tensor_datasets.is_plain(dataset):
        return None
    record = state.names[part.record]
    prepared = tensor_datasets.prepare(dataset, record._ss_fields, state.device, value_checks_on())
    return prepared if prepared.fields is not None else None


def _part(state: _State, part: Any) -> Any:
    import numpy as np
    import torch

    from shapescript.rt.data import Batch
    from shapescript.rt.parallel.batches import load_part

    indices = np.frombuffer(part.indices, dtype=np.int64)
    record = state.names[part.record]
    prepared = _prepared(state, part)
    if prepared is not None:
        # Gathered straight from the kept tensors: checked when they were kept.
        # An empty part is one item's fields cut to none of their rows.
        chosen = torch.from_numpy(indices.copy() if len(indices) else np.zeros(1, np.int64))
        fields = next(prepared.batches(chosen, len(chosen), len(chosen)))
        if not len(indices):
            fields = {name: value[:0] for name, value in fields.items()}
        return Batch._made(record, fields, prepared.value_checks)
    return load_part(state.datasets[part.number], indices, record, part.where)


def _value(state: _State, value: Any) -> Any:
    from shapescript.rt.parallel import wire

    if isinstance(value, wire.Handle):
        return state.objects[value.number]
    if isinstance(value, wire.Again):
        return state.kept[value.slot]
    if isinstance(value, wire.Kept):
        state.kept.pop(value.slot, None)
        decoded = state.kept[value.slot] = wire.decode(value.value, state.names, state.device)
        return decoded
    from shapescript.rt.parallel import sharding

    return sharding.received(wire.decode(value, state.names, state.device))


def _model(state: _State, class_name: str, fields: dict[str, Any]) -> Any:
    """A model the controller sent, its fields (the held models' by their paths, `h.0.w`)
    on this worker's device."""
    from shapescript.rt.models import build
    from shapescript.rt.parallel import sharding

    cls = state.names[class_name]
    model = build(cls, lambda path, _field: fields[path].to(state.device))
    return sharding.laid_out(model)


def _optimizer(state: _State, model_number: int, name: str, lr, options, saved) -> Any:
    from shapescript.rt import optimizers
    from shapescript.rt.parallel import sharding

    make = getattr(optimizers, name)
    model = state.objects[model_number]
    opt = make(model, lr=lr, **options)
    opt.load_state_dict(sharding.saved_for(model, saved))
    return opt


def _pulled(state: _State, numbers: list[int]) -> dict[int, Any]:
    """The objects the controller copies back; with shard params every worker gathers, and
    only the first answers with them."""
    found = {number: _pull(state.objects[number]) for number in numbers}
    return found if state.first_here else {}


def _pull(value: Any) -> Any:
    """A model's fields, or optimizer state, as the controller copies them back."""
    from shapescript.rt.models import Model
    from shapescript.rt.parallel import sharding

    whole = sharding.pulled(value)
    if whole is not None:
        return whole
    if isinstance(value, Model):
        return {name: tensor.detach().cpu() for name, tensor in value.state_dict().items()}
    return value.state_dict()


def _where() -> str | None:
    """The `.ss` location of the collective this worker was waiting at, if any."""
    from shapescript.rt.parallel import collectives

    where, collectives.failed_at = collectives.failed_at, None
    return where


def _portable(error: BaseException) -> Any:
    """The error itself when it pickles, else its text."""
    import pickle

    try:
        pickle.dumps(error)
        return error
    except Exception:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"
