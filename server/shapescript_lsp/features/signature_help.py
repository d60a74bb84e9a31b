"""Signature help, and finding the call the cursor is in (which completion shares)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lsprotocol import types

from shapescript.check.algebra.types import Type, format_type
from shapescript.check.declarations.builtin_table import BUILTINS, split_top_level
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript_lsp.features.context import run_start, space_start
from shapescript_lsp.features.curve_hover import documentation_curve
from shapescript_lsp.render.math import render_doc

_KEYWORD = re.compile(r"^\s*(?:mut\s+)?([^\W\d]\w*)\s*=(?!=)")


@dataclass(slots=True)
class CallSite:
    """The call whose parentheses hold the cursor."""

    callee: str
    open_paren: int
    argument_index: int
    keywords: list[str] = field(default_factory=list)
    current_keyword: str | None = None
    first_argument: str = ""
    piped: bool = False
    #: The callee as written, dotted parts and all (`torch.nn.functional.gelu`).
    qualified: str = ""


def call_site(text: str, offset: int) -> CallSite | None:
    """Scan back from the cursor to the unmatched `(`, counting arguments on the way."""
    depth = 0
    position = offset - 1
    limit = max(0, offset - 4000)
    while position >= limit:
        char = text[position]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                if char == "[":
                    return None
                break
            depth -= 1
        position -= 1
    else:
        return None
    open_paren = position
    callee_end = space_start(text, open_paren)
    callee_start = _name_start(text, callee_end)
    if callee_start == callee_end:
        return None
    callee = text[callee_start:callee_end]
    arguments = _split_arguments(text[open_paren + 1 : offset])
    keywords = [m.group(1) for part in arguments[:-1] if (m := _KEYWORD.match(part))]
    current = _KEYWORD.match(arguments[-1])
    return CallSite(
        callee.split(".")[-1] if "." in callee and callee.split(".")[0] != "torch" else callee,
        open_paren,
        len(arguments) - 1,
        keywords,
        current.group(1) if current else None,
        arguments[0],
        text.endswith("|>", 0, space_start(text, callee_start)),
        callee,
    )


def _name_start(text: str, end: int) -> int:
    """Where the dotted name that ends at `end` starts (at `end` if there is none): its
    first letter or underscore, so `x[0].f` gives `f` and `2.a.b` gives `a.b`."""
    start = run_start(text, end, "_.")
    while start < end and not _starts_name(text[start]):
        start += 1
    return start


def _starts_name(char: str) -> bool:
    return (char.isalnum() or char == "_") and not char.isdecimal()


def _split_arguments(text: str) -> list[str]:
    parts = [""]
    depth = 0
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("")
        else:
            parts[-1] += char
    return parts


def callable_params(checked: Checked | None, name: str, with_types: bool = False):
    """(name, type text[, Type]) of each parameter of a fn, extern, prelude stub or built-in."""
    if checked is not None and name in checked.signatures:
        signature = checked.signatures[name]
        result = []
        for param in signature.params:
            shown = (
                f"{param.special}[{param.special_size}]"
                if param.special
                else format_type(param.type)
            )
            result.append((param.name, shown, param.type) if with_types else (param.name, shown))
        return result
    entry = BUILTINS.get(name)
    if entry is not None:
        texts = _builtin_param_types(entry.signature)
        return [
            (param, texts.get(param, ""), None) if with_types else (param, texts.get(param, ""))
            for param in entry.params
        ]
    return None


def _builtin_param_types(signature: str) -> dict[str, str]:
    inside = signature[signature.find("(") + 1 : signature.rfind(")")]
    result = {}
    for part in split_top_level(inside):
        if ":" in part:
            name, _, type_text = part.partition(":")
            result[name.strip()] = type_text.strip()
    return result


def _label(checked: Checked | None, name: str) -> tuple[str, list[str], str | None]:
    if name in BUILTINS and (checked is None or name not in checked.signatures):
        entry = BUILTINS[name]
        inside = entry.signature[entry.signature.find("(") + 1 : entry.signature.rfind(")")]
        return entry.signature, split_top_level(inside), entry.documentation
    params = callable_params(checked, name)
    if params is None:
        return "", [], None
    signature = checked.signatures[name]
    parts = [
        f"{param}: {shown}" + (f" = {default_text(sig.decl.default)}" if sig.has_default else "")
        for (param, shown), sig in zip(params, signature.params, strict=True)
    ]
    result: Type | None = signature.return_type
    tail = f" -> {format_type(result)}" if result is not None else ""
    symbol = checked.module_symbols.get(name) or checked.builtin_symbols.get(name)
    return f"fn {name}({', '.join(parts)}){tail}", parts, symbol.doc if symbol else None


def default_text(expr: object) -> str:
    """A parameter's default as written (`none`, `1e-5`, `-2.5`), or `…` for anything
    longer than a literal, a name or a negated one."""
    if isinstance(expr, ast.FloatLit):
        return expr.text
    if isinstance(expr, ast.IntLit):
        return str(expr.value)
    if isinstance(expr, ast.BoolLit):
        return "true" if expr.value else "false"
    if isinstance(expr, ast.InfLit):
        return "inf"
    if isinstance(expr, ast.StringLit):
        return f'"{expr.value}"'
    if isinstance(expr, ast.Name):
        return expr.name
    if isinstance(expr, ast.Unary) and not isinstance(expr.operand, ast.Unary):
        inner = default_text(expr.operand)
        return f"{expr.op}{inner}" if inner != "…" else "…"
    return "…"


def _param_doc(checked: Checked | None, site: CallSite, name: str) -> types.MarkupContent | None:
    """What a built-in's parameter means, where the table says."""
    entry = BUILTINS.get(site.callee)
    if entry is None or (checked is not None and site.callee in checked.signatures):
        return None
    doc = entry.param_doc(name)
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=doc) if doc else None


def signature_help(
    checked: Checked | None, text: str, offset: int, images: bool = False, dark: bool = False
) -> types.SignatureHelp | None:
    """The signature of the call being typed, its docs with their math rendered and, for
    a function of one number, its curve (images where the client shows them)."""
    site = call_site(text, offset)
    if site is None:
        return None
    label, parameters, documentation = _label(checked, site.callee)
    if not label:
        return None
    names = [part.split(":")[0].strip().lstrip("mut ").strip() for part in parameters]
    if site.current_keyword is not None and site.current_keyword in names:
        active = names.index(site.current_keyword)
    else:
        active = site.argument_index + (1 if site.piped else 0)
        if site.keywords:
            remaining = [i for i, n in enumerate(names) if n not in site.keywords]
            position = site.argument_index - len(site.keywords)
            active = remaining[position] if 0 <= position < len(remaining) else active
        if active >= len(parameters) and "over" in names:
            active = names.index("over")
    shown = [render_doc(documentation, images, dark)]
    shown.append(documentation_curve(checked, site.callee, images, dark))
    value = "\n\n".join(part for part in shown if part)
    information = types.SignatureInformation(
        label=label,
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value)
        if value
        else None,
        parameters=[
            types.ParameterInformation(label=part, documentation=_param_doc(checked, site, name))
            for part, name in zip(parameters, names, strict=True)
        ],
        active_parameter=active if 0 <= active < len(parameters) else None,
    )
    return types.SignatureHelp(
        signatures=[information],
        active_signature=0,
        active_parameter=information.active_parameter,
    )
