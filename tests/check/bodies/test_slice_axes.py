"""A slice keeps its axis: `:` (and a slice whose size is the axis's own) keeps the axis's
name, so `over=` and broadcasting by name still find it; a slice of another size is an
axis of that size without a name."""

from __future__ import annotations

import pytest

from shapescript.check.checker import check_text


def codes(text: str) -> list[tuple[str, str]]:
    checked = check_text(text, "slices.ss")
    return [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]


@pytest.mark.parametrize(
    "body",
    [
        "fn f(x: [n D]) -> [2] = mean(x[:, 0:2], over=n)",
        "fn f(x: [n D]) -> [D] = mean(x[:], over=n)",
        "fn f(x: [n D]) -> [D] = mean(x[0:n], over=n)",
        "fn f(x: [n D]) -> [n] = mean(x[:, :], over=D)",
        "fn f(x: [n D], y: [D n]) -> [n D] = x[:, 0:D] + y[:, :]",
    ],
)
def test_a_slice_of_the_whole_axis_keeps_its_name(body: str) -> None:
    assert codes(f"dim D = 3\n{body}\n") == []


def test_a_slice_of_another_size_has_no_name() -> None:
    text = "dim D = 3\nfn f(x: [n D]) -> [D] = mean(x[1:], over=n)\n"
    assert codes(text) == [("E0405", "n")]
