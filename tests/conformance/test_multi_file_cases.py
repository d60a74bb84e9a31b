"""Diagnostics that need several files: each folder under tests/data/multi_file is a set of
`.ss` files that import each other, and checking each file, with imports found next to
it, yields exactly the codes its markers expect."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from shapescript.analysis import analyze
from shapescript.syntax.source import SourceFile
from tests.markers import expected_markers

CASES = Path(__file__).resolve().parent.parent / "data" / "multi_file"
CASE_FILES = sorted(CASES.glob("*/*.ss"))


def reported(path: Path) -> Counter[tuple[int, str]]:
    source = SourceFile.from_text(str(path), path.read_text(encoding="utf-8"))
    return Counter((source.position(d.span.start).line, d.code) for d in analyze(source))


@pytest.mark.parametrize(
    "path", CASE_FILES, ids=[f"{path.parent.name}/{path.stem}" for path in CASE_FILES]
)
def test_each_file_reports_exactly_its_markers(path: Path) -> None:
    expected = expected_markers(path.read_text(encoding="utf-8"))
    actual = reported(path)
    missing = expected - actual
    unexpected = actual - expected
    assert not missing and not unexpected, (
        f"missing (line, code): {sorted(missing)}; unexpected: {sorted(unexpected)}"
    )


def test_every_case_folder_expects_something() -> None:
    folders = sorted({path.parent for path in CASE_FILES})
    assert folders
    for folder in folders:
        assert any(
            expected_markers(path.read_text(encoding="utf-8")) for path in folder.glob("*.ss")
        ), folder.name
