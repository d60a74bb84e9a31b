"""The `shapescript` command line, run in-process with a stand-in analysis."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import shapescript
from shapescript import analysis, cli
from shapescript.commands import check as check_command
from shapescript.commands.support import wants_color
from shapescript.diagnostics import pages as diagnostic_pages
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.syntax.source import SourceFile, Span

MARKER = re.compile(r"!([EWH]\d{4})")


def fake_analyze(source: SourceFile) -> list[Diagnostic]:
    """One diagnostic per `!CODE` marker in the text, spanning the marker, in reverse order."""
    found = [
        Diagnostic(
            code=match.group(1),
            message=f"marked {match.group(1)}",
            primary=Label(Span(match.start(), match.end()), "marker here"),
        )
        for match in MARKER.finditer(source.text)
    ]
    return found[::-1]


@pytest.fixture
def analyzed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replace the analysis with `fake_analyze`; the list collects the paths it was given."""
    seen: list[str] = []

    def analyze(source: SourceFile, **options) -> list[Diagnostic]:
        seen.append(source.path)
        return fake_analyze(source)

    monkeypatch.setattr(analysis, "analyze", analyze)
    return seen


def write(root: Path, relative: str, text: str = "fn f() -> [] = 1.0\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """Run `main` on some arguments; return its status, stdout and stderr."""

    def run(*argv: str) -> tuple[int, str, str]:
        status = cli.main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err

    return run


def assert_one_line_error(err: str) -> None:
    assert err.startswith("shapescript: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err


# check: exit statuses


def test_clean_file_exits_0(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    path = write(tmp_path, "a.ss")
    status, out, err = run("check", str(path))
    assert (status, out, err) == (0, "no problems found in 1 file\n", "")


def test_error_exits_1_and_is_rendered(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    path = write(tmp_path, "a.ss", "dim D = 4\ndim E = !E0302\n")
    status, out, err = run("check", str(path))
    assert status == 1
    assert err == ""
    assert out == (
        "error[E0302]: marked E0302\n"
        f" --> {path}:2:9\n"
        "  |\n"
        "2 | dim E = !E0302\n"
        "  |         ^^^^^^ marker here\n"
        "\n"
        "found 1 error in 1 file\n"
    )


def test_warnings_and_hints_exit_0(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    path = write(tmp_path, "a.ss", "## !W0201\n# !H0601\n")
    status, out, _ = run("check", str(path))
    assert status == 0
    assert out.endswith("found 1 warning and 1 hint in 1 file\n")


def test_missing_path_exits_2(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.ss"
    status, out, err = run("check", str(missing))
    assert status == 2
    assert out == ""
    assert_one_line_error(err)
    assert str(missing) in err
    assert analyzed == []


def test_missing_path_among_good_ones_checks_nothing(
    run: Run, analyzed: list[str], tmp_path: Path
) -> None:
    good = write(tmp_path, "a.ss", "!E0301\n")
    status, out, err = run("check", str(good), str(tmp_path / "gone"))
    assert (status, out) == (2, "")
    assert_one_line_error(err)
    assert analyzed == []


def test_file_that_is_not_ss_exits_2(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    other = write(tmp_path, "notes.txt", "hello")
    status, out, err = run("check", str(other))
    assert (status, out) == (2, "")
    assert_one_line_error(err)
    assert "notes.txt" in err


def test_no_paths_exits_2(run: Run, analyzed: list[str]) -> None:
    status, out, err = run("check")
    assert (status, out) == (2, "")
    assert_one_line_error(err)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["check", "--format", "xml", "a.ss"],
        ["check", "--colour"],
        ["explain"],
        ["explain", "E0101", "E0102"],
    ],
)
def test_argparse_usage_errors_exit_2(run: Run, argv: list[str]) -> None:
    status, out, err = run(*argv)
    assert status == 2
    assert out == ""
    assert "usage: shapescript" in err
    assert "Traceback" not in err


def test_help_exits_0(run: Run) -> None:
    status, out, _ = run("--help")
    assert status == 0
    assert "check" in out and "explain" in out


def test_internal_crash_exits_3_without_traceback(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def crash(source: SourceFile, **options) -> list[Diagnostic]:
        if source.path.endswith("b.ss"):
            raise ValueError("the checker tripped")
        return fake_analyze(source)

    monkeypatch.setattr(analysis, "analyze", crash)
    monkeypatch.delenv("SHAPESCRIPT_DEBUG", raising=False)
    write(tmp_path, "a.ss", "!E0301\n")
    broken = write(tmp_path, "b.ss")
    status, out, err = run("check", str(tmp_path))
    assert status == 3
    assert f"internal error while checking {broken}: ValueError: the checker tripped" in err
    assert "Traceback" not in err
    assert "SHAPESCRIPT_DEBUG=1" in err
    assert "error[E0301]" in out
    assert out.endswith("found 1 error in 1 file\n")


def test_internal_crash_shows_traceback_when_debugging(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def crash(source: SourceFile, **options) -> list[Diagnostic]:
        raise RuntimeError("boom")

    monkeypatch.setattr(analysis, "analyze", crash)
    monkeypatch.setenv("SHAPESCRIPT_DEBUG", "1")
    status, _, err = run("check", str(write(tmp_path, "a.ss")))
    assert status == 3
    assert "internal error while checking" in err
    assert "Traceback" in err and "RuntimeError: boom" in err


def test_crash_outside_analysis_exits_3(
    run: Run, monkeypatch: pytest.MonkeyPatch, analyzed: list[str], tmp_path: Path
) -> None:
    def broken_renderer(*args: object, **kwargs: object) -> str:
        raise KeyError("oops")

    monkeypatch.setattr(check_command, "render_diagnostic", broken_renderer)
    monkeypatch.delenv("SHAPESCRIPT_DEBUG", raising=False)
    status, _, err = run("check", str(write(tmp_path, "a.ss", "!E0301\n")))
    assert status == 3
    assert err.startswith("shapescript: internal error: KeyError")
    assert "Traceback" not in err


# check: which files, in which order, and how their paths are shown


def test_folders_are_searched_recursively_for_ss_files(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for relative in [
        "src/z.ss",
        "src/a.ss",
        "src/nested/deeper/m.ss",
        "src/b/c.ss",
        "src/.hidden/skip.ss",
        "src/nested/.cache/skip.ss",
        "src/.dotfile.ss",
        "src/readme.md",
        "src/script.ss.bak",
    ]:
        write(tmp_path, relative)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run("check", "src")
    assert status == 0
    assert analyzed == ["src/a.ss", "src/b/c.ss", "src/nested/deeper/m.ss", "src/z.ss"]
    assert out == "no problems found in 4 files\n"


def test_paths_are_shown_as_given(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "pkg/one.ss", "!E0301\n")
    write(tmp_path, "two.ss", "!E0302\n")
    monkeypatch.chdir(tmp_path)
    status, out, _ = run("check", "pkg/", "./two.ss")
    assert status == 1
    assert " --> pkg/one.ss:1:1" in out
    assert " --> ./two.ss:1:1" in out


def test_current_folder_gives_bare_relative_paths(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "sub/a.ss")
    write(tmp_path, "b.ss")
    monkeypatch.chdir(tmp_path)
    assert run("check", ".")[0] == 0
    assert analyzed == ["b.ss", "sub/a.ss"]


def test_a_file_given_twice_is_checked_once(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.ss", "!E0301\n")
    monkeypatch.chdir(tmp_path)
    status, out, _ = run("check", "a.ss", ".", "./a.ss")
    assert status == 1
    assert analyzed == ["a.ss"]
    assert out.count("error[E0301]") == 1


def test_diagnostics_are_sorted_by_file_offset_and_code(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "b.ss", "!E0401 !E0301\n")
    write(tmp_path, "a.ss", "!W0201\n!E0302 !E0301\n")
    monkeypatch.setattr(
        analysis,
        "analyze",
        lambda source, **options: [
            *fake_analyze(source),
            Diagnostic("E0207", "same place as the first", Label(Span(0, 1))),
        ],
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = run("check", "b.ss", "a.ss")
    assert status == 1
    headers = re.findall(r"^(\w+\[\w+\]).*\n --> (\S+)$", out, re.M)
    assert headers == [
        ("error[E0207]", "a.ss:1:1"),
        ("warning[W0201]", "a.ss:1:1"),
        ("error[E0302]", "a.ss:2:1"),
        ("error[E0301]", "a.ss:2:8"),
        ("error[E0207]", "b.ss:1:1"),
        ("error[E0401]", "b.ss:1:1"),
        ("error[E0301]", "b.ss:1:8"),
    ]
    assert out.endswith("found 6 errors and 1 warning in 2 files\n")


def test_files_are_read_as_utf8_keeping_line_endings(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts: list[str] = []
    monkeypatch.setattr(
        analysis, "analyze", lambda source, **options: texts.append(source.text) or []
    )
    path = tmp_path / "a.ss"
    path.write_bytes(b"\xef\xbb\xbfdim D = 4 # caf\xc3\xa9\r\n")
    assert run("check", str(path))[0] == 0
    assert texts == ["dim D = 4 # caf\u00e9\r\n"]


def test_a_file_that_is_not_utf8_is_one_e0107_and_not_analyzed(
    run: Run, analyzed: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "a.ss"
    path.write_bytes(b"dim D = 4 # caf\xe9\n")
    status, out, _ = run("check", str(path))
    assert status == 1
    assert analyzed == []
    assert out.count("error[") == 1
    assert "error[E0107]: this file is not UTF-8: byte 0xE9 at offset 15" in out


# check --format json


def test_json_output_parses(
    run: Run, analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "b.ss", "## !W0201\n")
    write(tmp_path, "a.ss", "dim D = !E0302\n")
    write(tmp_path, "c.ss")
    monkeypatch.chdir(tmp_path)
    status, out, err = run("check", "--format", "json", ".")
    assert (status, err) == (1, "")
    document = json.loads(out)
    assert document["version"] == 1
    assert document["files_checked"] == 3
    assert document["summary"] == {"errors": 1, "warnings": 1, "hints": 0}
    first, second = document["diagnostics"]
    assert (first["file"], first["code"], first["severity"]) == ("a.ss", "E0302", "error")
    assert first["title"] == "Name defined twice"
    assert first["range"] == {"start": {"line": 1, "column": 9}, "end": {"line": 1, "column": 15}}
    assert (second["file"], second["code"]) == ("b.ss", "W0201")


def test_json_output_when_clean(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    status, out, _ = run("check", str(write(tmp_path, "a.ss")), "--format=json")
    assert status == 0
    assert json.loads(out)["diagnostics"] == []


# colour


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_color_only_on_a_terminal_without_no_color() -> None:
    assert wants_color(FakeTerminal(), {})
    assert wants_color(FakeTerminal(), {"NO_COLOR": ""})
    assert not wants_color(FakeTerminal(), {"NO_COLOR": "1"})
    assert not wants_color(io.StringIO(), {})


def test_check_uses_color_on_a_terminal(
    analyzed: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli.main(["check", str(write(tmp_path, "a.ss", "!E0301\n"))]) == 1
    assert "\x1b[1;31merror[E0301]" in terminal.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    terminal.seek(0)
    terminal.truncate()
    assert cli.main(["check", str(tmp_path / "a.ss")]) == 1
    assert "\x1b" not in terminal.getvalue()


def test_check_has_no_color_when_captured(run: Run, analyzed: list[str], tmp_path: Path) -> None:
    _, out, _ = run("check", str(write(tmp_path, "a.ss", "!E0301\n")))
    assert "\x1b" not in out


# explain


@pytest.fixture
def fake_docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "docs" / "diagnostics"
    folder.mkdir(parents=True)
    (folder / "E0401.md").write_text("# E0401: Sizes don't match\n\nAn explanation.\n")
    (folder / "W0201.md").write_text("# W0201\n\nNo final newline.")
    monkeypatch.setattr(
        diagnostic_pages, "explanation_dirs", lambda: iter([tmp_path / "missing", folder])
    )
    return folder


@pytest.mark.parametrize("asked", ["E0401", "e0401", " E0401 "])
def test_explain_prints_the_page(run: Run, fake_docs: Path, asked: str) -> None:
    status, out, err = run("explain", asked)
    assert (status, err) == (0, "")
    page = fake_docs / "E0401.md"
    assert out == f"# E0401: Sizes don't match\n\nAn explanation.\n\nPage: {page}\n"


def test_explain_adds_a_final_newline(run: Run, fake_docs: Path) -> None:
    status, out, _ = run("explain", "w0201")
    assert status == 0
    assert out == f"# W0201\n\nNo final newline.\n\nPage: {fake_docs / 'W0201.md'}\n"


def test_explain_ends_with_the_page_in_the_built_site(run: Run, fake_docs: Path) -> None:
    built = fake_docs.parents[1] / "site" / "diagnostics" / "E0401.html"
    built.parent.mkdir(parents=True)
    built.write_text("<html></html>")
    status, out, _ = run("explain", "E0401")
    assert status == 0
    assert out.endswith(f"\n\nPage: {built}\n")


def test_explain_names_the_page_from_the_working_folder(
    run: Run, fake_docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(fake_docs.parents[1])
    _, out, _ = run("explain", "E0401")
    assert out.endswith("\n\nPage: docs/diagnostics/E0401.md\n")


def test_explain_highlights_shapescript_on_a_terminal(
    fake_docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "# E0401\n\n```shapescript\nfn f(x: [n]) -> [n] = relu(x)\n```\n"
    (fake_docs / "E0401.md").write_text(text)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli.main(["explain", "E0401"]) == 0
    shown = terminal.getvalue()
    assert "\x1b[" in shown
    assert re.sub(r"\x1b\[[0-9;]*m", "", shown) == f"{text}\nPage: {fake_docs / 'E0401.md'}\n"


@pytest.mark.parametrize("asked", ["X9999", "E9999", "hello", ""])
def test_explain_unknown_code_exits_2(run: Run, fake_docs: Path, asked: str) -> None:
    status, out, err = run("explain", asked)
    assert (status, out) == (2, "")
    assert_one_line_error(err)
    assert err == f"shapescript: error: unknown diagnostic code `{asked.strip()}`\n"


def test_explain_code_without_a_page_exits_2(run: Run, fake_docs: Path) -> None:
    status, out, err = run("explain", "E0302")
    assert status == 2
    assert out == "E0302: Name defined twice\n"
    assert_one_line_error(err)
    assert "E0302" in err


def test_explanation_dirs_include_the_repository_docs() -> None:
    repository_docs = Path(__file__).resolve().parents[2] / "docs" / "diagnostics"
    package_docs = Path(shapescript.__file__).resolve().parent / "docs" / "diagnostics"
    folders = list(diagnostic_pages.explanation_dirs())
    assert repository_docs in folders
    assert folders[-1] == package_docs


def test_explain_with_the_real_pages(run: Run) -> None:
    pages = sorted((Path(__file__).resolve().parents[2] / "docs" / "diagnostics").glob("*.md"))
    if not pages:
        pytest.skip("no diagnostic pages have been written yet")
    page = pages[0]
    status, out, _ = run("explain", page.stem.lower())
    assert status == 0
    text, shown_page = out.rsplit("\n\nPage: ", 1)
    marks = re.compile(r"^<!-- shapescript: .*-->\n", re.MULTILINE)
    assert "<!--" not in text
    assert text.rstrip("\n") == marks.sub("", page.read_text(encoding="utf-8")).rstrip("\n")
    assert Path(shown_page.rstrip("\n")).resolve() == diagnostic_pages.page_location(page.stem)


# version and the installed entry points


def test_version_in_process(run: Run) -> None:
    status, out, _ = run("--version")
    assert (status, out) == (0, f"shapescript {shapescript.__version__}\n")


def installed_script() -> str:
    beside = Path(sys.executable).parent / "shapescript"
    if beside.is_file():
        return str(beside)
    found = shutil.which("shapescript")
    if found is None:
        pytest.fail("the `shapescript` console script isn't installed; run pip install -e .")
    return found


def test_console_script_version() -> None:
    result = subprocess.run(
        [installed_script(), "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"shapescript {shapescript.__version__}\n"


def test_python_dash_m_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "shapescript", "check"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.startswith("shapescript: error: ")
    assert "Traceback" not in result.stderr


# check: what the command line reports about itself


def test_internal_crash_never_claims_no_problems(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def crash(source: SourceFile, **options) -> list[Diagnostic]:
        raise RecursionError("too deep")

    monkeypatch.setattr(analysis, "analyze", crash)
    monkeypatch.delenv("SHAPESCRIPT_DEBUG", raising=False)
    status, out, _ = run("check", str(write(tmp_path, "a.ss")))
    assert status == 3
    assert "no problems found" not in out
    assert out == "1 file could not be checked, because of an internal error\n"


def test_text_output_caps_diagnostics_per_file(
    run: Run, analyzed: list[str], tmp_path: Path
) -> None:
    write(tmp_path, "a.ss", "!E0301 " * 7 + "\n")
    write(tmp_path, "b.ss", "!E0302\n")
    status, out, _ = run("check", str(tmp_path), "--max-diagnostics", "3")
    assert status == 1
    assert out.count("error[E0301]") == 3
    assert out.count("error[E0302]") == 1
    assert f"{tmp_path / 'a.ss'}: 4 more diagnostics not shown" in out
    assert out.endswith("found 8 errors in 2 files\n")
    _, everything, _ = run("check", str(tmp_path), "--max-diagnostics", "0")
    assert everything.count("error[E0301]") == 7 and "not shown" not in everything
    _, as_json, _ = run("check", str(tmp_path), "--format", "json", "--max-diagnostics", "1")
    assert len(json.loads(as_json)["diagnostics"]) == 8


def test_negative_max_diagnostics_is_a_usage_error(run: Run, tmp_path: Path) -> None:
    status, _, err = run("check", str(write(tmp_path, "a.ss")), "--max-diagnostics", "-1")
    assert status == 2
    assert_one_line_error(err)
