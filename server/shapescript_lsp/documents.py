"""Open documents and their analyses: newest text, last analysis, last good analysis.

The store keeps its own copy of each document's text and applies the client's edits
itself (`text_edits`), by LSP's line rules; it does not use pygls's workspace documents.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lsprotocol import types

from shapescript.cancellation import Cancelled
from shapescript.check.checker import check_source
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile
from shapescript_lsp.import_reading import OpenFirstReader, normalized
from shapescript_lsp.text_edits import Change, apply_changes


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
    #: Checks the text in place of the file checker (a notebook cell's, `notebook_sync`).
    checker: Callable[[str], Checked] | None = None

    def source(self) -> SourceFile:
        return SourceFile.from_text(path_of(self.uri), self.text)

    @property
    def path(self) -> str:
        """The document's path as the checker names files (its URI when not a file)."""
        path = path_of(self.uri)
        return normalized(path) if os.path.isabs(path) else path

    def invalidate(self) -> None:
        """A file it imports changed: its analysis is stale though its text is not."""
        self.revision += 1

    def edit(self, changes: list[Change], version: int | None) -> None:
        """Apply the client's changes in order and count a new revision."""
        self.text = apply_changes(self.text, changes)
        self.version = version
        self.revision += 1


#: A document this long (in characters) is big: while another analysis runs, its own
#: pauses at each function so that the other, a small document's, isn't slowed down.
BIG_DOCUMENT = 200_000
#: How long a big document's analysis pauses each time.
YIELD_S = 0.001


class _Running:
    """How many analyses are running, on any thread."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def change(self, by: int) -> None:
        with self.lock:
            self.count += by


running = _Running()


def analyze(
    document: Document,
    text: str,
    revision: int,
    closing: threading.Event,
    search_path: Sequence[str] | None = None,
    read: OpenFirstReader | None = None,
) -> Checked:
    """Check `text` incrementally from the document's previous analysis (runs in a thread),
    finding imported files on `search_path` and reading them with `read`.

    Raises `Cancelled` once a newer text came, a file it imports changed, or the server is
    shutting down.
    """
    if document.checker is not None:
        return document.checker(text)
    source = SourceFile.from_text(path_of(document.uri), text)

    big = len(text) >= BIG_DOCUMENT

    def cancelled() -> bool:
        if big and running.count > 1:
            # Asked before each function: give the GIL to the other analysis for a while.
            time.sleep(YIELD_S)
        return document.revision != revision or closing.is_set()

    running.change(1)
    try:
        # Padding's facts are only read by hovers: worked out when one asks
        # (`complete_facts`).
        checked = check_source(
            source,
            document.analysis,
            cancelled,
            search_path=search_path or (),
            read=read,
            padding_later=True,
        )
    finally:
        running.change(-1)
    # An analysis is millions of long-lived objects without reference cycles (an old one
    # is freed by reference counting). Left to the cyclic collector, they make every few
    # keystrokes on a big file pay a full collection (a second or more on 1 MB); frozen,
    # the collector only scans what was made since. (No collection first: while another
    # analysis parses with the collector paused, the young generation holds everything it
    # made, and collecting it would stall every thread for a long while.)
    gc.freeze()
    return checked


class DocumentStore:
    def __init__(self) -> None:
        self.documents: dict[str, Document] = {}
        #: The open documents by path, for the reader of imported files.
        self.by_path: dict[str, Document] = {}
        #: Set at shutdown: every analysis in progress stops at its next item.
        self.closing = threading.Event()
        #: Where imports are looked for after the file's folder (`import_reading`).
        self.search_path: Sequence[str] = ()
        self.reader = OpenFirstReader(self.by_path)

    def open(self, uri: str, text: str, version: int | None) -> Document:
        document = self.documents.get(uri)
        if document is None:
            document = Document(uri, text, version)
            self.documents[uri] = document
            self.by_path[document.path] = document
        else:
            document.edit([_whole(text)], version)
        return document

    def get(self, uri: str) -> Document | None:
        return self.documents.get(uri)

    def close(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        if document is not None:
            document.revision += 1
            if self.by_path.get(document.path) is document:
                del self.by_path[document.path]

    async def analysis(self, document: Document) -> Checked | None:
        """The analysis of the document's current text, made off the event loop if needed.

        An analysis that a newer text overtakes is abandoned and the newer text analysed;
        None once the server is shutting down.
        """
        while not self.closing.is_set():
            async with document.lock:
                revision = document.revision
                if document.analysis is not None and document.analysis_revision == revision:
                    return document.analysis
                text = document.text
                try:
                    checked = await asyncio.to_thread(
                        analyze,
                        document,
                        text,
                        revision,
                        self.closing,
                        self.search_path,
                        self.reader,
                    )
                except Cancelled:
                    continue
                _retire_later(document.analysis, document.last_good)
                document.analysis = checked
                document.analysis_revision = revision
                if not any(d.code[1:3] in ("01", "02") for d in checked.diagnostics):
                    document.last_good = checked
                return checked
        return None


def _retire_later(*analyses: Checked | None) -> None:
    """Keep the analyses a new one replaces alive until the event loop's next turn.

    Freeing an analysis of a big file takes a while (on 1 MB, about a tenth of a
    keystroke's re-check); held a little longer, that happens after the caller has used
    the new one (published its diagnostics, answered the request), not before.
    """
    asyncio.get_running_loop().call_soon(_release, analyses)


def _release(analyses: tuple) -> None:
    """Drop the last reference to retired analyses (`_retire_later`)."""


def _whole(text: str) -> Change:
    return types.TextDocumentContentChangeWholeDocument(text=text)
