"""What one function does with a model parameter, from its syntax alone.

`gradients.param_reads` follows a model through the functions it is passed to; the part
that needs only the function's own tree (aliases, fields read, where the model is passed
on) is summarised here once, and reused while the function's text is unchanged.
"""

from __future__ import annotations

from shapescript.check.algebra.syntax_facts import walk
from shapescript.records import record
from shapescript.syntax import ast


@record(frozen=True)
class PassedOn:
    """The model passed to `callee`: as its argument `name`, else at `position`.

    `pipe` marks the input of a pipe, whose first stage must be a fn of the file.
    """

    callee: str
    name: str | None
    position: int
    pipe: bool = False


@record(frozen=True)
class ReadSummary:
    """The fields read directly, where the model goes on (in tree order), and whether it
    is used in a way no function of the file explains (`opaque`)."""

    reads: frozenset[str]
    passed_on: tuple[PassedOn, ...]
    opaque: bool


def summarise(decl: ast.FnDecl, param: str) -> ReadSummary:
    """The syntax-only part of what `decl` does with its parameter `param`."""
    roots: list = list(decl.body or []) + ([decl.expr_body] if decl.expr_body else [])
    nodes = [node for root in roots for node in walk(root)]
    # Names bound to the parameter (`n = m`), followed through chains of such lines.
    copies = [
        node
        for node in nodes
        if node.__class__ is ast.Assign
        and node.value.__class__ is ast.Name
        and len(node.targets) == 1
    ]
    aliases = {param}
    changed = bool(copies)
    while changed:
        changed = False
        for node in copies:
            if node.value.name in aliases and node.targets[0].name not in aliases:
                aliases.add(node.targets[0].name)
                changed = True
    reads: set[str] = set()
    handled: set[int] = set()
    passed_on: list[PassedOn] = []
    uses: list[ast.Name] = []
    for node in nodes:
        kind = node.__class__
        if kind is ast.Name:
            if node.name in aliases:
                uses.append(node)
        elif kind is ast.Member:
            target = node.target
            if target.__class__ is ast.Name and target.name in aliases:
                reads.add(node.name)
                handled.add(id(target))
        elif kind is ast.Assign:
            value = node.value
            if value.__class__ is ast.Name and value.name in aliases:
                handled.add(id(value))
        elif kind is ast.Call:
            if node.callee.__class__ is not ast.Name:
                continue
            callee = node.callee.name
            args = node.args
            if callee == "value_and_grad" and args and args[0].value.__class__ is ast.Name:
                callee, args = args[0].value.name, args[1:]
            for position, arg in enumerate(args):
                value = arg.value
                if value.__class__ is ast.Name and value.name in aliases:
                    handled.add(id(value))
                    passed_on.append(PassedOn(callee, arg.name, position))
        elif kind is ast.Pipe:
            source = node.input
            if source.__class__ is ast.Name and source.name in aliases and node.stages:
                stage = node.stages[0]
                callee = stage.callee if stage.__class__ is ast.Call else stage
                if callee.__class__ is ast.Name:
                    handled.add(id(source))
                    passed_on.append(PassedOn(callee.name, None, 0, pipe=True))
    opaque = any(id(node) not in handled for node in uses)
    return ReadSummary(frozenset(reads), tuple(passed_on), opaque)
