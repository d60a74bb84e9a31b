"""Code actions from what the checker knows: its diagnostics' fixes, and refactorings.

Quick fixes are the edits the checker attached to its diagnostics (`Diagnostic.fixes`);
each is offered only when the fixed text, checked again, reports that code fewer times.
The refactorings (extract a dim from a repeated literal size, add the inferred return
type) are offered only when the changed text has no more errors than before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import TensorType, Type, format_type
from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic, Edit, Fix
from shapescript.diagnostics.fixing import apply_edits, fixes_it
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.diagnostics import to_lsp
from shapescript_lsp.positions import range_of

Recheck = Callable[[str], list[Diagnostic]]

#: How many verdicts (does this edit of this text pass its re-check?) are remembered:
#: editors ask for code actions at every move of the cursor.
_MAX_VERDICTS = 256
_verdicts: OrderedDict[tuple, bool] = OrderedDict()
_verdicts_lock = threading.Lock()


def _remembered(key: tuple, decide: Callable[[], bool]) -> bool:
    """A verdict from the cache, or `decide()` remembered under `key`."""
    with _verdicts_lock:
        if key in _verdicts:
            _verdicts.move_to_end(key)
            return _verdicts[key]
    verdict = decide()
    with _verdicts_lock:
        _verdicts[key] = verdict
        while len(_verdicts) > _MAX_VERDICTS:
            _verdicts.popitem(last=False)
    return verdict


def _text_key(text: str) -> tuple[int, int]:
    return len(text), hash(text)


KINDS = [
    types.CodeActionKind.QuickFix,
    types.CodeActionKind.RefactorExtract,
    types.CodeActionKind.RefactorRewrite,
]
#: Codes whose fix is a rewrite the code isn't wrong without: offered as refactorings.
_REWRITES = frozenset({"H2401"})


def code_actions(
    checked: Checked,
    uri: str,
    start: int,
    end: int,
    recheck: Recheck,
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    """The actions for the range [start, end] of the checked document."""
    actions = quick_fixes(checked, uri, start, end, recheck)
    actions += extract_dim(checked, uri, start, end, recheck)
    actions += add_return_type(checked, uri, start, end, recheck)
    if only:
        actions = [a for a in actions if any(a.kind.startswith(kind) for kind in only)]
    return actions


def _action(
    checked: Checked,
    uri: str,
    fix: Fix,
    kind: str,
    diagnostic: Diagnostic | None = None,
    preferred: bool = False,
) -> types.CodeAction:
    source = checked.source
    edits = [
        types.TextEdit(range=range_of(source, edit.span), new_text=edit.text) for edit in fix.edits
    ]
    return types.CodeAction(
        title=fix.title,
        kind=kind,
        diagnostics=[to_lsp(diagnostic, checked, uri)] if diagnostic is not None else None,
        is_preferred=preferred or None,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def quick_fixes(
    checked: Checked, uri: str, start: int, end: int, recheck: Recheck
) -> list[types.CodeAction]:
    """The checker's fixes for the diagnostics that meet the range, re-checked."""
    text = checked.source.text
    actions = []
    for diagnostic in checked.diagnostics:
        span = diagnostic.span
        if not diagnostic.fixes or span.start > end or span.end < start:
            continue
        offered = [
            fix
            for fix in diagnostic.fixes
            if _remembered(
                ("fix", _text_key(text), diagnostic.code, fix.edits),
                lambda fix=fix, diagnostic=diagnostic: fixes_it(
                    text, diagnostic, fix, checked.diagnostics, recheck
                ),
            )
        ]
        rewrite = diagnostic.code in _REWRITES
        kind = types.CodeActionKind.RefactorRewrite if rewrite else types.CodeActionKind.QuickFix
        for index, fix in enumerate(offered):
            actions.append(_action(checked, uri, fix, kind, diagnostic, preferred=index == 0))
    return actions


def _no_new_errors(checked: Checked, fix: Fix, recheck: Recheck) -> bool:
    """Whether the edited text has no more errors than the checked one."""
    text = checked.source.text

    def decide() -> bool:
        after = recheck(apply_edits(text, fix.edits))
        return sum(d.is_error for d in after) <= sum(d.is_error for d in checked.diagnostics)

    return _remembered(("errors", _text_key(text), fix.edits), decide)


def literal_sizes(checked: Checked) -> list[tuple[int, Span, int]]:
    """Every literal size that is a whole axis of a written shape: (value, span, item)."""
    found = []
    module = checked.module
    for index, item in enumerate(module.items):
        base = module.base_of(index)
        for node in walk(item):
            if isinstance(node, ast.SizeAxis) and isinstance(node.size, ast.SizeInt):
                span = node.size.span
                found.append((node.size.value, Span(base + span.start, base + span.end), index))
    return found


def _fresh_dim_name(checked: Checked, value: int) -> str:
    taken = set(checked.module_symbols) | set(checked.dim_values)
    name, suffix = f"N{value}", 2
    while name in taken:
        name, suffix = f"N{value}_{suffix}", suffix + 1
    return name


def extract_dim(
    checked: Checked, uri: str, start: int, end: int, recheck: Recheck
) -> list[types.CodeAction]:
    """`dim N768 = 768` for a literal size under the cursor that shapes use more than once,
    with every such use replaced by the dim."""
    sizes = literal_sizes(checked)
    chosen = next((s for s in sizes if s[1].start <= start and end <= s[1].end), None)
    if chosen is None or chosen[0] < 2:
        return []
    value = chosen[0]
    uses = [(span, index) for size, span, index in sizes if size == value]
    if len(uses) < 2:
        return []
    name = _fresh_dim_name(checked, value)
    first_item = min(index for _, index in uses)
    module = checked.module
    at = module.base_of(first_item)
    item = module.items[first_item]
    gap = "\n" if isinstance(item, ast.DimDecl | ast.AliasDecl) else "\n\n"
    edits = [Edit(Span(at, at), f"dim {name} = {value}{gap}")]
    edits += [Edit(span, name) for span, _ in uses]
    fix = Fix(f"Extract `dim {name} = {value}` from its {len(uses)} uses", tuple(edits))
    if not _no_new_errors(checked, fix, recheck):
        return []
    return [_action(checked, uri, fix, types.CodeActionKind.RefactorExtract)]


def _after_parameters(text: str, offset: int) -> int | None:
    """Where the `)` closing the parameter list that opens at or after `offset` ends."""
    depth = 0
    in_string = False
    for index in range(offset, len(text)):
        char = text[index]
        if in_string:
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                return index + 1
        elif char in "\n#" and depth == 0:
            return None
    return None


def _written_forms(type_: Type) -> list[str]:
    """How to write an inferred type: in full, then (for a tensor) its shape and dtype."""
    forms = [format_type(type_)]
    if isinstance(type_, TensorType) and type_.axes is not None:
        plain = format_type(TensorType(type_.axes, dtype=type_.dtype))
        if plain not in forms:
            forms.append(plain)
    return forms


def add_return_type(
    checked: Checked, uri: str, start: int, end: int, recheck: Recheck
) -> list[types.CodeAction]:
    """`-> T` with the type the checker inferred, for a fn declared without one."""
    text = checked.source.text
    for facts in checked.items:
        decl = facts.item
        if not isinstance(decl, ast.FnDecl) or decl.return_type is not None:
            continue
        if facts.body is None or facts.body.inferred is None:
            continue
        header_end = _after_parameters(text, facts.base + decl.name_span.end)
        head = facts.base + decl.span.start
        if header_end is None or not (head <= start and end <= header_end):
            continue
        for written in _written_forms(facts.body.inferred):
            fix = Fix(
                f"Add the return type `-> {written}`",
                (Edit(Span(header_end, header_end), f" -> {written}"),),
            )
            if _no_new_errors(checked, fix, recheck):
                return [_action(checked, uri, fix, types.CodeActionKind.RefactorRewrite)]
        return []
    return []
