"""The command line's layers (docs/architecture.md, "Packages"): `shapescript.commands.entry`
above one module per command, above their shared helpers; no command imports another,
and no import circle passes through a module of the command line.

Imports are read by grimp, import-linter's graph, which counts every import statement:
those inside functions and under `if TYPE_CHECKING:` too.
"""

from __future__ import annotations

import argparse

import grimp
import pytest

from tests import import_contracts

CONTRACTS = ("command-layers", "nothing-imports-the-command-line")
COMMANDS = "shapescript.commands"
#: The entry points outside the package: the console script's target and `python -m`.
ENTRY_POINTS = {"shapescript.cli", "shapescript.__main__"}


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("shapescript", cache_dir=None)


def _is_command_line(module: str) -> bool:
    """A module of the command line: the entry points, the `commands` package, and any module
    named as the command-line modules were before they moved there (`*cli`, `command`)."""
    last = module.rsplit(".", 1)[-1]
    return (
        module in ENTRY_POINTS
        or module == COMMANDS
        or module.startswith(COMMANDS + ".")
        or last.endswith("cli")
        or last == "command"
    )


def test_import_linter_contracts_hold() -> None:
    """The command line's contracts in pyproject.toml."""
    run = import_contracts.lint(CONTRACTS)
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_import_circle_passes_through_the_command_line(graph) -> None:
    """For each import a command-line module makes, the imported module never leads back."""
    circles = []
    for module in sorted(filter(_is_command_line, graph.modules)):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                circles.append(" -> ".join((module, *back)))
    assert circles == []


def test_the_circle_check_sees_a_function_level_import(graph) -> None:
    """An import inside a function counts: `__main__` imports the runner only in `main`."""
    assert graph.direct_import_exists(
        importer="shapescript.__main__", imported=f"{COMMANDS}.runner"
    )


def test_every_command_registers_under_its_name() -> None:
    """The entry point builds its parser from the registry; `python -m shapescript` tells a
    command from a program by the names in `commands.names`, so the two agree."""
    from shapescript.commands import entry, names

    assert tuple(command.NAME for command in entry.COMMANDS) == names.NAMES
    for command in entry.COMMANDS:
        assert command.__name__ == f"{COMMANDS}.{command.NAME}"
        command.add_arguments(argparse.ArgumentParser())
        assert callable(command.run)
