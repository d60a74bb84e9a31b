"""`shapescript.export(...)`: the export in the calling Python, giving the ExportedProgram."""

from __future__ import annotations

import builtins
import sys
import types
from pathlib import Path

from shapescript.export.helpers import HELPERS
from shapescript.export.module import BuildFailed, build_export
from shapescript.export.prepare import choose_function, problems


def export(
    path: str,
    fn: str | None = None,
    output: str | None = None,
    *,
    aoti: bool = False,
    checks: str = "always",
    value_checks: str = "debug",
    devices: str | None = None,
    weights=None,
    seed: int = 0,
):
    """Export `fn` (by default the file's only export fn) of the `.ss` file at `path`.

    With `output`, also writes the `.pt2` file, or the AOTInductor package with `aoti`.
    A file with errors raises ShapeScriptError, a missing function ValueError. An unmarked
    function that takes a model first has the model baked in: `weights` (a checkpoint
    `save` wrote, or a model) or `M.init(seed=seed)`.
    """
    import torch

    from shapescript import analysis
    from shapescript.rt.errors import ShapeScriptError
    from shapescript.syntax.source import SourceFile

    text = Path(path).read_text(encoding="utf-8")
    source = SourceFile.from_text(str(path), text)
    checked = analysis.check(source, search_path=list(sys.path))
    if checked.errors:
        raise ShapeScriptError(checked.diagnostics, source)
    name = choose_function(checked, fn)
    found = problems(checked, name)
    if found:
        raise ShapeScriptError(found, source)
    try:
        module = build_export(
            checked, name, devices=devices, checks=checks, value_checks=value_checks
        )
    except BuildFailed as failed:
        raise ShapeScriptError(failed.diagnostics, source) from None
    # torch.cond and torch.while_loop look the functions' module up by name.
    module_name = f"_ss_export_{name}_{id(module)}"
    made = types.ModuleType(module_name)
    namespace = made.__dict__
    sys.modules[module_name] = made
    try:
        exec(builtins.compile(module.tree, str(path), "exec", dont_inherit=True), namespace)
        helpers = builtins.compile(HELPERS, "<shapescript export>", "exec", dont_inherit=True)
        exec(helpers, namespace)
        device = namespace.get("_ss_device", torch.device("cpu"))
        if weights is not None and not isinstance(weights, str | Path):
            weights = {key: value.detach() for key, value in weights.state_dict().items()}
        elif weights is not None:
            weights = str(weights)
        return namespace["_ss_export"](
            namespace[name], module.spec.as_data(), device, output, aoti, weights, seed
        )
    finally:
        sys.modules.pop(module_name, None)
