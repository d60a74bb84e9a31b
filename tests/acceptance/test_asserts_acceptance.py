"""Issue 33's acceptance for asserts, through the command line: one proved, one left to
run time, one refuted with a counterexample at the call that breaks it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROGRAM = Path(__file__).parent / "asserts_generate.ss"


def _shapescript(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shapescript", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_refutes_the_call_with_a_counterexample() -> None:
    done = _shapescript("check", str(PROGRAM))
    assert done.returncode == 1
    assert "error[E3501]: `assert n <= T` in `window` fails for n = 33 when called from " in (
        done.stdout
    )
    assert "`generate` at line 13, where n = T + 1" in done.stdout
    assert done.stdout.count("error[") == 1


def test_build_leaves_the_proved_assert_out_and_checks_the_other_at_run_time(
    tmp_path: Path,
) -> None:
    fixed = tmp_path / "fixed.ss"
    fixed.write_text(PROGRAM.read_text(encoding="utf-8").replace("(T + 1)", "T"), encoding="utf-8")
    done = _shapescript("build", str(fixed))
    assert done.returncode == 0, done.stderr
    # Only the undecided assert is checked: in `window` and in the copy of it that compiled
    # callers call; the proved one is left out of both.
    checked = re.findall(r"assert_failed\('([^']*)'", done.stdout)
    assert checked and set(checked) == {"n <= T"}
