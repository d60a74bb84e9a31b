"""Every `.ss` case under tests/data/diagnostics yields exactly the codes its markers expect."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from shapescript.analysis import analyze
from shapescript.syntax.source import SourceFile
from tests.markers import expected_markers

CASES = Path(__file__).resolve().parent.parent / "data" / "diagnostics"
CASE_FILES = sorted(CASES.glob("*.ss"))


def reported(path: Path) -> Counter[tuple[int, str]]:
    source = SourceFile.from_text(str(path), path.read_text(encoding="utf-8"))
    return Counter((source.position(d.span.start).line, d.code) for d in analyze(source))


@pytest.mark.parametrize("path", CASE_FILES, ids=[path.stem for path in CASE_FILES])
def test_case_reports_exactly_its_markers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = expected_markers(text)
    actual = reported(path)
    missing = expected - actual
    unexpected = actual - expected
    assert not missing and not unexpected, (
        f"missing (line, code): {sorted(missing)}; unexpected: {sorted(unexpected)}"
    )


def test_every_case_expects_something() -> None:
    for path in CASE_FILES:
        assert expected_markers(path.read_text(encoding="utf-8")), path.name
