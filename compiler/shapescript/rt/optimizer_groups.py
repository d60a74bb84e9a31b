"""Param groups of optimizer state: `no_decay` and `lr_scale` into torch's param groups, and
torch's state dict numbered by field order whatever the groups.

Each group holds the params of one setting, in field order, the groups in the order of
their first params; a group's `weight_decay` is 0 where `no_decay` selects its params, and
its `lr_scale` is the factor its learning rate is the optimizer's times. With neither
option there is one group of every param, as before groups existed.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from shapescript import param_groups
from shapescript.param_groups import Param, Setting, Word
from shapescript.rt.errors import ShapeError

#: The key of a param group that holds its factor of the optimizer's learning rate.
LR_SCALE = "lr_scale"


def _text(option: str, value: Any) -> str:
    """An option as the text `.ss` programs write, from Python's forms of it too: a list of
    paths for `no_decay`, a dict of paths to factors for `lr_scale`."""
    if isinstance(value, str):
        return value
    paths = option == "no_decay" and isinstance(value, list | tuple)
    if paths and all(isinstance(item, str) for item in value):
        return " ".join(value)
    factors = option == "lr_scale" and isinstance(value, Mapping)
    if factors and all(isinstance(k, str) and _is_number(f) for k, f in value.items()):
        return " ".join(f"{key}={factor!r}" for key, factor in value.items())
    kinds = (
        "a string or a list of field paths"
        if option == "no_decay"
        else "a string or a dict of field paths to numbers"
    )
    raise TypeError(f"{option} is {kinds}, not {type(value).__name__}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def settings(
    name: str,
    model_type: type,
    paths: Sequence[str],
    params: Sequence[torch.Tensor],
    options: Mapping[str, Any],
) -> list[Setting]:
    """Each param's setting under `no_decay` and `lr_scale`; ValueError for a selector that is
    malformed, names no field (with the closest), selects nothing or disagrees with another."""
    model_name = model_type.__name__
    selectable = [Param(path, param.dim()) for path, param in zip(paths, params, strict=True)]
    words: list[Word] = []
    for option in param_groups.OPTIONS:
        value = options.get(option)
        if value is None:
            continue
        found, problems = param_groups.parse(option, _text(option, value))
        _refuse(name, model_name, problems)
        words += found
    buffers = tuple(
        field.name for field in getattr(model_type, "_ss_fields", ()) if field.kind == "buffer"
    )
    chosen, problems = param_groups.plan(selectable, words, model_name, buffers)
    _refuse(name, model_name, problems)
    return chosen


def _refuse(name: str, model_name: str, problems: list[param_groups.Problem]) -> None:
    if not problems:
        return
    problem = problems[0]
    message = f"{name}: {problem.message}"
    if problem.kind == "unknown":
        wrong = problem.message.split("`")[1]
        close = difflib.get_close_matches(wrong, problem.candidates, n=1, cutoff=0.6)
        if close:
            message += f"; did you mean `{close[0]}`?"
        else:
            message += f"; {param_groups.listed(problem.candidates, model_name)}"
    raise ValueError(message)


def torch_groups(
    params: Sequence[torch.nn.Parameter], chosen: list[Setting], weight_decay: float, lr: Any
) -> list[dict[str, Any]]:
    """The param groups for torch.optim: `lr` (a number, or a tensor for each group when
    capturable) times each group's factor."""
    groups = []
    for setting, indices in param_groups.grouped(chosen):
        group: dict[str, Any] = {
            "params": [params[index] for index in indices],
            "weight_decay": weight_decay if setting.decay else 0.0,
            "lr": scaled(lr, setting.lr_scale),
            LR_SCALE: setting.lr_scale,
        }
        groups.append(group)
    return groups


def scaled(lr: Any, scale: float) -> Any:
    """A group's learning rate: the optimizer's times the group's factor."""
    if isinstance(lr, torch.Tensor):
        return torch.tensor(float(lr) * scale, dtype=lr.dtype, device=lr.device)
    return lr * scale


def scale_of(group: Mapping[str, Any]) -> float:
    """A group's factor; state saved before groups existed has none, and means 1."""
    return group.get(LR_SCALE, 1.0)


def field_numbered(
    inner: dict[str, Any], params: Sequence[torch.Tensor], torch_params: list[torch.Tensor]
) -> dict[str, Any]:
    """Torch's state dict with each param numbered by its field (torch numbers them through
    the groups in turn)."""
    position = {id(param): index for index, param in enumerate(params)}
    field_of = [position[id(param)] for param in torch_params]
    return {
        "state": {field_of[index]: entry for index, entry in inner["state"].items()},
        "param_groups": [
            {**group, "params": [field_of[index] for index in group["params"]]}
            for group in inner["param_groups"]
        ],
    }


def torch_numbered(inner: dict[str, Any]) -> dict[str, Any]:
    """`field_numbered`'s state dict numbered as torch numbers it for groups of those params."""
    order = [index for group in inner["param_groups"] for index in group["params"]]
    torch_of = {field: index for index, field in enumerate(order)}
    return {
        "state": {
            torch_of[field]: entry for field, entry in inner["state"].items() if field in torch_of
        },
        "param_groups": [
            {**group, "params": [torch_of[field] for field in group["params"]]}
            for group in inner["param_groups"]
        ],
    }


def regroup(
    opt: torch.optim.Optimizer, params: Sequence[torch.nn.Parameter], inner: dict[str, Any]
) -> None:
    """Give `opt` the groups of params `inner` (`field_numbered`) has, each with the first
    group's settings until `opt.load_state_dict` sets the saved ones; its state stays."""
    wanted = [list(group["params"]) for group in inner["param_groups"]]
    position = {id(param): index for index, param in enumerate(params)}
    have = [[position[id(param)] for param in group["params"]] for group in opt.param_groups]
    if have == wanted:
        return
    every = sorted(index for group in wanted for index in group)
    if every != list(range(len(params))):
        raise ShapeError("the state's param groups don't hold each param of the model once")
    first = opt.param_groups[0]
    opt.param_groups = [
        {**first, "params": [params[index] for index in indices], "lr": _copied(first["lr"])}
        for indices in wanted
    ]


def _copied(value: Any) -> Any:
    return value.clone() if isinstance(value, torch.Tensor) else value


__all__ = [
    "LR_SCALE",
    "field_numbered",
    "regroup",
    "scale_of",
    "scaled",
    "settings",
    "torch_groups",
    "torch_numbered",
]
