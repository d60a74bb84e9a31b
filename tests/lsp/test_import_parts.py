"""The parts of following imports in the editor, without a client: which open documents a
change reaches, where the import edit goes, how another file is named and which files
would make a cycle, the search path and the reader."""

from __future__ import annotations

from pathlib import Path

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.dependents import dependents
from shapescript_lsp.documents import Document
from shapescript_lsp.import_edits import import_edit
from shapescript_lsp.import_graph import WorkspaceView
from shapescript_lsp.import_reading import OpenFirstReader, search_path
from shapescript_lsp.workspace import WorkspaceIndex
from tests.lsp.imports_workspace import write_workspace


def _analysed(root: Path, name: str) -> Document:
    path = root / name
    document = Document(path.as_uri(), path.read_text(), 1)
    document.analysis = check_source(
        SourceFile.from_text(str(path), document.text), search_path=[str(root)]
    )
    document.analysis_revision = document.revision
    return document


def test_a_change_reaches_the_documents_that_import_the_file(tmp_path: Path):
    write_workspace(tmp_path)
    (tmp_path / "far.ss").write_text("import train\n")
    names = ("main.ss", "user.ss", "lib.ss", "far.ss", "generic.ss")
    main, user, lib, far, generic = documents = [_analysed(tmp_path, n) for n in names]
    attention = str(tmp_path / "attention.ss")
    # far.ss imports attention.ss only through train.ss.
    assert list(dependents(documents, attention, any_import=False)) == [main, far]
    assert list(dependents(documents, str(tmp_path / "train.ss"), any_import=False)) == [far]
    assert list(dependents(documents, str(tmp_path / "lib.ss"), any_import=False)) == [user]
    new = str(tmp_path / "new.ss")
    assert list(dependents(documents, new, any_import=True)) == [main, user, far]
    # A document being checked again may have read the old text.
    main.invalidate()
    assert list(dependents(documents, str(tmp_path / "other.ss"), any_import=False)) == [main]


def _edit(text: str, module: str = "attention") -> tuple[int, int, str]:
    edit = import_edit(text, module)
    assert edit.range.start == edit.range.end
    return edit.range.start.line, edit.range.start.character, edit.new_text


def test_the_import_goes_after_the_imports_or_before_the_first_declaration():
    assert _edit("import lib\nimport python json\n\nfn f() = 1\n") == (2, 0, "import attention\n")
    assert _edit("# Notes.\n\n## Doc.\n# more\nfn f() = 1\n") == (2, 0, "import attention\n\n")
    assert _edit("dim D = 4\r\nfn f() = 1\r\n") == (0, 0, "import attention\n\n")
    assert _edit("import lib") == (0, 10, "\nimport attention")
    assert _edit("") == (0, 0, "import attention\n")


def _view(root: Path, own: str, path: list[str]) -> WorkspaceView:
    index = WorkspaceIndex()
    index.set_roots([root])
    return WorkspaceView(str(root / own), index.refresh(), path)


def test_other_files_are_named_as_an_import_finds_them(tmp_path: Path):
    write_workspace(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mlp.ss").write_text("dim E = 2\n")
    (tmp_path / "models" / "lib.ss").write_text("dim F = 2\n")
    view = _view(tmp_path, "main.ss", [str(tmp_path)])
    assert view.module_name(str(tmp_path / "models" / "mlp.ss")) == "models.mlp"
    assert view.module_name(str(tmp_path / "train.ss")) == "train"
    inner = _view(tmp_path, "models/mlp.ss", [str(tmp_path)])
    # From models/, `import lib` finds models/lib.ss first: the top lib.ss has no name.
    assert inner.module_name(str(tmp_path / "models" / "lib.ss")) == "lib"
    assert inner.module_name(str(tmp_path / "lib.ss")) is None
    assert inner.module_name(str(tmp_path / "train.ss")) == "train"


def test_files_that_import_the_document_directly_or_not_would_make_a_cycle(tmp_path: Path):
    write_workspace(tmp_path)
    (tmp_path / "far.ss").write_text("import uses_main\n")
    view = _view(tmp_path, "main.ss", [str(tmp_path)])
    assert view.importers_of_own() == {str(tmp_path / "uses_main.ss"), str(tmp_path / "far.ss")}
    assert not view.importable(str(tmp_path / "far.ss"))
    assert view.importable(str(tmp_path / "train.ss"))
    assert _view(tmp_path, "attention.ss", [str(tmp_path)]).importers_of_own() == {
        str(tmp_path / name) for name in ("main.ss", "train.ss", "uses_main.ss", "far.ss")
    }


def test_the_search_path_is_the_workspace_then_pythonpath(tmp_path: Path):
    roots = [tmp_path / "a", tmp_path / "b"]
    environ = {"PYTHONPATH": f"{tmp_path / 'c'}:{tmp_path / 'a'}"}
    assert list(search_path(roots, environ)) == [str(roots[0]), str(roots[1]), str(tmp_path / "c")]


def test_the_reader_gives_an_open_documents_text_before_the_files(tmp_path: Path):
    (tmp_path / "lib.ss").write_text("on disk")
    (tmp_path / "other.ss").write_text("other on disk")
    document = Document((tmp_path / "lib.ss").as_uri(), "in the editor", 1)
    read = OpenFirstReader({document.path: document})
    assert read(str(tmp_path / "lib.ss")) == "in the editor"
    assert read(str(tmp_path / "other.ss")) == "other on disk"
    assert read(str(tmp_path / "missing.ss")) is None
