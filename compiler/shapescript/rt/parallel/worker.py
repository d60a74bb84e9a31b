"""A worker process: one per device, running the tensor code the compiler made for it.

It is started fresh (spawn), without the controller's main module, joins the
torch.distributed process group, compiles the program's `.ss` file itself, and then runs
what the controller asks, one message at a time, keeping models and optimizer state.
"""

from __future__ import annotations

import datetime
import os
import sys
import traceback
from typing import Any


def main(
    rank: int,
    world: int,
    init_file: str,
    connection: Any,
    program: tuple[str, str, str],
    backend: str,
    timeout: float,
    search_path: list[str],
) -> None:
    """Serve the controller until it says stop or the pipe closes."""
    import torch

    from shapescript.rt.parallel import wire

    torch.set_num_threads(1)
    sys.path[:] = search_path
    os.environ.setdefault("SHAPESCRIPT_WORKER", str(rank))
    try:
        state = _start(rank, world, init_file, program, backend, timeout)
    except BaseException as error:  # noqa: BLE001 - every failure goes to the controller
        wire.send(connection, ("error", _portable(error), traceback.format_exc(), _where()))
        return
    wire.send(connection, ("ready", rank))
    _serve(state, connection)


class _State:
    def __init__(self, module: Any, device: Any) -> None:
        self.module = module
        self.names = module.__dict__
        self.device = device
        self.objects: dict[int, Any] = {}


def _start(rank, world, init_file, program, backend, timeout) -> _State:
    import torch
    import torch.distributed as dist

    from shapescript.rt import devices, gradients
    from shapescript.rt.compiling import compile_code, remember_lines
    from shapescript.rt.modes import resolve
    from shapescript.rt.parallel import collectives, controller

    path, text, devices_text = program
    spec = devices.parse_devices(devices_text)
    if spec.kind == "cuda":
        device = torch.device("cuda", spec.numbers[rank])
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    dist.init_process_group(
        backend,
        init_method=f"file://{init_file}",
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=timeout),
    )
    devices.declare_worker(devices_text, device)
    controller.ON_WORKER = True
    gradients.combine = collectives.combine_grads
    remember_lines(path, text)
    code = compile_code(text, path, modes=resolve(None, None))
    import types

    module = types.ModuleType("_ss_worker_program")
    module.__file__ = path
    exec(code, module.__dict__)
    return _State(module, device)


def _serve(state: _State, connection: Any) -> None:
    from shapescript.rt.parallel import collectives, wire

    while True:
        try:
            message = wire.receive(connection)
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "stop":
            return
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
                pulled = {number: _pull(state.objects[number]) for number in message[1]}
                wire.send(connection, ("ok", None, pulled))
                continue
            if kind == "call":
                _, name, args, kwargs, share, answer = message
                collectives.set_share(*share)
                function = state.names[name]
                args = [_value(state, arg) for arg in args]
                kwargs = {key: _value(state, value) for key, value in kwargs.items()}
                result = function(*args, **kwargs)
                wire.send(connection, ("ok", wire.encode(result) if answer else None, {}))
        except BaseException as error:  # noqa: BLE001 - every failure goes to the controller
            wire.send(connection, ("error", _portable(error), traceback.format_exc(), _where()))


def _value(state: _State, value: Any) -> Any:
    from shapescript.rt.parallel import wire

    if isinstance(value, wire.Handle):
        return state.objects[value.number]
    return wire.decode(value, state.names, state.device)


def _model(state: _State, class_name: str, fields: dict[str, Any]) -> Any:
    import torch

    cls = state.names[class_name]
    model = cls.__new__(cls)
    torch.nn.Module.__init__(model)
    for field in cls._ss_fields:
        value = fields[field.name].to(state.device)
        if field.kind == "param":
            model.register_parameter(field.name, torch.nn.Parameter(value))
        else:
            model.register_buffer(field.name, value)
    return model


def _optimizer(state: _State, model_number: int, name: str, lr, options, saved) -> Any:
    from shapescript.rt import optimizers

    make = getattr(optimizers, name)
    opt = make(state.objects[model_number], lr=lr, **options)
    opt.load_state_dict(saved)
    return opt


def _pull(value: Any) -> Any:
    """A model's fields, or optimizer state, as the controller copies them back."""
    from shapescript.rt.models import Model

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
