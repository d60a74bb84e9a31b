"""A whole module: imports, dims, devices, then one `def` per function."""

from __future__ import annotations

import os
from ast import PyCF_ONLY_AST

from shapescript import __version__
from shapescript.check.program import Checked, Instance
from shapescript.codegen import data, imports, instances, logs, training
from shapescript.codegen.context import Foreign, ModuleContext, Unsupported, python_name
from shapescript.codegen.emit import SourceBuilder
from shapescript.codegen.function import FunctionGenerator
from shapescript.codegen.standalone import HELPERS
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span


def generate_module(
    checked: Checked, context: ModuleContext, devices: str | None
) -> tuple[SourceBuilder, list[Unsupported]]:
    """The module's Python, line by line with `.ss` origins, and what couldn't compile."""
    body = SourceBuilder()
    problems: list[Unsupported] = []
    for item_facts in checked.items:
        item = item_facts.item
        if isinstance(item, ast.DimDecl):
            value = checked.dim_values.get(item.name)
            if value is not None:
                origin = context.origin(item_facts.base, item.span)
                body.add(0, f"{python_name(item.name)} = {value}", origin)
        elif isinstance(item, ast.DomainDecl):
            _domain(checked, context, item_facts.base, item, body)
        elif isinstance(item, ast.ImportPythonDecl):
            origin = context.origin(item_facts.base, item.span)
            body.add(0, f"import {'.'.join(item.parts)}", origin)
        elif isinstance(item, ast.ImportDecl):
            imports.import_lines(context, item, context.origin(item_facts.base, item.span), body)
        elif isinstance(item, ast.FnDecl):
            for compiled in instances.functions_of(checked, item_facts):
                _function(context, compiled, body, problems)
            try:
                instances.dispatcher(context, item_facts, body)
            except Unsupported as problem:
                problem.span = _absolute(problem.span or item.name_span, item_facts.base)
                problems.append(problem)
        elif isinstance(item, ast.ModelDecl) and item.name in checked.models:
            origin = context.origin(item_facts.base, item.name_span)
            try:
                training.model_class(context, checked.models[item.name], origin, body)
            except Unsupported as problem:
                problem.span = _absolute(item.span, item_facts.base)
                problems.append(problem)
                _stub(
                    context,
                    body,
                    f"class {python_name(item.name)}:\n    def __init__(self, *args, **kwargs):",
                    item,
                    item_facts.base,
                    item.name,
                    problem,
                    indent=2,
                )
        elif isinstance(item, ast.LogsDecl | ast.DataDecl) and (
            item.name in checked.logs or item.name in checked.data
        ):
            origin = context.origin(item_facts.base, item.name_span)
            try:
                if isinstance(item, ast.LogsDecl):
                    logs.logs_class(context, checked.logs[item.name], origin, body)
                else:
                    data.record_class(context, checked.data[item.name], origin, body)
            except Unsupported as problem:
                problem.span = _absolute(item.span, item_facts.base)
                problems.append(problem)
                _stub(
                    context,
                    body,
                    f"class {python_name(item.name)}:\n    def __init__(self, *args, **kwargs):",
                    item,
                    item_facts.base,
                    item.name,
                    problem,
                    indent=2,
                )
        elif isinstance(item, ast.ModelDecl | ast.ImportDecl):
            kind = {
                ast.ModelDecl: "a model",
                ast.ImportDecl: "an import of another .ss file",
            }[type(item)]
            problem = Unsupported(
                f"{kind} can't be compiled yet", _absolute(item.span, item_facts.base)
            )
            problems.append(problem)
            if not isinstance(item, ast.ImportDecl):
                _stub(
                    context,
                    body,
                    f"class {python_name(item.name)}:\n    def __init__(self, *args, **kwargs):",
                    item,
                    item_facts.base,
                    item.name,
                    problem,
                    indent=2,
                )
        elif isinstance(item, ast.StmtItem):
            problems.append(
                Unsupported(
                    "a statement outside a fn can't be compiled yet",
                    _absolute(item.span, item_facts.base),
                )
            )
    for instance, compiled in instances.foreign_functions(checked):
        _foreign_function(context, instance, compiled, body, problems)
    out = SourceBuilder()
    path = checked.source.path
    out.add(0, f"# Generated by ShapeScript {__version__} from {path}. Edit the .ss file instead.")
    out.add(0, "import torch as _ss_torch")
    out.add(0, "import torch.nn.functional as _ss_F")
    for line in context.imports:
        out.add(0, line)
    if not context.standalone:
        out.add(0, "from shapescript import rt as _ss_rt")
        out.add(0, "from shapescript.rt import devices as _ss_devices")
    out.blank()
    out.add(0, "_ss_inf = float('inf')")
    for name, value in context.constants.items():
        out.add(0, f"{name} = {value}")
    if context.standalone:
        out.add(0, f"_ss_device = _ss_torch.device({_torch_device(devices or 'cpu')!r})")
        out.add(0, HELPERS.strip("\n"))
    elif devices is not None:
        out.add(0, f"_ss_rt.declare_devices({devices!r}, __file__)")
    out.blank()
    out.lines.extend(body.lines)
    out.origins.extend(body.origins)
    return out, problems


def _function(context, compiled: instances.Compiled, body: SourceBuilder, problems) -> None:
    """One compiled function, or a stub that raises when it can't be compiled yet."""
    item_facts = compiled.item
    item = item_facts.item
    out = SourceBuilder()
    try:
        FunctionGenerator(context, item_facts, compiled.signature, out, compiled.python).generate()
        _python_accepts(out, item)
    except Unsupported as problem:
        if problem.span is not None:
            problem.span = _absolute(problem.span, item_facts.base)
        problems.append(problem)
        _stub(
            context,
            body,
            f"def {compiled.python or python_name(item.name)}(*args, **kwargs):",
            item,
            item_facts.base,
            f"fn {item.name}",
            problem,
        )
        return
    body.blank()
    body.lines.extend(out.lines)
    body.origins.extend(out.origins)
    body.blank()


def _foreign_function(
    context: ModuleContext,
    instance: Instance,
    compiled: instances.Compiled,
    body: SourceBuilder,
    problems: list[Unsupported],
) -> None:
    """An instance of another file's generic function, in this module: its checks name
    that file's lines, and its lines map to the import that brings it."""
    home = instance.home
    span = _import_span(context.checked, home.prefix)
    source = SourceFile.from_text(_shown_path(context.checked.source.path, home.path), home.text)
    context.foreign = Foreign(source, context.origin(0, span), home.prefix)
    found: list[Unsupported] = []
    try:
        _function(context, compiled, body, found)
    finally:
        context.foreign = None
    for problem in found:
        problem.span = span
        problems.append(problem)


def _import_span(checked: Checked, prefix: str) -> Span:
    """The import line that brings the file with this prefix (or the file importing it)."""
    table = checked.imports
    first = prefix.split(".")[0]
    for info in table.infos if table is not None else ():
        if info.prefix == first:
            return info.span
    return Span(0, 0)


def _shown_path(importer: str, path: str) -> str:
    """How the generated code names another file: from the importing file's folder when
    it is inside it, as the importing file's path is written, else (and for the standard
    library's files) its full path."""
    from shapescript.check.module_paths import STD_FOLDER

    if path.startswith(STD_FOLDER + os.sep):
        return path
    folder = os.path.dirname(os.path.abspath(importer))
    relative = os.path.relpath(path, folder)
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        return path
    return os.path.join(os.path.dirname(importer), relative)


def _python_accepts(out: SourceBuilder, item: ast.FnDecl) -> None:
    """Python's own parser and compiler have nesting limits of their own (200 levels of
    brackets): a function nested deeper than they allow is reported, not crashed on."""
    try:
        compile(out.text, "<check>", "exec", dont_inherit=True, flags=PyCF_ONLY_AST)
    except (SyntaxError, RecursionError, MemoryError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else type(error).__name__
        raise Unsupported(
            f"its code is nested too deeply for Python to compile ({reason}); "
            "split the expression over several lines with names",
            item.name_span,
        ) from None


def _stub(context, body, header: str, item, base: int, what: str, problem, indent=1) -> None:
    """A declaration this compiler can't compile yet: a name that raises when used."""
    origin = context.origin(base, item.span)
    line = context.location(base, item.span)[0]
    message = f"{context.source.path}:{line}: {what} can't be compiled yet: {problem}"
    body.blank()
    body.add(0, header, origin)
    body.add(indent, f"raise NotImplementedError({message!r})", origin)
    body.blank()


def _torch_device(text: str) -> str:
    """`cuda[0]` -> `cuda:0`."""
    if "[" in text:
        kind, _, rest = text.partition("[")
        return f"{kind}:{rest.strip(']').split()[0]}"
    return text


def _absolute(span, base: int):
    from shapescript.syntax.source import Span

    return Span(span.start + base, span.end + base)


def _domain(checked: Checked, context, base: int, item: ast.DomainDecl, body) -> None:
    origin = context.origin(base, item.span)
    text = checked.source.text[base + item.interval.span.start : base + item.interval.span.end]
    value = f"({item.name!r}, {text!r})"
    if not context.standalone:
        value = f"_ss_rt.Domain{value}"
    body.add(0, f"{python_name(item.name)} = {value}", origin)
