"""`shapescript check` output on real files, pinned as expected-output snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.cli import main
from tests.snapshot import assert_matches_snapshot

CASES = Path(__file__).resolve().parent / "cases"
CASE_FILES = sorted(CASES.glob("*.ss"))


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_check_output(
    path: Path, output_format: str, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.chdir(CASES)
    status = main(["check", path.name, "--format", output_format])
    out = capsys.readouterr().out
    suffix = "txt" if output_format == "text" else "json"
    assert_matches_snapshot(out, CASES / f"{path.stem}.{suffix}.expected")
    assert status == (0 if path.stem == "clean" else 1)
