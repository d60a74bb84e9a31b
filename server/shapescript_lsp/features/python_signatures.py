"""Signature help for calls of Python functions (`torch.clamp(`), which never waits.

The signature comes from what completion knows: `ast` for the user's own modules, the
background listing's `inspect.signature` for the others. A module not listed yet has
no answer (and starts being listed).
"""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.declarations.builtin_table import split_top_level
from shapescript.check.program import Checked
from shapescript_lsp.features.python_members import PYTHON_NAMES, Member
from shapescript_lsp.features.signature_help import call_site

#: Signature entries that are markers, not parameters.
_MARKERS = {"/", "*"}


def python_signature_help(
    checked: Checked, text: str, offset: int, python: str | None, roots: list[str]
) -> types.SignatureHelp | None:
    """The signature of the Python function whose call holds the cursor, if known now."""
    site = call_site(text, offset)
    if site is None or "." not in site.qualified:
        return None
    root = checked.module_symbols.get(site.qualified.split(".")[0])
    if root is None or root.kind != "python_module":
        return None
    module, _, name = site.qualified.rpartition(".")
    listing = PYTHON_NAMES.members(module, python, roots)
    member = next((m for m in listing.members if m.name == name), None)
    if member is None or member.kind not in ("function", "class"):
        return None
    parameters = python_parameters(member)
    if parameters is None:
        return None
    names = [_parameter_name(part) for part in parameters]
    if site.current_keyword is not None and site.current_keyword in names:
        active = names.index(site.current_keyword)
    else:
        active = site.argument_index
        if site.keywords:
            remaining = [i for i, n in enumerate(names) if n not in site.keywords]
            position = site.argument_index - len(site.keywords)
            active = remaining[position] if 0 <= position < len(remaining) else active
    information = types.SignatureInformation(
        label=member.signature,
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=member.doc)
        if member.doc
        else None,
        parameters=[types.ParameterInformation(label=part) for part in parameters],
        active_parameter=active if 0 <= active < len(parameters) else None,
    )
    return types.SignatureHelp(
        signatures=[information],
        active_signature=0,
        active_parameter=information.active_parameter,
    )


def python_parameters(member: Member) -> list[str] | None:
    """The parameters of a signature such as `clamp(input, min=None, *, out=None) -> T`,
    as they are written in it; None if it has none to show."""
    signature = member.signature
    start = signature.find("(")
    if start < 0 or signature.endswith("(...)"):
        return None
    depth = 0
    for index in range(start, len(signature)):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(signature[index], 0)
        if depth == 0:
            inside = signature[start + 1 : index]
            break
    else:
        return None
    parts = [part.strip() for part in split_top_level(inside) if part.strip()]
    return [part for part in parts if part not in _MARKERS]


def _parameter_name(part: str) -> str:
    name = part.split("=")[0].split(":")[0]
    return name.strip().lstrip("*")
