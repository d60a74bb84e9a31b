"""What every export does before tracing: check the file, find the function, and check
it as an exported function if it isn't marked `export fn`."""

from __future__ import annotations

from shapescript.check.algebra.types import ModelType
from shapescript.check.exports import export_diagnostics
from shapescript.check.program import Checked
from shapescript.syntax import ast


class NoSuchFunction(ValueError):
    """`--fn` names no function of the file, or the file doesn't have exactly one export fn."""


def choose_function(checked: Checked, name: str | None) -> str:
    """The function to export: `name`, or the file's only `export fn`."""
    functions = [item.item for item in checked.items if isinstance(item.item, ast.FnDecl)]
    if name is not None:
        if not any(fn.name == name for fn in functions):
            known = ", ".join(f"`{fn.name}`" for fn in functions) or "none"
            raise NoSuchFunction(f"no function `{name}` in the file (its functions: {known})")
        return name
    exported = [fn.name for fn in functions if fn.export]
    if len(exported) != 1:
        which = ", ".join(f"`{fn}`" for fn in exported) if exported else "none"
        raise NoSuchFunction(
            f"the file has {len(exported)} export fns ({which}): say which with --fn"
        )
    return exported[0]


def is_marked(checked: Checked, name: str) -> bool:
    """Whether `name` is declared `export fn`."""
    return any(
        isinstance(item.item, ast.FnDecl) and item.item.name == name and item.item.export
        for item in checked.items
    )


def baked_model(checked: Checked, name: str) -> str | None:
    """The model type whose fields the program of `name` holds as its own parameters, or
    None. An unmarked function whose first parameter is a model is exported as --hf
    checks it: the model is baked in, as torch.export does with an nn.Module's state, and
    the other parameters are the inputs. An `export fn` keeps E1705 for a model."""
    if is_marked(checked, name):
        return None
    signature = checked.signatures.get(name)
    params = getattr(signature, "params", None) or []
    if params and isinstance(params[0].type, ModelType):
        return params[0].type.name
    return None


def problems(checked: Checked, name: str) -> list:
    """The file's errors, and the export check's for `name` when it isn't marked."""
    found = list(checked.errors)
    if not is_marked(checked, name):
        model_first = baked_model(checked, name) is not None
        found.extend(
            diag
            for diag in export_diagnostics(checked, [name], model_first=model_first)
            if diag.is_error
        )
    return found
