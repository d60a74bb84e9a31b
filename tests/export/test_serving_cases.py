"""Every `.ss` case under tests/data/serving gives exactly the serving diagnostics
(E3301-E3305, and E3307 for `--gguf`) its markers expect for its `forward`, as `--vllm`
and `--gguf` report them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.export.serving import gguf_diagnostics, serving_diagnostics
from shapescript.syntax.source import SourceFile
from tests.markers import expected_markers

CASES = Path(__file__).resolve().parent.parent / "data" / "serving"
CASE_FILES = sorted(CASES.glob("*.ss"))


@pytest.mark.parametrize("path", CASE_FILES, ids=[path.stem for path in CASE_FILES])
def test_case_reports_exactly_its_markers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    source = SourceFile.from_text(str(path), text)
    checked = check(source)
    assert not checked.errors, [diag.message for diag in checked.errors]
    actual = Counter(
        (source.position(diag.span.start).line, diag.code)
        for diag in serving_diagnostics(checked, "forward") + gguf_diagnostics(checked, "forward")
    )
    expected = expected_markers(text)
    assert actual == expected, f"expected {sorted(expected)}, got {sorted(actual)}"


def test_the_cases_cover_a_valid_program_and_each_kind_of_mask() -> None:
    names = {path.stem for path in CASE_FILES}
    assert {"E3304-no-mask", "E3304-other-mask", "E3304-alias", "E3307-no-positions"} <= names
    assert any(name.startswith("valid") for name in names)
