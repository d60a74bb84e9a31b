"""The export module: a standalone build of the file, the export helpers, the function's
input spec, and a `__main__` that traces it and writes the `.pt2` file."""

from __future__ import annotations

import ast
import pprint

from shapescript.check.program import Checked
from shapescript.export.control import lower_control_flow
from shapescript.export.helpers import HELPERS
from shapescript.export.spec import ExportSpec, export_spec
from shapescript.records import record


@record
class ExportModule:
    """The module's text, its tree with the `.ss` lines (for running in this Python),
    the spec, and which `.ss` line each line of the text came from."""

    text: str
    tree: ast.Module
    spec: ExportSpec
    lines: dict[int, int]


class BuildFailed(Exception):
    """The file has errors, or the compiler can't build it standalone: `diagnostics`."""

    def __init__(self, diagnostics: list) -> None:
        super().__init__("the file has errors")
        self.diagnostics = diagnostics


def build_export(
    checked: Checked,
    function: str,
    *,
    devices: str | None = None,
    checks: str = "always",
    value_checks: str = "debug",
) -> ExportModule:
    """The export module of `function` (SpecError when its inputs can't be made)."""
    from shapescript.codegen import BuildOptions, devices_line, generate
    from shapescript.export.prepare import baked_model

    spec = export_spec(checked, function, model_first=baked_model(checked, function) is not None)
    if devices is None and devices_line(checked)[0] is None:
        devices = "cpu"
    options = BuildOptions(
        devices=devices,
        checks=checks,
        value_checks=value_checks,
        standalone=True,
        host_checks=False,
    )
    generated = generate(checked, options)
    errors = [diag for diag in generated.diagnostics if diag.is_error]
    if generated.tree is None or errors:
        raise BuildFailed(errors or generated.diagnostics)
    tree = lower_control_flow(generated.tree, _host_params(checked))
    source = ast.unparse(tree) + "\n"
    tail = _tail(spec, checked.source.path)
    text = _header(generated.source) + source + "\n\n" + HELPERS + tail
    lines = {line + 1: origin for line, origin in _line_map(tree, source).items()}
    return ExportModule(text, tree, spec, lines)


def _host_params(checked: Checked) -> dict[str, set[str]]:
    """Each function's int, float and bool parameters, by function name."""
    from shapescript.check.algebra.types import HostType

    return {
        name: {param.name for param in signature.params if isinstance(param.type, HostType)}
        for name, signature in checked.signatures.items()
        if not getattr(signature, "extern", False)
    }


def _header(source: str) -> str:
    """The build's first line, which says where the module came from (one line)."""
    first = source.split("\n", 1)[0]
    return first + "\n" if first.startswith("#") else "\n"


def _spec_lines(spec: ExportSpec) -> str:
    return f"\n_SS_EXPORT_SPEC = {pprint.pformat(spec.as_data(), width=96, sort_dicts=False)}\n"


def _tail(spec: ExportSpec, path: str) -> str:
    return (
        _spec_lines(spec)
        + f"_SS_SOURCE = {path!r}\n"
        + "_SS_LINES = {}\n\n\n"
        + 'if __name__ == "__main__":\n'
        + "    _ss_sys.exit(\n"
        + "        _ss_main(\n"
        + f"            {spec.function},\n"
        + "            _SS_EXPORT_SPEC,\n"
        + "            globals().get('_ss_device', _ss_torch.device('cpu')),\n"
        + "            _SS_SOURCE,\n"
        + "            _SS_LINES,\n"
        + "        )\n"
        + "    )\n"
    )


def _line_map(tree: ast.Module, text: str) -> dict[int, int]:
    """Each line of the generated text whose statement came from a `.ss` line: that line.

    The text is the tree unparsed, so parsing it again gives the same statements in the
    same order; pairing them gives the map."""
    try:
        parsed = ast.parse(text)
    except SyntaxError:
        return {}
    ours = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    theirs = [node for node in ast.walk(parsed) if isinstance(node, ast.stmt)]
    if len(ours) != len(theirs):
        return {}
    return {
        mine.lineno: source.lineno
        for source, mine in zip(ours, theirs, strict=True)
        if getattr(source, "lineno", 0)
    }


def with_lines(module: ExportModule) -> str:
    """The module's text with its line map filled in."""
    return module.text.replace("_SS_LINES = {}\n", f"_SS_LINES = {module.lines!r}\n", 1)
