"""Open documents and their analyses: newest text, last analysis, last good analysis."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from shapescript.check.checker import check_source
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile


def path_of(uri: str) -> str:
    """The path a diagnostic shows for a document."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


@dataclass(slots=True)
class Document:
    """One open `.ss` document.

    `revision` counts the texts the client sent; an analysis made for an older revision
    is kept for reuse but not published. `last_good` is the newest analysis without
    syntax errors, which completion and hover fall back on while the file is broken.
    """

    uri: str
    text: str
    version: int | None
    revision: int = 0
    analysis: Checked | None = None
    analysis_revision: int = -1
    last_good: Checked | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def source(self) -> SourceFile:
        return SourceFile.from_text(path_of(self.uri), self.text)


def analyze(document: Document, text: str, revision: int) -> Checked:
    """Check `text` incrementally from the document's previous analysis (runs in a thread)."""
    source = SourceFile.from_text(path_of(document.uri), text)
    checked = check_source(source, document.analysis)
    return checked


class DocumentStore:
    def __init__(self) -> None:
        self.documents: dict[str, Document] = {}

    def open(self, uri: str, text: str, version: int | None) -> Document:
        document = Document(uri, text, version)
        self.documents[uri] = document
        return document

    def get(self, uri: str) -> Document | None:
        return self.documents.get(uri)

    def close(self, uri: str) -> None:
        self.documents.pop(uri, None)

    async def analysis(self, document: Document) -> Checked:
        """The analysis of the document's current text, made off the event loop if needed."""
        async with document.lock:
            revision = document.revision
            if document.analysis is not None and document.analysis_revision == revision:
                return document.analysis
            text = document.text
            checked = await asyncio.to_thread(analyze, document, text, revision)
            document.analysis = checked
            document.analysis_revision = revision
            if not any(d.code[1:3] in ("01", "02") for d in checked.diagnostics):
                document.last_good = checked
            return checked
