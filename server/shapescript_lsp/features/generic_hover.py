"""Hover on a generic function: its type variables and what it calls on them."""

from __future__ import annotations

from shapescript.check.generics import calls_on_type_variables
from shapescript.check.program import Checked
from shapescript.check.type_variables import EITHER, MODEL


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
