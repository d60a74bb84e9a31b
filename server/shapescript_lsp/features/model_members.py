"""Completion after `m.` for a model (its fields and the functions that take it first)
and after `g.` for a gradient (its params).

The functions come from the file, from the files it imports (written `attention.forward`)
and from the workspace's other files that it doesn't import yet, nor could without a
cycle (written the same way, with an edit adding the import). Each is rewritten as the
call `forward(m, …)`, with a tab stop for each parameter after the first that has no
default, and `mut` where a parameter is mut.
"""

from __future__ import annotations

from collections.abc import Iterator

from lsprotocol import types

from shapescript.check.algebra.types import GradType, ModelType, Type, format_type, is_type_variable
from shapescript.check.bodies.model_values import gradient_of_held
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.features.generic_hover import missing_for
from shapescript_lsp.features.model_hover import model_infos
from shapescript_lsp.import_edits import import_edit
from shapescript_lsp.import_graph import WorkspaceView
from shapescript_lsp.positions import range_of


def member_candidates(
    checked: Checked,
    text: str,
    value: str,
    value_type: Type | None,
    value_start: int,
    offset: int,
    snippets: bool,
    workspace: WorkspaceView | None = None,
) -> list:
    """The fields of a model or gradient value, then (for a model) each function whose
    first parameter takes that model, rewritten as a call."""
    from shapescript_lsp.features.completion import Candidate

    if isinstance(value_type, GradType):
        model, gradient = value_type.model, True
    elif isinstance(value_type, ModelType):
        model, gradient = value_type.name, False
    else:
        return []
    info = model_infos(checked).get(model)
    if info is None:
        return []
    candidates = []
    for order, field in enumerate(info.fields.values()):
        if gradient and not (field.is_param or field.is_model):
            continue
        shown = gradient_of_held(field.type) if gradient else field.type
        written = "" if field.is_model else f"{field.kind} "
        candidates.append(
            Candidate(
                field.name,
                types.CompletionItemKind.Field,
                f"{written}{field.name}: {format_type(shown)}",
                shown,
                rank=0,
                order=order,
                insert=field.name,
                data={"field": field.name, "model": model},
            )
        )
    if gradient:
        return candidates
    replaced = range_of(SourceFile.from_text(checked.source.path, text), Span(value_start, offset))

    def offer(label, qualified, params, detail, edits=None, data=None):
        call = _call_text(qualified, value, params, snippets)
        candidates.append(
            Candidate(
                label,
                types.CompletionItemKind.Function,
                detail,
                rank=1,
                insert=call,
                snippet=snippets,
                data=data,
                edits=edits,
                text_edit=types.TextEdit(range=replaced, new_text=call),
                filter_text=f"{value}.{label.rpartition('.')[2]}",
            )
        )

    for name, signature in _own_functions(checked, model):
        detail = signature_text(name, signature)
        if getattr(signature, "is_generic", False):
            lacking = missing_for(checked, name, model)
            if lacking:
                shown = ", ".join(f"`{function}`" for function in lacking)
                detail += f" (no {shown} for {model}: a call would be E2311)"
        offer(name, name, signature.params, detail, data={"name": name, "kind": "fn"})
    for bound, name, signature in _imported_functions(checked, model):
        qualified = f"{bound}.{name}"
        offer(qualified, qualified, signature.params, signature_text(qualified, signature))
    if workspace is not None:
        key = _model_key(checked, model, workspace)
        for module, function in _workspace_functions(checked, key, workspace):
            bound = module.rpartition(".")[2]
            qualified = f"{bound}.{function.name}"
            detail = f"{function.header} from {module}.ss"
            offer(qualified, qualified, function.params, detail, [import_edit(text, module)])
    return candidates


def _takes(signature, model: str) -> bool:
    """Whether a function's first parameter takes the model, or any model (generic)."""
    params = getattr(signature, "params", None)
    if not params:
        return False
    first = params[0].type
    if isinstance(first, ModelType):
        return first.name == model
    return getattr(signature, "is_generic", False) and is_type_variable(first)


def _own_functions(checked: Checked, model: str) -> Iterator[tuple[str, object]]:
    """The file's functions that take the model first, each overload of a shared name
    included."""
    for name, signature in checked.signatures.items():
        symbol = checked.module_symbols.get(name)
        if symbol is None or symbol.kind != "fn":
            continue
        overloads = checked.overloads.get(name)
        for found in overloads.values() if overloads else (signature,):
            if _takes(found, model):
                yield name, found


def _imported_functions(checked: Checked, model: str) -> Iterator[tuple[str, str, object]]:
    """The functions of the files the file imports that take the model first: the name
    the import binds, the function's name and its signature (types as this file names
    them)."""
    table = checked.imports
    if table is None:
        return
    seen: set[str] = set()
    for info in sorted(table.infos, key=lambda info: info.aliased):
        if info.path is None or info.prefix is None or info.path in seen:
            continue
        seen.add(info.path)
        for name, signature in table.functions_of(info.prefix).items():
            overloads = table.overloads.get(f"{info.prefix}.{name}")
            members = [found for found, _ in overloads.values()] if overloads else [signature]
            for found in members:
                if _takes(found, model):
                    yield info.name, name, found


def _model_key(checked: Checked, model: str, workspace: WorkspaceView) -> tuple[str, str]:
    """The file that declares the model and its name there."""
    prefix, dot, name = model.rpartition(".")
    if not dot:
        return workspace.own, model
    table = checked.imports
    path = table.paths.get(prefix) if table is not None else None
    return path or "", name


def _workspace_functions(checked: Checked, key: tuple[str, str], workspace: WorkspaceView):
    """The functions of the workspace's files that the file doesn't import (and may
    import) that take the model first, with the module name that imports each file."""
    imported = {info.path for info in checked.imports.infos} if checked.imports else set()
    for path, indexed in sorted(workspace.files.items()):
        if path in imported or not indexed.functions or not workspace.importable(path):
            continue
        matching = [
            function
            for function in indexed.functions
            if function.generic or _declared_model(workspace, path, function.first_type) == key
        ]
        if not matching:
            continue
        module = workspace.module_name(path)
        if module is None:
            continue
        for function in matching:
            yield module, function


def _declared_model(workspace: WorkspaceView, path: str, written: str | None):
    """The file that declares a model named as another file writes it, and its name there."""
    if written is None:
        return None
    bound, dot, name = written.rpartition(".")
    if not dot:
        return (path, written) if workspace.files[path].names.get(written) == "model" else None
    target = workspace.targets(path).get(bound)
    return (target, name) if target is not None else None


def _call_text(name: str, value: str, params, snippets: bool) -> str:
    """`forward(m, ${1:x}, ${2:mode})`, with mut where a parameter is mut."""
    parts = [("mut " if params[0].mut else "") + value]
    stop = 0
    for param in params[1:]:
        if param.has_default:
            continue
        stop += 1
        shown = f"${{{stop}:{param.name}}}" if snippets else param.name
        parts.append(("mut " if param.mut else "") + shown)
    return f"{name}({', '.join(parts)})"


def signature_text(name: str, signature) -> str:
    params = ", ".join(
        ("mut " if p.mut else "") + f"{p.name}: {format_type(p.type)}" for p in signature.params
    )
    returned = signature.return_type
    return f"fn {name}({params})" + (f" -> {format_type(returned)}" if returned else "")
