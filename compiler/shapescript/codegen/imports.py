"""Other `.ss` files in the generated module: each import binds the other file's module,
and a qualified name (`attention.f`) is an attribute of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.codegen.context import ModuleContext, module_variable, python_name
from shapescript.codegen.emit import Origin, SourceBuilder
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator


def import_lines(
    context: ModuleContext, item: ast.ImportDecl, origin: Origin, body: SourceBuilder
) -> None:
    """`_ss_mod_attention = _ss_rt.import_ss(__name__, __file__, "attention")`, and the name
    the import binds, so Python sees `main.attention` too."""
    variable = module_variable(item.bound_name)
    dotted = ".".join(item.parts)
    body.add(0, f'{variable} = _ss_rt.import_ss(__name__, __file__, "{dotted}")', origin)
    body.add(0, f"{python_name(item.bound_name)} = {variable}", origin)


def unqualified(gen: FunctionGenerator, node):
    """A node, with another file's `attention.f` as the name the checker gave it."""
    if isinstance(node, ast.Member):
        facts = gen.view.item.body.facts if gen.view.item.body is not None else None
        if facts is not None:
            name = facts.qualified.get(node.span)
            if name is not None:
                return ast.Name(name, node.span)
    return node


def called(python_name: str) -> str:
    """A call target's compiled function; another file's, `attention._ss_forward__Mlp`, is
    an attribute of the module the import binds."""
    *modules, last = python_name.split(".")
    return ".".join([*(module_variable(module) for module in modules), last])


def target_signature(gen: FunctionGenerator, target, name: str | None = None):
    """The signature of another file's function a call picked by its model; or of this
    file's, where another file's name `name` found it (in an instance of that file's
    generic function, for this file's model)."""
    table = gen.context.checked.imports
    if target is None:
        return None
    if "." not in target.function:
        if name is None or "." not in name or target.instance is not None:
            return None
        checked = gen.context.checked
        members = checked.overloads.get(target.function)
        if members is not None and target.key and target.key[0] in members:
            return members[target.key[0]]
        return checked.signatures.get(target.function)
    if table is None:
        return None
    members = table.overloads.get(target.function)
    if members is not None and target.key and target.key[0] in members:
        return members[target.key[0]][0]
    return table.signatures.get(target.function)


def signature(gen: FunctionGenerator, name: str):
    """An imported function's signature, by its qualified name."""
    table = gen.context.checked.imports
    if table is None or "." not in name:
        return None
    return table.signatures.get(name)


def symbol(gen: FunctionGenerator, name: str):
    """An imported declaration's symbol, by its qualified name."""
    table = gen.context.checked.imports
    if table is None or "." not in name:
        return None
    return table.symbols.get(name) or table.chained_symbols.get(name)
