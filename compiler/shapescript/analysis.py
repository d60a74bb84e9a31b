"""The one analysis entry point that the CLI and other consumers call."""

from __future__ import annotations

from collections.abc import Sequence

from shapescript.check.checker import check_source
from shapescript.check.declarations.import_session import Reader
from shapescript.check.program import Checked
from shapescript.deep import run_deep
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.syntax.source import SourceFile


def analyze(
    source: SourceFile,
    *,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
    retain: list[Checked] | None = None,
) -> list[Diagnostic]:
    """Every diagnostic found in one source file; the checked program is appended to
    `retain`, when given, instead of being freed on return. Only the diagnostics are
    wanted, so the facts only codegen and hovers read are left out of the retained
    program (see `check_parsed`'s `all_facts`)."""
    checked = check_source(source, search_path=search_path, read=read, all_facts=False)
    if retain is not None:
        retain.append(checked)
    return checked.diagnostics


def check(
    source: SourceFile,
    *,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
    devices: str | None = None,
) -> Checked:
    """The checked program: diagnostics, types and symbols, for every consumer.

    The `.ss` files it imports are found next to it, then in each folder of
    `search_path`, then in the standard library; `read(path)` gives a file's text (None
    if it can't be read), by default from disk. `devices`, a build's `--devices`, is
    checked as the file's devices line would be when it has none and it names several.
    """
    if devices is None or not _several(devices):
        return check_source(source, search_path=search_path, read=read)
    return run_deep(_check_on, source, devices, search_path, read)


def _several(devices: str) -> bool:
    """Whether the devices text names several devices (one device checks as without)."""
    from shapescript.rt.devices import parse_devices
    from shapescript.rt.errors import DeviceError

    try:
        return parse_devices(devices).several
    except DeviceError:
        return False


def _check_on(
    source: SourceFile, devices: str, search_path: Sequence[str], read: Reader | None
) -> Checked:
    """`source` checked as if it began with `devices <devices>` (if it has no devices
    line): several devices change where functions run and what they send."""
    from shapescript.check.checker import check_parsed
    from shapescript.rt.devices import parse_devices
    from shapescript.syntax import ast
    from shapescript.syntax.parser import parse
    from shapescript.syntax.source import Span

    parsed = parse(source)
    module = parsed.module
    if not any(isinstance(item, ast.DevicesDecl) for item in module.items):
        spec = parse_devices(devices)
        numbers = list(spec.numbers) if spec.numbers is not None else None
        # Where the line would be: at the file's start, with no text of its own.
        module.items.insert(0, ast.DevicesDecl(spec.kind, Span(0, 0), numbers, [], Span(0, 0)))
        if module.bases:
            module.bases.insert(0, 0)
    return check_parsed(parsed, search_path=search_path, read=read)
