"""The checker never raises, on random edits of every example program (as the parser)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from shapescript.check.checker import check_text
from tests.syntax.test_properties import edited_program, time_limit


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=edited_program())
def test_checker_never_raises_on_edited_programs(text: str) -> None:
    with time_limit(5.0):
        checked = check_text(text)
    for diagnostic in checked.diagnostics:
        assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(checked.source.text)
