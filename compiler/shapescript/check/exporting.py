"""What a checked file offers the files that import it: its `ModuleExports`, read off
its `Checked` result and its module scope once the whole file is checked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import UNKNOWN
from shapescript.check.analyses.padding import complete_facts
from shapescript.check.analyses.regularity_exports import ExportedSummaries
from shapescript.check.declarations.module_exports import EXPORTED_KINDS, ModuleExports, devices_of
from shapescript.records import replace

if TYPE_CHECKING:
    from shapescript.check.declarations.module_scope import ModuleScope
    from shapescript.check.program import Checked


def exports_of(checked: Checked, scope: ModuleScope) -> ModuleExports:
    """What a checked file offers the files that import it."""
    exports = ModuleExports(checked.source.path, checked.source.text)
    exports.devices = devices_of(checked.module)
    inferred = {
        id(item.item): item.body.inferred for item in checked.items if item.body is not None
    }
    for name, symbol in checked.module_symbols.items():
        kind = symbol.kind
        if kind not in EXPORTED_KINDS:
            continue
        exports.symbols[name] = symbol
        if kind == "dim" and name in scope.dim_values:
            exports.dims[name] = scope.dim_values[name]
        elif kind == "domain" and name in scope.domain_intervals:
            exports.domains[name] = scope.domain_intervals[name]
        elif kind == "alias" and name in scope.aliases:
            exports.aliases[name] = scope.aliases[name]
        elif kind == "model" and name in scope.models and name in scope.model_infos:
            exports.models[name] = (scope.models[name], scope.model_infos[name])
        elif kind in ("data", "logs") and name in scope.records:
            exports.records[name] = scope.records[name]
        elif kind in ("fn", "extern") and name in scope.signatures:
            signature = scope.signatures[name]
            if signature.return_type is None:
                returned = inferred.get(id(signature.decl), UNKNOWN)
                signature = replace(signature, return_type=returned)
            exports.functions[name] = signature
    table = scope.imports
    if table is not None:
        exports.prefixes = dict(table.prefixes)
        exports.modules = dict(table.modules)
        exports.dependencies = table.dependencies
        exports.import_prefixes = dict(table.names.prefixes)
    exports.errors = [error for error in checked.errors]
    exports.param_reads = dict(checked.param_reads)
    exports.logs = dict(checked.logs)
    exports.data = dict(checked.data)
    exports.padding = complete_facts(checked)
    exports.overloads = {name: dict(found) for name, found in checked.overloads.items()}
    exports.bases = dict(scope.function_bases)
    exports.regularity = ExportedSummaries(checked, scope.symbols, table)
    return exports
