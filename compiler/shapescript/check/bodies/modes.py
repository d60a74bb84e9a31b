"""Modes: `Train(seed=…)`, `Eval`, and the Mode parameters of random operations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import fixes
from shapescript.check.algebra.types import MODE, UNKNOWN, ModeType, Type
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg


def call(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`Train(seed=s)` is a Mode; `Eval(...)` is E0303, since Eval is a Mode already."""
    from shapescript.check.bodies.training_arguments import host_argument, match_named

    if name == "Eval":
        checker.reporter.report(
            "E0303",
            "`Eval` is a mode already, written without parentheses",
            node.span,
            "called here",
            help="write `Eval`",
            fixes=fixes.replace(node.span, "Eval", "Write `Eval`"),
        )
        return UNKNOWN
    matched = match_named(
        checker, "Train", args, node, ("seed",), required=("seed",), keyword=("seed",)
    )
    if matched is None or not host_argument(checker, "Train", "seed", matched["seed"], "int"):
        return UNKNOWN
    return MODE


def name_value(checker: BodyContext, node: ast.Name) -> Type | None:
    """`Eval` as a value is a Mode; `Train` alone is E0303. None for other names."""
    if node.name == "Eval":
        return MODE
    if node.name == "Train":
        checker.reporter.report(
            "E0303",
            "`Train` makes a mode when called with its seed: `Train(seed=s)`",
            node.span,
            "no seed",
        )
        return UNKNOWN
    return None


def missing_code(param_type: Type) -> str:
    """The code for an argument left out: E1201 for a Mode, E0406 for anything else."""
    return "E1201" if isinstance(param_type, ModeType) else "E0406"
