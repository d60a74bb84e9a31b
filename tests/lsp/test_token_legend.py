"""The semantic token legend the server sends, and what the VS Code extension declares
for it: every token type and modifier that isn't one of LSP's own is declared in
package.json, and the ShapeScript ones map to theme scopes."""

from __future__ import annotations

import json
from pathlib import Path

from shapescript_lsp.features.semantic_tokens import LEGEND

PACKAGE = Path(__file__).resolve().parents[2] / "vscode-extension" / "package.json"
#: LSP's predefined token types and modifiers, which VS Code knows without a declaration.
STANDARD_TYPES = {
    "namespace", "type", "class", "enum", "interface", "struct", "typeParameter",
    "parameter", "variable", "property", "enumMember", "event", "function", "method",
    "macro", "keyword", "modifier", "comment", "string", "number", "regexp", "operator",
    "decorator",
}  # fmt: skip
STANDARD_MODIFIERS = {
    "declaration", "definition", "readonly", "static", "deprecated", "abstract", "async",
    "modification", "documentation", "defaultLibrary",
}  # fmt: skip


def _contributes() -> dict:
    return json.loads(PACKAGE.read_text())["contributes"]


def test_every_custom_token_type_and_modifier_is_declared_for_vs_code():
    contributes = _contributes()
    types = {entry["id"]: entry for entry in contributes["semanticTokenTypes"]}
    modifiers = {entry["id"] for entry in contributes["semanticTokenModifiers"]}
    custom = set(LEGEND.token_types) - STANDARD_TYPES
    assert custom == {"axis", "dim", "size", "domain", "dtype", "pythonValue"}
    assert custom <= set(types)
    assert all(types[name]["superType"] in STANDARD_TYPES for name in custom)
    assert set(LEGEND.token_modifiers) - STANDARD_MODIFIERS <= modifiers


def test_axes_dims_and_values_map_to_different_theme_scopes():
    (entry,) = _contributes()["semanticTokenScopes"]
    assert entry["language"] == "shapescript"
    scopes = entry["scopes"]
    for name in ("axis", "dim", "size", "domain", "dtype", "pythonValue"):
        assert scopes[name], name
    # A theme colors by the scope's first parts: an axis and a dim must differ there.
    assert scopes["axis"][0].split(".")[:3] != scopes["dim"][0].split(".")[:3]
    assert not any(scope.startswith("variable.other.readwrite") for scope in scopes["dim"])
