"""The JSON output of `shapescript check --format json`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.diagnostics.render_json import diagnostic_to_json, render_json
from shapescript.syntax.source import SourceFile, Span

DOC = Path(__file__).resolve().parents[2] / "docs" / "json-format.md"

TEXT = "fn f() -> [] = 1.0\n\nfn f() -> [] = 2.0\n"
SOURCE = SourceFile.from_text("examples/a.ss", TEXT)
TWICE = Diagnostic(
    code="E0302",
    message="name defined twice",
    primary=Label(Span(23, 24), "second definition here"),
    secondary=[Label(Span(3, 4), "first defined here"), Label(Span(0, 2))],
    notes=["functions share one namespace"],
    help="rename one of them",
    path="examples/a.ss",
)


def test_fields_of_a_diagnostic() -> None:
    assert diagnostic_to_json(TWICE, SOURCE) == {
        "code": "E0302",
        "severity": "error",
        "title": "Name defined twice",
        "message": "name defined twice",
        "file": "examples/a.ss",
        "range": {"start": {"line": 3, "column": 4}, "end": {"line": 3, "column": 5}},
        "label": "second definition here",
        "related": [
            {
                "file": "examples/a.ss",
                "range": {"start": {"line": 1, "column": 4}, "end": {"line": 1, "column": 5}},
                "message": "first defined here",
            },
            {
                "file": "examples/a.ss",
                "range": {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 3}},
                "message": None,
            },
        ],
        "notes": ["functions share one namespace"],
        "help": "rename one of them",
    }


def test_missing_label_and_help_are_null() -> None:
    diag = Diagnostic("W0201", "doc comment not attached", Label(Span(0, 2)))
    item = diagnostic_to_json(diag, SOURCE)
    assert item["label"] is None
    assert item["help"] is None
    assert item["related"] == []
    assert item["notes"] == []
    assert item["severity"] == "warning"
    assert item["file"] == "examples/a.ss"


def test_positions_are_one_based_with_an_exclusive_end() -> None:
    source = SourceFile.from_text("a.ss", "ab\ncdef\n")
    whole_second_line = Diagnostic("E0301", "m", Label(Span(3, 7)))
    item = diagnostic_to_json(whole_second_line, source)
    assert item["range"] == {"start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 5}}


def test_empty_and_multi_line_ranges() -> None:
    source = SourceFile.from_text("a.ss", "ab\ncdef\n")
    empty = diagnostic_to_json(Diagnostic("E0106", "m", Label(Span(2, 2))), source)
    assert empty["range"]["start"] == empty["range"]["end"] == {"line": 1, "column": 3}
    across = diagnostic_to_json(Diagnostic("E0406", "m", Label(Span(1, 5))), source)
    assert across["range"] == {"start": {"line": 1, "column": 2}, "end": {"line": 2, "column": 3}}
    at_end = diagnostic_to_json(Diagnostic("E0201", "m", Label(Span(8, 8))), source)
    assert at_end["range"]["start"] == {"line": 3, "column": 1}


def test_columns_count_code_points() -> None:
    source = SourceFile.from_text("a.ss", "# 幅\tx y\n")
    item = diagnostic_to_json(Diagnostic("E0301", "m", Label(Span(6, 7))), source)
    assert item["range"]["start"] == {"line": 1, "column": 7}


def test_document_shape_and_summary() -> None:
    hint = Diagnostic("H0601", "LaTeX", Label(Span(0, 1)), path="b.ss")
    warning = Diagnostic("W0201", "doc comment", Label(Span(0, 1)), path="b.ss")
    document = json.loads(render_json([(TWICE, SOURCE), (warning, SOURCE), (hint, SOURCE)], 3))
    assert list(document) == ["version", "files_checked", "diagnostics", "summary"]
    assert document["version"] == 1
    assert document["files_checked"] == 3
    assert [item["code"] for item in document["diagnostics"]] == ["E0302", "W0201", "H0601"]
    assert document["summary"] == {"errors": 1, "warnings": 1, "hints": 1}


def test_empty_document() -> None:
    document = json.loads(render_json([], 0))
    assert document == {
        "version": 1,
        "files_checked": 0,
        "diagnostics": [],
        "summary": {"errors": 0, "warnings": 0, "hints": 0},
    }


def field_names(value: object, prefix: str = "") -> set[str]:
    """Every field of a JSON value, with arrays' items written as `name[].field`."""
    names: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{prefix}.{key}" if prefix else key
            names.add(name)
            names |= field_names(item, name)
    elif isinstance(value, list):
        for item in value:
            names |= field_names(item, f"{prefix}[]")
    return names


def test_every_field_is_documented() -> None:
    documented = set(re.findall(r"^\| `([^`]+)` \|", DOC.read_text(encoding="utf-8"), re.M))
    document = json.loads(render_json([(TWICE, SOURCE)], 1))
    names = field_names(document)
    names = {name.removeprefix("diagnostics[].") for name in names}
    positions = {name for name in names if re.search(r"(^|\.)range\.|\.(start|end)", name)}
    assert names - positions - {"diagnostics"} <= documented, "fields missing from the doc"
    assert {"version", "files_checked", "diagnostics", "summary"} <= documented
    text = DOC.read_text(encoding="utf-8")
    for word in ('"line"', '"column"', "`start`", "`end`"):
        assert word in text
