"""The checker's layers (docs/architecture.md, "Packages"): algebra, declarations, bodies,
analyses, then the program and the entry point. Each imports only the layers below it,
and no import circle inside `shapescript.check` takes in more than three modules.

Imports are read by grimp, import-linter's graph, which counts every import statement:
those inside functions and under `if TYPE_CHECKING:` too.
"""

from __future__ import annotations

import grimp
import pytest

from tests import import_contracts

CHECK = "shapescript.check"
LARGEST_CIRCLE = 3


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("shapescript", cache_dir=None)


def test_import_linter_contracts_hold() -> None:
    """The layers contract and the body rules' contract in pyproject.toml."""
    run = import_contracts.lint()
    assert run.returncode == 0, run.stdout + run.stderr


def test_imports_inside_functions_count(graph) -> None:
    """`module_scope` imports `imports` only inside a function; the graph still has it."""
    assert graph.direct_import_exists(
        importer=f"{CHECK}.declarations.module_scope",
        imported=f"{CHECK}.declarations.imports",
    )


def _circles(graph, modules: set[str]) -> list[list[str]]:
    """The strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(modules):
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start) & modules)))]
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    imported = graph.find_modules_directly_imported_by(target) & modules
                    work.append((target, iter(sorted(imported))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_circle_takes_in_more_than_three_modules(graph) -> None:
    modules = graph.find_descendants(CHECK) | {CHECK}
    too_large = [circle for circle in _circles(graph, modules) if len(circle) > LARGEST_CIRCLE]
    assert too_large == []


def test_circles_are_found() -> None:
    """The circle finder finds a circle of four modules, which the test above refuses."""
    fake = {"a", "b", "c", "d"}

    class Edges:
        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return {"a": {"b"}, "b": {"c"}, "c": {"d"}, "d": {"a"}}[module]

    assert _circles(Edges(), fake) == [["a", "b", "c", "d"]]
