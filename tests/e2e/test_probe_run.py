"""The one helper that every real-VS Code test file runs the shared probe through
(test_vscode.run_vscode_probe): the command and environment it gives the probe's runner,
and what it does with the runner's output. A stand-in runner takes the probe's place, so
no VS Code starts."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.e2e.test_vscode import OUTPUT_CHANNEL, PROBE_DIR, run_vscode_probe

#: A runner that prints, as the probe's report, the arguments and environment it was given.
ECHO_RUNNER = """\
import json, os, sys
print(json.dumps({
    "argv": sys.argv[1:],
    "env": {k: os.environ.get(k) for k in
            ("SS_E2E_DRIVE", "SS_E2E_CONFIG", "SS_E2E_SETTINGS", "SS_E2E_EXTRA")},
}))
"""
#: A runner that fails before printing any report.
BROKEN_RUNNER = "import sys\nprint('Traceback: no report')\nsys.exit(3)\n"


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_the_probe_gets_the_file_the_steps_and_the_drive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SS_E2E_SETTINGS", '{"left": "over from elsewhere"}')
    drive = tmp_path / "drive.js"
    report = run_vscode_probe(
        tmp_path / "x.vsix",
        tmp_path / "ws",
        "a.ss",
        tmp_path,
        probe_steps={"hover": "x#2+1"},
        timeout_ms=1234,
        drive=drive,
        config={"names_file": "b.ss"},
        environment={"SS_E2E_EXTRA": "yes"},
        runner=ECHO_RUNNER,
    )
    argv = report["argv"]
    assert argv[:3] == [str(PROBE_DIR), str(tmp_path / "x.vsix"), OUTPUT_CHANNEL]
    assert _option(argv, "--workspace") == str(tmp_path / "ws")
    assert _option(argv, "--file") == "a.ss"
    assert _option(argv, "--server-cmd") == f"{sys.executable} -m shapescript_lsp"
    assert _option(argv, "--out") == str(tmp_path / "shots")
    assert _option(argv, "--timeout-ms") == "1234"
    assert _option(argv, "--hover") == "x#2+1"
    assert [_option(argv, f"--{n}") for n in ("completion", "definition", "edit")] == [""] * 3
    assert report["env"] == {
        "SS_E2E_DRIVE": str(drive),
        "SS_E2E_CONFIG": json.dumps({"names_file": "b.ss"}),
        "SS_E2E_SETTINGS": None,  # not asked for: none left over from this process
        "SS_E2E_EXTRA": "yes",
    }
    assert report["_shots"] == str(tmp_path / "shots")
    assert report["_exit"] == 0
    assert "SS_E2E_EXTRA" not in os.environ


def test_the_probe_s_own_timeout_is_kept_unless_one_is_given(tmp_path: Path) -> None:
    report = run_vscode_probe(tmp_path / "x.vsix", tmp_path, "a.ss", tmp_path, runner=ECHO_RUNNER)
    assert "--timeout-ms" not in report["argv"]
    assert report["env"]["SS_E2E_DRIVE"] is None


def test_a_run_that_prints_no_report_fails_the_test_with_its_output(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        run_vscode_probe(tmp_path / "x.vsix", tmp_path, "a.ss", tmp_path, runner=BROKEN_RUNNER)
    message = str(failed.value)
    assert "no JSON report (exit 3)" in message
    assert "Traceback: no report" in message
