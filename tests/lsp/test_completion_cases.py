"""Completion cases in jedi's `#?` style: the expected first items at the end of the next line."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.check.checker import check_text
from shapescript_lsp.features.completion import Completer

CASES = Path(__file__).resolve().parent.parent / "data" / "completion"
FILES = sorted(CASES.glob("*.ss"))


def cases(text: str):
    lines = text.split("\n")
    offset = 0
    starts = []
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#?"):
            expected = [label.strip() for label in stripped[2:].split(",") if label.strip()]
            target = number + 1
            yield target + 1, starts[target] + len(lines[target]), expected


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_completion_case(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    checked = check_text(text, path.name)
    for line, offset, expected in cases(text):
        result = Completer(snippets=True).complete(checked, text, offset)
        ranked = sorted(result.items, key=lambda i: i.sort_text)
        labels = [item.label for item in ranked]
        assert labels[: len(expected)] == expected, f"line {line}: {labels[:10]}"
        if ranked and ranked[0].sort_text.startswith("0"):
            assert ranked[0].preselect, "an exact fit first is preselected"
