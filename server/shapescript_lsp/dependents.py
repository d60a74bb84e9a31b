"""Which open documents to check again when another `.ss` file changes.

A document's analysis records every file its imports found, directly or through other
files, with the text it read (`ImportTable.dependencies`). When one of those files
changes, in the editor or on disk, the document is checked again; when a `.ss` file is
created or deleted, every document with imports is, since an import may now find
another file or none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from shapescript_lsp.documents import Document

#: An `import` of a `.ss` file, from its line's start.
_IMPORT = re.compile(r"import\s+(?!python\b)\w")


def imports_a_file(text: str) -> bool:
    """Whether a line of the text starts with an import of a `.ss` file.

    Only the places holding `import` are matched: a multiline `^` pattern tries every
    offset, about 9 ms a megabyte, holding the GIL that a big document's analysis and
    the event loop share."""
    at = text.find("import")
    while at != -1:
        if (at == 0 or text[at - 1] == "\n") and _IMPORT.match(text, at) is not None:
            return True
        at = text.find("import", at + 1)
    return False


def dependents(documents: Iterable[Document], path: str, *, any_import: bool) -> Iterator[Document]:
    """The open documents, other than `path`'s, whose check reads the file at `path` (or,
    with `any_import`, that import any file)."""
    for document in documents:
        if document.path == path:
            continue
        checked = document.analysis
        if checked is None or document.analysis_revision != document.revision:
            # Not checked yet, or being checked: that check may have read the old text.
            if imports_a_file(document.text):
                yield document
            continue
        table = checked.imports
        if table is None or not table.infos:
            continue
        if any_import or any(found.path == path for found in table.dependencies):
            yield document
