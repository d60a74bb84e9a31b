"""The training built-ins (`value_and_grad`, optimizers, schedules, modes): which rule
types a call of each. The argument rules they share are in `training_arguments.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    UNKNOWN,
    Type,
)
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg


def call(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """Type a call of one of the training built-ins."""
    from shapescript.check.bodies import gradients, modes, optimizers
    from shapescript.check.bodies.mutation import check_builtin_args

    if name != "update" and not check_builtin_args(checker, name, args):
        return UNKNOWN
    if name == "value_and_grad":
        return gradients.value_and_grad(checker, args, node)
    if name in ("Train", "Eval"):
        return modes.call(checker, name, args, node)
    return optimizers.call(checker, name, args, node)
