"""Calls between compiled functions, which skip the checks the checker already proved.

A function's argument checks are for callers from Python: a call from another compiled
function of the same module passes values the checker proved to fit. Such a call goes to
the callee's unchecked copy, `_ss_in_<name>`, generated at the end of the module: the
same body, with the argument count, model, tensor, host and value checks left out (the
sizes the body uses are read as with `checks never`). Its code carries the function's
own name, so a traceback reads as one through the checked function.

Where no copy can be made (a recorded step, a stub, an instance of another file's
function, a program on several devices, whose functions the controller rebinds), the
copy's name is bound to the checked function itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.codegen import padding
from shapescript.codegen.context import ModuleContext, Unsupported
from shapescript.codegen.emit import SourceBuilder

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator
    from shapescript.codegen.instances import Compiled

PREFIX = "_ss_in_"


def copy_name(python: str) -> str:
    """The unchecked copy's name of the compiled function `python`."""
    return PREFIX + python.removeprefix("_ss_")


def applies(context: ModuleContext) -> bool:
    """Whether this module's calls between its functions go to unchecked copies: where
    it checks anything, runs on the runtime, on one device."""
    if context.standalone or context.foreign is not None:
        return False
    placement = getattr(context.checked, "placement", None)
    if placement is not None and placement.several:
        return False
    return context.checks != "never" or context.value_checks != "never"


#: The function a notebook cell's statements are compiled into (notebook.combine).
NOTEBOOK_CELL = "_ss_cell"


def called(gen: FunctionGenerator, python: str) -> str:
    """What a compiled caller calls for this module's function `python`: its unchecked
    copy, asked for here; another module's function (`mod.f`) as it is. A notebook
    cell's statements call the checked function: their values come from Python (`as`
    gives a shape, not a device), and an earlier cell's function is the one they call."""
    context = gen.context
    if "." in python or not applies(context) or gen.decl.name == NOTEBOOK_CELL:
        return python
    context.trusted_copies.setdefault(python, None)
    return copy_name(python)


def emit_copies(
    context: ModuleContext, functions: dict[str, Compiled], body: SourceBuilder
) -> None:
    """The unchecked copy of each function a compiled caller called, or its alias."""
    wanted = context.trusted_copies
    # A copy's body may ask for more copies: they join the end of `wanted` (a dict keeps
    # its order), so each round makes those the previous rounds asked for.
    made = 0
    while made < len(wanted):
        batch = list(wanted)[made:]
        made += len(batch)
        for python in batch:
            _emit_copy(context, functions, body, python)
    context.made_bodies.clear()


def _emit_copy(
    context: ModuleContext, functions: dict[str, Compiled], body: SourceBuilder, python: str
) -> None:
    """The unchecked copy of one function, or its alias where none can be made."""
    from shapescript.codegen.function import FunctionGenerator

    compiled = functions.get(python)
    out = SourceBuilder()
    if compiled is not None:
        generator = FunctionGenerator(
            context, compiled.item, compiled.signature, out, compiled.python, trusted=True
        )
        try:
            if padding.recorded(generator) is None:
                generator.generate()
                body.blank()
                body.extend(out)
                body.blank()
                return
        except Unsupported:
            pass
    body.add(0, f"{copy_name(python)} = {python}")
