"""Notebook transcripts under tests/data/notebooks: each `# In [k]` section is a
`%%shapescript` cell run in that order (a `# Python` section runs as Python), and each
cell reports exactly the codes its markers expect; a cell without markers runs. Each
transcript starts as a new kernel does, without devices."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from shapescript.notebook.session import Session
from shapescript.rt import devices
from tests.markers import expected_markers

CASES = Path(__file__).resolve().parent.parent / "data" / "notebooks"
CASE_FILES = sorted(CASES.glob("*.txt"))


def sections(text: str) -> list[tuple[str, str]]:
    """(label, source) for each section: `In [k]` cells and `Python` code."""
    found: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# In [") or line == "# Python":
            label = line[2:].split("]")[0] + "]" if line.startswith("# In") else "Python"
            found.append((label, []))
        else:
            found[-1][1].append(line)
    return [(label, "\n".join(lines) + "\n") for label, lines in found]


@pytest.mark.parametrize("path", CASE_FILES, ids=[path.stem for path in CASE_FILES])
def test_each_cell_reports_exactly_its_markers(path: Path) -> None:
    torch = pytest.importorskip("torch")
    devices._reset_for_tests()
    try:
        _run_transcript(path, torch)
    finally:
        devices._reset_for_tests()


def _run_transcript(path: Path, torch) -> None:
    session = Session()
    namespace: dict[str, object] = {"torch": torch}
    for number, (label, body) in enumerate(sections(path.read_text(encoding="utf-8"))):
        if label == "Python":
            exec(body, namespace)
            continue
        text = "%%shapescript\n" + body
        outcome = session.run(text, label[3:], namespace, f"<cell {number}>")
        expected = expected_markers(text)
        actual = Counter(
            (outcome.source.position(diag.span.start).line, diag.code)
            for diag in outcome.diagnostics
        )
        assert actual == expected, f"{label}: {outcome.diagnostics}"
        assert outcome.ran == (not outcome.errors)
