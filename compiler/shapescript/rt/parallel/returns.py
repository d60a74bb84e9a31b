"""Models and optimizer state that a function on the workers returns.

A worker's models and optimizer state are objects of its own copy of the program, which the
controller can't unpickle, so a result sends what they hold instead: a model's fields
(whole, gathered from every worker with `shard params` or `split H`), an optimizer's state
dict and which model it updates. One the controller sent goes back as its number. The
controller then makes its own objects of them, as `load` makes them from a checkpoint: a
model of the program's class, and optimizer state bound to the model it updates (one of the
call's arguments, or a model returned with it; else a stand-in, as `load` gives state
loaded without its model).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from shapescript.rt.models import Model, params_of
from shapescript.rt.optimizers import TYPE_NAMES, Optimizer
from shapescript.rt.parallel import wire


class Sent:
    """A model or optimizer state the controller sent, returned as it is."""

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        self.number = number

    def __reduce__(self):
        return (Sent, (self.number,))


class ModelState:
    """A model made on the workers: its class's name and its whole fields."""

    __slots__ = ("class_name", "fields")

    def __init__(self, class_name: str, fields: dict[str, Any]) -> None:
        self.class_name = class_name
        self.fields = fields

    def __reduce__(self):
        return (ModelState, (self.class_name, self.fields))


class OptimizerState:
    """Optimizer state made on the workers: its model's class name, its whole state dict,
    and the model it updates: ("sent", number), ("returned", position among the result's
    models), or None for one that isn't returned."""

    __slots__ = ("class_name", "owner", "state")

    def __init__(self, class_name: str, state: dict[str, Any], owner: Any) -> None:
        self.class_name = class_name
        self.state = state
        self.owner = owner

    def __reduce__(self):
        return (OptimizerState, (self.class_name, self.state, self.owner))


def _leaves(value: Any) -> list[Any]:
    """The values inside tuples, lists and dicts, in order (a result's types bound how deep
    they nest)."""
    found: list[Any] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple | list):
            pending.extend(reversed(item))
        elif isinstance(item, dict):
            pending.extend(reversed(list(item.values())))
        else:
            found.append(item)
    return found


def _rebuilt(value: Any, convert: Callable[[Any], Any]) -> Any:
    if isinstance(value, tuple):
        return tuple(_rebuilt(item, convert) for item in value)
    if isinstance(value, list):
        return [_rebuilt(item, convert) for item in value]
    if isinstance(value, dict):
        return {key: _rebuilt(item, convert) for key, item in value.items()}
    return convert(value)


def _updates(opt: Optimizer, model: Model) -> bool:
    params = params_of(model)
    return len(params) == len(opt._params) and all(
        mine is theirs for mine, theirs in zip(params, opt._params, strict=True)
    )


def _declared_name(cls: type) -> str:
    from shapescript.rt.parallel.sharding import _declared

    return _declared(cls).__name__


def portable(result: Any, objects: dict[int, Any], pull: Callable[[Any], Any]) -> Any:
    """A worker's result with its models and optimizer state replaced by what they hold.
    Every worker calls this, in the same order, since `pull` may gather (shard params)."""
    leaves = _leaves(result)
    if not any(isinstance(leaf, Model | Optimizer) for leaf in leaves):
        return result
    numbers = {id(value): number for number, value in objects.items()}
    made = [leaf for leaf in leaves if isinstance(leaf, Model) and id(leaf) not in numbers]

    def convert(value: Any) -> Any:
        number = numbers.get(id(value))
        if number is not None and isinstance(value, Model | Optimizer):
            return Sent(number)
        if isinstance(value, Model):
            return ModelState(_declared_name(type(value)), wire.encode(pull(value)))
        if isinstance(value, Optimizer):
            owner: Any = None
            for number, model in objects.items():
                if isinstance(model, Model) and _updates(value, model):
                    owner = ("sent", number)
            for position, model in enumerate(made):
                if _updates(value, model):
                    owner = ("returned", position)
            state = wire.encode(pull(value))
            return OptimizerState(_declared_name(value.model_type), state, owner)
        return value

    return _rebuilt(result, convert)


def restore(result: Any, program: Any) -> Any:
    """The controller's objects for a result `portable` made."""
    leaves = _leaves(result)
    if not any(isinstance(leaf, Sent | ModelState | OptimizerState) for leaf in leaves):
        return result
    from shapescript.rt.checkpoints import OptimizerType, _model_from, _optimizer_from, _stand_in

    cpu = torch.device("cpu")
    models: dict[int, Model] = {}
    for leaf in leaves:
        if isinstance(leaf, ModelState):
            fields = wire.decode(leaf.fields, program.names, cpu)
            models[id(leaf)] = _model_from(program.names[leaf.class_name], fields, cpu)
    made = list(models.values())

    def convert(value: Any) -> Any:
        if isinstance(value, Sent):
            return program.objects[value.number]
        if isinstance(value, ModelState):
            return models[id(value)]
        if isinstance(value, OptimizerState):
            cls = program.names[value.class_name]
            model = None
            if value.owner is not None and value.owner[0] == "sent":
                model = program.objects.get(value.owner[1])
            elif value.owner is not None:
                model = made[value.owner[1]]
            if not isinstance(model, Model):
                model = _stand_in(cls, cpu)
            state = wire.decode(value.state, program.names, cpu)
            name = state["optimizer"]
            declared = OptimizerType(TYPE_NAMES[name], cls)
            return _optimizer_from(declared, {"optimizer": name, "state": state}, model)
        return value

    return _rebuilt(result, convert)
