"""The prelude: the extern fn stubs of prelude.ss and nn.ss that every file sees."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.declarations.module_scope import ModuleScope
from shapescript.check.declarations.signatures import Signature, build_signature
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.declarations.type_exprs import TypeResolver
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text
from shapescript.syntax.source import Span

PACKAGE = Path(__file__).resolve().parent.parent.parent
STUB_FILES = {"prelude": PACKAGE / "prelude.ss", "nn": PACKAGE / "nn.ss"}


@record
class Prelude:
    signatures: dict[str, Signature] = field(default_factory=dict)
    symbols: dict[str, Symbol] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)


@cache
def load_prelude() -> Prelude:
    """The stub files' analysis, built once per process.

    Not kept between processes: building costs a check little (see docs/architecture.md,
    "Cold start"), and a cache entry read back would be one more thing to plant."""
    texts = {origin: path.read_text(encoding="utf-8") for origin, path in STUB_FILES.items()}
    return build_prelude(texts)


def build_prelude(texts: dict[str, str]) -> Prelude:
    """Parse and resolve the stub files."""
    prelude = Prelude()
    for origin, text in texts.items():
        prelude.texts[origin] = text
        display = f"<{origin}>"
        module = parse_text(text, display).module
        resolver = TypeResolver(Reporter())
        base = ModuleScope(display).type_context()
        for index, item in enumerate(module.items):
            if not isinstance(item, ast.ExternFnDecl):
                continue
            offset = module.base_of(index)
            prelude.signatures[item.name] = build_signature(item, resolver, base, origin=origin)
            prelude.symbols[item.name] = Symbol(
                item.name,
                "prelude",
                Span(offset + item.name_span.start, offset + item.name_span.end),
                display,
                " ".join(text[offset + item.span.start : offset + item.span.end].split()),
                item.doc.text if item.doc else None,
            )
    return prelude
