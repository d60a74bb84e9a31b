"""Declarations of earlier cells that no longer match what they were checked against when
their cell ran: the cell doesn't check any more, Python code replaced them, a dim or
declaration they use changed, or something they use is itself out of date."""

from __future__ import annotations

import re
from typing import Any

from shapescript.notebook.combine import CELL_FN, CellRun
from shapescript.records import record
from shapescript.syntax import ast

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
#: Declarations that are names for sizes: using one means using its value.
_SIZE_KINDS = (ast.DimDecl,)
#: Declarations whose meaning can change with the dims their text names, though
#: their references don't say so.
_WORDY_KINDS = (ast.DomainDecl, ast.AliasDecl)


@record
class Declared:
    """What one declaration used when its cell ran: each dim with its value then, and each
    other declaration as it looked from outside then (`outside`)."""

    name: str
    uses: dict[str, str]


def _declarations(run: CellRun):
    for index, item in enumerate(run.module.items):
        name = getattr(item, "name", None)
        if isinstance(name, str) and not isinstance(item, ast.StmtItem | ast.ErrorItem):
            yield index, name, item


def _text(run: CellRun, index: int, item: Any) -> str:
    base = run.module.base_of(index)
    end = item.span.end
    if isinstance(item, ast.FnDecl):
        if item.body:
            end = item.body[0].span.start
        elif item.expr_body is not None:
            end = item.expr_body.span.start
    return run.text[base + item.span.start : base + end]


def outside(runs: list[CellRun], dim_values: dict[str, int]) -> dict[str, str]:
    """How each declaration of the cells looks to what uses it, the latest cell's for each
    name: a dim's value; a fn's signature, anything else's text, with the values of the
    dims they name."""
    found: dict[str, str] = {}
    for run in runs:
        texts: dict[str, list[str]] = {}
        for index, name, item in _declarations(run):
            if isinstance(item, _SIZE_KINDS):
                texts.setdefault(name, []).append(f"= {dim_values.get(name)}")
                continue
            text = " ".join(_text(run, index, item).split())
            sizes = [f"{w}={dim_values[w]}" for w in _WORD.findall(text) if w in dim_values]
            texts.setdefault(name, []).append(text + " | " + " ".join(sizes))
        found.update((name, "\n".join(parts)) for name, parts in texts.items())
    return found


def record_uses(run: CellRun, checked, in_cell, now: dict[str, str]) -> dict[str, Declared]:
    """What each declaration of the cell that just ran uses, as `now` says they look.

    `in_cell(start)` says whether an offset of the checked program is the cell's."""
    mine = {name for _, name, _ in _declarations(run)}
    used: dict[str, set[str]] = {name: set() for name in mine}
    for facts in checked.items:
        item = facts.item
        name = getattr(item, "name", None)
        if name not in mine or name == CELL_FN or not in_cell(facts.base + item.span.start):
            continue
        tables = [facts.declaration, *facts.fact_tables()]
        for table in tables:
            used[name].update(r.module_name for r in table.references if r.module_name)
    for index, name, item in _declarations(run):
        if isinstance(item, _WORDY_KINDS):
            used[name].update(_WORD.findall(_text(run, index, item)))
    return {
        name: Declared(name, {u: now[u] for u in sorted(names) if u in now and u != name})
        for name, names in used.items()
    }


def out_of_date(
    latest: dict[str, tuple[CellRun, Declared | None]],
    now: dict[str, str],
    broken: set[int],
    replaced: set[str],
) -> dict[str, str]:
    """Why each out-of-date declaration is, by name. `latest` has the cell run that declared
    each name last (none of the new cell's) and what it used; `broken` the ids of the runs
    whose declarations no longer check; `replaced` the names Python assigned or deleted."""
    reasons: dict[str, str] = {}
    for name, (run, made) in latest.items():
        if id(run) in broken:
            reasons[name] = f"{run.label} doesn't check any more"
        elif name in replaced:
            reasons[name] = f"Python code assigned or deleted `{name}`"
        elif made is not None:
            changed = next((u for u, seen in made.uses.items() if now.get(u) != seen), None)
            if changed is not None:
                reasons[name] = f"`{changed}` has changed since {run.label} ran"
    changed_any = True
    while changed_any:
        changed_any = False
        for name, (_, made) in latest.items():
            if name in reasons or made is None:
                continue
            stale = next((u for u in made.uses if u in reasons), None)
            if stale is not None:
                reasons[name] = f"it uses `{stale}`, which is out of date"
                changed_any = True
    return reasons
