"""Generic functions in the editor: hover lists a generic function's type variables and
what it calls on them; completion marks one that a model lacks a function for."""

from __future__ import annotations

from shapescript.check.algebra.types import ModelType
from shapescript.check.bodies.generics import calls_on_type_variables
from shapescript.check.declarations.type_variables import EITHER, MODEL
from shapescript.check.program import Checked


def generic_summary(checked: Checked, name: str) -> str:
    """Markdown listing a generic function's type variables, each with what it stands
    for, and the functions its body calls with a value of one first; "" for another fn."""
    signature = checked.signatures.get(name)
    if signature is None or not getattr(signature, "is_generic", False):
        return ""
    item = next((item for item in checked.items if item.item is signature.decl), None)
    variables = ", ".join(
        f"`{variable}` ({_kind(kind)})" for variable, kind in signature.type_variables.items()
    )
    lines = [f"Generic function of {variables}: each call checks an instance for its types."]
    called = calls_on_type_variables(item, signature) if item is not None else []
    if called:
        lines.append(
            "Calls on them: "
            + ", ".join(f"`{function}`" for function in called)
            + ", which each type must have."
        )
    return "\n\n".join(lines)


def _kind(kind: str) -> str:
    if kind == MODEL:
        return "a model"
    if kind == EITHER:
        return "a model or a data record"
    return "a data record"


def missing_for(checked: Checked, name: str, model: str) -> list[str]:
    """The functions the generic function `name` calls on its type variables, directly
    or through the file's other generic functions, that have no version taking `model`
    first: calling it with one would be E2311."""
    missing: dict[str, None] = {}
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        signature = checked.signatures.get(current)
        item = next((i for i in checked.items if i.item is getattr(signature, "decl", None)), None)
        if item is None:
            continue
        for called in calls_on_type_variables(item, signature):
            other = checked.signatures.get(called)
            if getattr(other, "is_generic", False):
                pending.append(called)
            elif not _takes(checked, called, model):
                missing.setdefault(called, None)
    return list(missing)


def _takes(checked: Checked, name: str, model: str) -> bool:
    overloads = checked.overloads.get(name)
    if overloads:
        return model in overloads
    signature = checked.signatures.get(name)
    params = getattr(signature, "params", None)
    return bool(params) and isinstance(params[0].type, ModelType) and params[0].type.name == model
