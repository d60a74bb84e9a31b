"""The ShapeScript language server: documents in, analyses off the event loop, features out.

Every feature reads the checker's analysis (`Checked`) and never re-derives a type. A
feature that fails logs the error and answers empty: the server never goes down
because of a file's text.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from shapescript import __version__
from shapescript.check.analyses.padding import complete_facts
from shapescript.check.checker import check_source
from shapescript.check.declarations.import_session import read_from_disk
from shapescript.check.program import Checked
from shapescript.pymodules.files import installed
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp import indexing
from shapescript_lsp.dependents import dependents
from shapescript_lsp.documents import Document, DocumentStore, path_of
from shapescript_lsp.features import verify_lens
from shapescript_lsp.features.architecture import (
    ArchitectureSettings,
    architecture_hover,
    prepare_pictures,
)
from shapescript_lsp.features.code_actions import KINDS as CODE_ACTION_KINDS
from shapescript_lsp.features.code_actions import code_actions
from shapescript_lsp.features.completion import Completer, resolve
from shapescript_lsp.features.cross_references import key_of, shared
from shapescript_lsp.features.declaration_path import declaration_in_file
from shapescript_lsp.features.definition import declaration_of, definition, references
from shapescript_lsp.features.diagnostics import publishable, to_lsp
from shapescript_lsp.features.folding import folding_ranges
from shapescript_lsp.features.formatting import FormatError, formatting_edits
from shapescript_lsp.features.function_pictures import function_picture
from shapescript_lsp.features.highlights import document_highlights
from shapescript_lsp.features.hover import HoverRenderer
from shapescript_lsp.features.inlay_hints import binding_hints_option, inlay_hints
from shapescript_lsp.features.math_hover import math_hover
from shapescript_lsp.features.padding_hover import wants_complete_facts
from shapescript_lsp.features.python_members import PYTHON_NAMES, python_roots
from shapescript_lsp.features.python_names import python_definition
from shapescript_lsp.features.python_signatures import python_signature_help
from shapescript_lsp.features.python_uses import TOP_LEVEL_KINDS, python_uses
from shapescript_lsp.features.rename import RenameRefused, plain, workspace_rename
from shapescript_lsp.features.rename import target as rename_target
from shapescript_lsp.features.selection import selection_ranges
from shapescript_lsp.features.semantic_tokens import LEGEND as TOKEN_LEGEND
from shapescript_lsp.features.semantic_tokens import TokenCache, TokenResults, semantic_tokens
from shapescript_lsp.features.signature_help import signature_help
from shapescript_lsp.features.symbols import (
    OutlineCache,
    outlines,
    workspace_symbols,
)
from shapescript_lsp.features.triggers import TRIGGER_CHARACTERS, opens_list
from shapescript_lsp.features.verify_lens import verify_lenses
from shapescript_lsp.features.workspace_uses import workspace_uses
from shapescript_lsp.import_graph import WorkspaceView
from shapescript_lsp.import_reading import normalized, search_path
from shapescript_lsp.indexing import BackgroundIndexer
from shapescript_lsp.installed_index import InstalledModules
from shapescript_lsp.library import Library
from shapescript_lsp.pictures.runs import PictureRuns
from shapescript_lsp.positions import offset_of, range_of
from shapescript_lsp.protocol import (
    DeclarationPath,
    ShapeScriptProtocol,
    Written,
    strict_converter,
)
from shapescript_lsp.python_modules import ModuleWriter
from shapescript_lsp.render.themes import DEFAULT_THEME, theme_name
from shapescript_lsp.transport import serve
from shapescript_lsp.warmup import warm_messages, warm_up
from shapescript_lsp.workspace import IndexedFile, WorkspaceIndex

log = logging.getLogger("shapescript_lsp")

IMAGE_CLIENTS = ("visual studio code", "vscode", "code - oss", "code-server", "vscodium")
DEFAULT_DEBOUNCE_S = 0.005
#: How long a file that imports the one being edited waits for typing to pause.
DEPENDENT_DELAY_S = 0.15
SWITCH_INTERVAL_S = 0.001
#: LSP's RequestFailed: a request understood but refused, with a message to show.
REQUEST_FAILED = -32803


class ShapeScriptServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "shapescript-lsp",
            __version__,
            protocol_cls=ShapeScriptProtocol,
            converter_factory=strict_converter,
        )
        self.store = DocumentStore()
        self.library = Library()
        self.images = False
        self.snippets = False
        self.python: str | None = None
        self.pictures = False
        #: Whether hovers show images at all (`shapescript.hover.pictures`); text stays.
        self.hover_images = True
        #: Whether hovers may hold HTML: VS Code's, whose extension lets them render it
        #: (vscode-extension/src/hover.ts).
        self.hover_html = False
        #: One thread that draws architecture pictures ahead of hovers, in order.
        self.picture_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pictures")
        #: The editor theme's kind pictures are drawn for (render/themes.py).
        self.theme = DEFAULT_THEME
        #: The torch worker's runs for pictures of what a function does.
        self.picture_runs = PictureRuns()
        #: The `inlayHints.bindings` option: hints after bound names (on by default).
        self.binding_hints = True
        self.debounce = DEFAULT_DEBOUNCE_S
        self.pending: dict[str, asyncio.Task] = {}
        self.index = WorkspaceIndex()
        self.indexer = BackgroundIndexer(self, self.index)
        #: Installed packages' `.ss` modules, for completion.
        self.installed_index = InstalledModules()
        #: The Python modules written beside `.ss` files on open and save.
        self.python_modules = ModuleWriter()
        #: How model architectures are shown (features/architecture.py).
        self.architecture = ArchitectureSettings()

    @property
    def dark(self) -> bool:
        """Whether the theme's background is dark, for pictures that know only light and dark."""
        return self.theme in ("dark", "highContrast")

    # ------------------------------------------------------------------ documents

    def document(self, uri: str) -> Document | None:
        return self.store.get(uri)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdin and stdout with the server's own message reader (`transport`)."""
        # Analyses run on threads; a shorter switch interval hands the GIL to the event
        # loop (and to a small document's analysis) sooner while a big one is running.
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        protocol: ShapeScriptProtocol = self.protocol  # type: ignore[assignment]

        async def run() -> None:
            try:
                await serve(stdin or sys.stdin.buffer, protocol.decode, self._deliver)
            finally:
                self.store.closing.set()

        try:
            asyncio.run(run())
        except BrokenPipeError:
            log.error("the connection to the client is lost")

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client over TCP, read by the same reader as stdio."""
        with socket.create_server((host, port)) as listener:
            log.info("listening on %s:%d", host, port)
            connection, _ = listener.accept()
        reading, writing = connection.makefile("rb"), connection.makefile("wb")
        with connection, reading, writing:
            self.start_io(reading, writing)

    def _deliver(self, message: object) -> None:
        try:
            self.protocol.handle_message(message)
        except Exception:
            log.error("handling a message failed:\n%s", traceback.format_exc())

    def report_server_error(self, error: Exception, source: object) -> None:
        """Log a failure outside a request in one line; the client isn't bothered with it."""
        log.error("%s: %s", getattr(source, "__name__", source), error)

    def schedule(self, document: Document, delay: float = 0.0) -> None:
        """Check the document after a short pause (`delay` more) and publish, unless a
        newer text came."""
        previous = self.pending.pop(document.uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[document.uri] = asyncio.get_event_loop().create_task(
            self._publish_later(document, document.revision, self.debounce + delay)
        )

    def recheck_dependents(self, path: str, any_import: bool = False) -> None:
        """Check again, once typing pauses, the open documents that import the file at
        `path` directly or through others (with `any_import`, all that import a file)."""
        open_documents = list(self.store.documents.values())
        for document in list(dependents(open_documents, path, any_import=any_import)):
            document.invalidate()
            self.schedule(document, DEPENDENT_DELAY_S)

    async def _publish_later(self, document: Document, revision: int, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            if document.revision != revision or self.library.is_library_uri(document.uri):
                return
            checked = await self.store.analysis(document)
            if (
                checked is None
                or document.revision != revision
                or self.store.get(document.uri) is not document
            ):
                return
            self._publish(document, checked)
            # Listing starts once the first check is out, not competing with it.
            self.list_python_imports(document)
            changed = await self.python_modules.after_check(document.uri, document.path, checked)
            if (
                changed
                and document.revision == revision
                and self.store.get(document.uri) is document
            ):
                self._publish(document, checked)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.error("checking %s failed:\n%s", document.uri, traceback.format_exc())

    def installed_packages(
        self, own_files: list[IndexedFile]
    ) -> tuple[dict[str, str], list[IndexedFile]]:
        """Installed packages' `.ss` modules by dotted name, and the indexed ones that aren't
        the workspace's own files (in a thread: it may ask the interpreter and read files)."""
        installed = getattr(self.store.search_path, "installed", None)
        folders = list(installed()) if installed is not None else []
        modules = self.installed_index.modules(folders)
        own = {os.path.normpath(str(indexed.path)) for indexed in own_files}
        files = [
            indexed
            for indexed in self.installed_index.indexed(folders)
            if os.path.normpath(str(indexed.path)) not in own
        ]
        return modules, files

    def list_python_imports(self, document: Document) -> None:
        """Start listing the Python modules the document imports, for completion."""
        roots = python_roots(document.path, self.index.roots)
        PYTHON_NAMES.prefetch(document.text, self.python, roots)

    def _publish(self, document: Document, checked: Checked) -> None:
        """The check's diagnostics, and W2501 if the file's Python module is hand-written;
        then the file's architecture pictures are drawn ahead for its hovers."""
        if installed(document.path):
            # An installed package's file is read-only here: nothing to fix in it.
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=document.uri, diagnostics=[])
            )
            return
        self._prepare_pictures(document, checked)
        extra = self.python_modules.extra(document.uri)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=document.uri,
                version=document.version,
                diagnostics=publishable(checked, document.uri)
                + [to_lsp(diagnostic, checked, document.uri) for diagnostic in extra],
            )
        )

    def _prepare_pictures(self, document: Document, checked: Checked) -> None:
        """In the pictures' own thread, draw the PNGs the file's model hovers will show,
        when the client shows images in hovers and no view of its own."""
        if not checked.models or not (self.images and self.hover_images):
            return
        if self.architecture.panel:
            return
        if self.store.closing.is_set():
            return
        revision = document.revision
        self.picture_worker.submit(
            prepare_pictures,
            checked,
            document.uri,
            self.architecture.detail,
            self.theme,
            self.store.search_path,
            self.store.reader,
            lambda: document.revision == revision and self.store.get(document.uri) is document,
        )

    async def located(self, params) -> tuple[Checked, Document, int] | None:
        """A position request's analysis, document and offset; None if the file isn't open."""
        checked, document = await self.analysis(params.text_document.uri)
        if checked is None:
            return None
        return checked, document, offset_of(checked.source, params.position)

    async def analysis(self, uri: str) -> tuple[Checked | None, Document | None]:
        """The current analysis of a document, or None if it isn't open."""
        document = self.store.get(uri)
        if document is None:
            return None, None
        checked = await self.store.analysis(document)
        return checked, document if checked is not None else None


server = ShapeScriptServer()


def guarded(empty=None):
    """Run a feature; on any exception, log it and answer `empty`."""

    def decorate(function):
        @functools.wraps(function)
        async def wrapper(ls: ShapeScriptServer, params):
            try:
                return await function(ls, params)
            except Exception:
                log.error("%s failed:\n%s", function.__name__, traceback.format_exc())
                ls.window_log_message(
                    types.LogMessageParams(
                        type=types.MessageType.Error,
                        message=f"shapescript: {function.__name__} failed; see the server log",
                    )
                )
                return empty

        return wrapper

    return decorate


# ---------------------------------------------------------------------- lifecycle


@server.feature(types.INITIALIZE)
def initialize(ls: ShapeScriptServer, params: types.InitializeParams) -> None:
    options = (
        params.initialization_options if isinstance(params.initialization_options, dict) else {}
    )
    client = (params.client_info.name if params.client_info else "") or ""
    ls.images = bool(options.get("images", client.lower().startswith(IMAGE_CLIENTS)))
    ls.hover_html = client.lower().startswith(IMAGE_CLIENTS)
    completion = params.capabilities.text_document and params.capabilities.text_document.completion
    item = completion.completion_item if completion else None
    ls.snippets = bool(item and item.snippet_support)
    ls.python = options.get("python")
    # Opt-in: a client that doesn't ask (Neovim's usual setup) gets no files written.
    ls.python_modules.enabled = options.get("pythonModules") is True
    ls.pictures = bool(options.get("pictures", False))
    ls.hover_images = options.get("hoverImages", options.get("pictures", True)) is not False
    ls.theme = theme_name(options.get("theme"))
    ls.binding_hints = binding_hints_option(options)
    ls.architecture = ArchitectureSettings.from_options(options)
    if "debounceMs" in options:
        ls.debounce = max(0.0, float(options["debounceMs"]) / 1000.0)
    roots = [Path(path_of(folder.uri)) for folder in params.workspace_folders or []]
    if not roots and params.root_uri:
        roots = [Path(path_of(params.root_uri))]
    ls.index.set_roots(roots)
    ls.store.search_path = search_path(roots, python=lambda: ls.python)
    if options.get("libraryDir"):
        ls.library = Library(Path(options["libraryDir"]))
    ls.index.excluded = ls.library.folder
    threading.Thread(target=_write_library, args=(ls.library,), daemon=True).start()
    warm_up()
    warm_messages(ls.protocol._converter)


def _write_library(library: Library) -> None:
    """Write the library files off the request path; definition writes them if still missing."""
    try:
        library.write()
    except OSError:
        log.error("can't write the library folder:\n%s", traceback.format_exc())


@server.feature(types.INITIALIZED)
def initialized(ls: ShapeScriptServer, params: types.InitializedParams) -> None:
    """Index the workspace in the background, showing progress where the client can, and
    ask the client to say when `.ss` files change on disk."""
    ls.indexer.start()
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is not None and watched.dynamic_registration:
        asyncio.get_event_loop().create_task(_watch_files(ls))


async def _watch_files(ls: ShapeScriptServer) -> None:
    registration = types.Registration(
        id="shapescript-watch-ss-files",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern="**/*.ss")]
        ),
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception as error:
        log.info("the client doesn't watch .ss files for the server: %r", error)


@server.feature(types.SHUTDOWN)
def shutdown(ls: ShapeScriptServer, params: object) -> None:
    """Stop every analysis in progress so that `exit` finds nothing running."""
    ls.store.closing.set()
    for task in ls.pending.values():
        task.cancel()
    ls.pending.clear()
    ls.picture_worker.shutdown(wait=False, cancel_futures=True)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: ShapeScriptServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    document = ls.store.open(item.uri, item.text, item.version)
    ls.python_modules.want(item.uri)
    ls.schedule(document)
    if read_from_disk(document.path) != document.text:
        # The files that import it read it from disk until now.
        ls.recheck_dependents(document.path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: ShapeScriptServer, params: types.DidChangeTextDocumentParams) -> None:
    document = ls.store.get(params.text_document.uri)
    if document is None:
        log.warning("didChange for %s, which isn't open: ignored", params.text_document.uri)
        return
    document.edit(list(params.content_changes), params.text_document.version)
    ls.schedule(document)
    ls.list_python_imports(document)
    ls.recheck_dependents(document.path)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: ShapeScriptServer, params: types.DidSaveTextDocumentParams) -> None:
    """Write the file's Python module once its check finds no errors."""
    document = ls.store.get(params.text_document.uri)
    if document is not None:
        ls.python_modules.want(document.uri)
        ls.schedule(document)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: ShapeScriptServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    document = ls.store.get(uri)
    ls.store.close(uri)
    ls.python_modules.forget(uri)
    token_results.forget(uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    if document is not None:
        # The files that import it read it from disk from now on, unsaved edits lost.
        ls.recheck_dependents(document.path)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(
    ls: ShapeScriptServer, params: types.DidChangeWatchedFilesParams
) -> None:
    """A `.ss` file changed on disk: check the open documents that import it again (and
    every one with imports when a file is created or deleted: an import may find another)."""
    for change in params.changes:
        path = path_of(change.uri)
        if not path.endswith(".ss"):
            continue
        path = normalized(path)
        changed = change.type == types.FileChangeType.Changed
        if changed and path in ls.store.by_path:
            continue  # the editor's text is what imports read
        ls.recheck_dependents(path, any_import=not changed)


# ---------------------------------------------------------------------- features


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded()
async def hover(ls: ShapeScriptServer, params: types.HoverParams):
    located = await ls.located(params)
    if located is None:
        return None
    checked, document, offset = located
    renderer = HoverRenderer(ls.images and ls.hover_images, ls.theme, html=ls.hover_html)
    math = math_hover(checked, offset, renderer.images, renderer.dark, renderer.html)
    if math is not None:
        return math
    # The padding facts only some hovers show are worked out when first read, off the
    # event loop.
    if wants_complete_facts(checked, offset):
        await asyncio.to_thread(complete_facts, checked)
    answer = renderer.hover(checked, offset)
    room = [renderer.budget]
    drawing = architecture_hover(
        checked,
        document.uri,
        offset,
        ls.architecture,
        renderer.images,
        ls.theme,
        room,
        ls.store.search_path,
        ls.store.reader,
    )
    renderer.budget = room[0]
    if drawing and answer is not None and isinstance(answer.contents, types.MarkupContent):
        answer.contents.value = drawing + "\n\n---\n\n" + answer.contents.value
    if answer is None and document.last_good is not None and document.last_good is not checked:
        good = document.last_good
        offset = min(offset, len(good.source.text))
        if wants_complete_facts(good, offset):
            await asyncio.to_thread(complete_facts, good)
        answer = renderer.hover(good, offset)
        return answer
    picture = await function_picture(
        ls.picture_runs,
        checked,
        offset,
        pictures=ls.pictures,
        python=ls.python,
        images=ls.images and ls.hover_images,
        theme=ls.theme,
    )
    if not picture:
        return answer
    if answer is None:
        markup = types.MarkupContent(kind=types.MarkupKind.Markdown, value=picture)
        return types.Hover(contents=markup)
    if isinstance(answer.contents, types.MarkupContent):
        lead = renderer.lead
        value = answer.contents.value
        if lead is not None and lead in value:
            # A call's picture follows its types, ahead of the declaration and the docs.
            answer.contents.value = value.replace(lead, f"{lead}\n\n{picture}", 1)
        else:
            answer.contents.value = value + "\n\n---\n\n" + picture
    return answer


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=True),
)
@guarded(types.CompletionList(is_incomplete=False, items=[]))
async def completion(ls: ShapeScriptServer, params: types.CompletionParams):
    located = await ls.located(params)
    if located is None:
        return types.CompletionList(is_incomplete=False, items=[])
    checked, document, offset = located
    basis = (
        checked
        if document.last_good is None or checked is document.last_good
        else (checked if not checked.errors else document.last_good)
    )
    context = params.context
    if (
        context is not None
        and context.trigger_kind == types.CompletionTriggerKind.TriggerCharacter
        and context.trigger_character
        and not opens_list(context.trigger_character, checked.source.text, offset, basis)
    ):
        return types.CompletionList(is_incomplete=False, items=[])
    complete = await ls.indexer.settled()
    own_files = ls.index.snapshot()
    installed_modules, installed_files = await asyncio.to_thread(ls.installed_packages, own_files)
    workspace = WorkspaceView(document.path, own_files + installed_files, ls.store.search_path)
    completer = Completer(ls.snippets, workspace)
    completer.installed_modules = installed_modules
    completer.python = ls.python
    completer.python_roots = python_roots(document.path, ls.index.roots)
    completer.current = checked
    answer = await asyncio.to_thread(completer.complete, basis, checked.source.text, offset)
    if not complete:
        answer.is_incomplete = True
    return answer


@server.feature(types.COMPLETION_ITEM_RESOLVE)
@guarded()
async def completion_resolve(ls: ShapeScriptServer, item: types.CompletionItem):
    checked = None
    for document in ls.store.documents.values():
        checked = document.analysis or checked
    return resolve(item, checked, ls.images, ls.theme)


@server.feature(
    types.TEXT_DOCUMENT_SIGNATURE_HELP,
    types.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=["="]),
)
@guarded()
async def signature(ls: ShapeScriptServer, params: types.SignatureHelpParams):
    located = await ls.located(params)
    if located is None:
        return None
    checked, document, offset = located
    answer = signature_help(checked, checked.source.text, offset, ls.images, ls.dark)
    if answer is None:
        roots = python_roots(document.path, ls.index.roots)
        answer = python_signature_help(checked, checked.source.text, offset, ls.python, roots)
    return answer


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded()
async def goto_definition(ls: ShapeScriptServer, params: types.DefinitionParams):
    located = await ls.located(params)
    if located is None:
        return None
    checked, _, offset = located
    found = definition(checked, offset, params.text_document.uri, ls.library, ls.store.reader)
    if found is not None and checked.definition_at(offset).kind != "python_module":
        return found
    python = await asyncio.to_thread(python_definition, checked, offset, ls.python)
    return python or found


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@guarded([])
async def find_references(ls: ShapeScriptServer, params: types.ReferenceParams):
    located = await ls.located(params)
    if located is None:
        return []
    checked, document, offset = located
    include = params.context.include_declaration
    symbol = checked.definition_at(offset)
    if symbol is None or not shared(symbol):
        return references(checked, offset, params.text_document.uri, include)
    key = key_of(symbol)
    found = [
        (uri, analysis.source, spans)
        for uri, analysis, spans in await workspace_uses(ls, checked, document, symbol)
    ]
    python: list[types.Location] = []
    if symbol.kind in TOP_LEVEL_KINDS:
        roots = python_roots(key[0], ls.index.roots)
        python = await asyncio.to_thread(python_uses, key[0], symbol.name, roots)
    locations = []
    declaration = Span(key[1], key[2])
    for uri, source, spans in found:
        for span in sorted(set(spans)):
            if not include and span == declaration and normalized(source.path) == key[0]:
                continue
            locations.append(types.Location(uri=uri, range=range_of(source, span)))
    return locations + python


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
@guarded([])
async def document_highlight(ls: ShapeScriptServer, params: types.DocumentHighlightParams):
    """Every place in the file that names what the name under the cursor means."""
    located = await ls.located(params)
    if located is None:
        return []
    checked, _, offset = located
    return await asyncio.to_thread(document_highlights, checked, offset)


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
@guarded([])
async def folding_range(ls: ShapeScriptServer, params: types.FoldingRangeParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None:
        return []
    return await asyncio.to_thread(folding_ranges, checked)


@server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)
@guarded([])
async def selection_range(ls: ShapeScriptServer, params: types.SelectionRangeParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None:
        return []
    offsets = [offset_of(checked.source, position) for position in params.positions]
    return await asyncio.to_thread(selection_ranges, checked, offsets)


# ------------------------------------------------ outline, rename, semantic tokens


#: Each item's outline entry from the last request, reused while the item is unchanged.
outline_cache = OutlineCache()


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded([])
async def document_symbol(ls: ShapeScriptServer, params: types.DocumentSymbolParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None:
        return []
    capabilities = ls.client_capabilities.text_document
    outline = capabilities.document_symbol if capabilities is not None else None
    hierarchical = outline is not None and bool(outline.hierarchical_document_symbol_support)
    return Written(
        outline_cache.answer(
            checked, params.text_document.uri, hierarchical, ls.protocol._converter.unstructure
        )
    )


@server.feature(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolOptions(work_done_progress=True))
@guarded([])
async def workspace_symbol(ls: ShapeScriptServer, params: types.WorkspaceSymbolParams):
    """Symbols of the open documents and indexed files; while the first indexing runs, it
    waits for it up to `indexing.SYMBOL_WAIT_S`, then answers with what is indexed."""
    if ls.indexer.complete_once:
        await ls.indexer.settled()
    else:
        await ls.indexer.first_walk(params.work_done_token, indexing.SYMBOL_WAIT_S)
    documents = [d for d in ls.store.documents.values() if not ls.library.is_library_uri(d.uri)]
    files, texts = [], []
    for document in documents:
        checked = document.analysis or document.last_good
        if checked is not None:
            files.append((document.uri, checked))
        else:
            texts.append((document.uri, document.path, document.text))
    opened = {document.uri for document in documents}
    texts += [
        (indexed.path.as_uri(), str(indexed.path), indexed.text)
        for indexed in ls.index.snapshot()
        if indexed.path.as_uri() not in opened
    ]
    return await asyncio.to_thread(workspace_symbols, params.query, outlines(files, texts))


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
async def prepare_rename(ls: ShapeScriptServer, params: types.PrepareRenameParams):
    located = await ls.located(params)
    if located is None:
        return None
    checked, _, offset = located
    try:
        spot = rename_target(checked, offset, str(ls.library.folder))
    except RenameRefused as refusal:
        raise JsonRpcException(str(refusal), code=REQUEST_FAILED) from None
    return types.PrepareRenamePlaceholder(
        range=range_of(checked.source, spot.span), placeholder=plain(spot.symbol)
    )


@server.feature(types.TEXT_DOCUMENT_RENAME)
async def rename(ls: ShapeScriptServer, params: types.RenameParams):
    located = await ls.located(params)
    if located is None:
        return None
    checked, document, offset = located
    try:
        return await workspace_rename(ls, checked, document, offset, params.new_name)
    except RenameRefused as refusal:
        raise JsonRpcException(str(refusal), code=REQUEST_FAILED) from None


#: Each item's tokens from the last request, reused while the item is unchanged.
token_cache = TokenCache()
#: Each document's last full tokens, which `full/delta` answers against.
token_results = TokenResults()


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, TOKEN_LEGEND)
@guarded(types.SemanticTokens(data=[]))
async def semantic_tokens_full(ls: ShapeScriptServer, params: types.SemanticTokensParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None:
        return types.SemanticTokens(data=[])
    read_only = ls.library.is_library_uri(params.text_document.uri)
    return token_results.full(params.text_document.uri, token_cache.answer(checked, read_only))


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, TOKEN_LEGEND)
@guarded(types.SemanticTokens(data=[]))
async def semantic_tokens_delta(ls: ShapeScriptServer, params: types.SemanticTokensDeltaParams):
    uri = params.text_document.uri
    checked, _ = await ls.analysis(uri)
    if checked is None:
        return types.SemanticTokens(data=[])
    answer = token_cache.answer(checked, ls.library.is_library_uri(uri))
    return token_results.delta(uri, params.previous_result_id, answer)


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, TOKEN_LEGEND)
@guarded(types.SemanticTokens(data=[]))
async def semantic_tokens_range(ls: ShapeScriptServer, params: types.SemanticTokensRangeParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None:
        return types.SemanticTokens(data=[])
    start = offset_of(checked.source, params.range.start)
    end = offset_of(checked.source, params.range.end)
    read_only = ls.library.is_library_uri(params.text_document.uri)
    return semantic_tokens(checked, start, end, read_only=read_only, cache=token_cache)


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
@guarded([])
async def inlay_hint(ls: ShapeScriptServer, params: types.InlayHintParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None:
        return []
    start = offset_of(checked.source, params.range.start)
    end = offset_of(checked.source, params.range.end)
    return inlay_hints(checked, start, end, bindings=ls.binding_hints)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=CODE_ACTION_KINDS, resolve_provider=False),
)
@guarded([])
async def code_action(ls: ShapeScriptServer, params: types.CodeActionParams):
    checked, document = await ls.analysis(params.text_document.uri)
    if checked is None:
        return []
    start = offset_of(checked.source, params.range.start)
    end = offset_of(checked.source, params.range.end)
    path, store = document.path, ls.store

    def recheck(text: str):
        source = SourceFile.from_text(path, text)
        return check_source(source, search_path=store.search_path, read=store.reader).diagnostics

    only = params.context.only if params.context else None
    return await asyncio.to_thread(
        code_actions, checked, params.text_document.uri, start, end, recheck, only
    )


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
@guarded([])
async def formatting(ls: ShapeScriptServer, params: types.DocumentFormattingParams):
    return await _format(ls, params.text_document.uri, None)


@server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
@guarded([])
async def range_formatting(ls: ShapeScriptServer, params: types.DocumentRangeFormattingParams):
    lines = (params.range.start.line, params.range.end.line)
    return await _format(ls, params.text_document.uri, lines)


async def _format(ls: ShapeScriptServer, uri: str, lines: tuple[int, int] | None):
    """The formatter's edits, or none (with a message) for a file it leaves alone."""
    document = ls.store.get(uri)
    if document is None:
        return []
    try:
        return await asyncio.to_thread(formatting_edits, document.path, document.text, lines)
    except FormatError as error:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"shapescript: {error}")
        )
        return []


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
@guarded([])
async def code_lens(ls: ShapeScriptServer, params: types.CodeLensParams):
    checked, _ = await ls.analysis(params.text_document.uri)
    if checked is None or checked.errors:
        return []
    return verify_lenses(checked, params.text_document.uri)


@server.feature(verify_lens.REQUEST)
async def verify_request(ls: ShapeScriptServer, params):
    """The reference run of `params.fn` in the open document `params.uri`."""
    uri, fn = _get(params, "uri"), _get(params, "fn")
    document = ls.store.get(uri) if uri else None
    if document is None or not fn:
        return {"ok": False, "markdown": "open the .ss file and name the function to verify"}
    return await verify_lens.run_verify(document.path, document.text, str(fn))


@server.feature("shapescript/declarationOf")
@guarded()
async def declaration_of_request(ls: ShapeScriptServer, params):
    if isinstance(params, DeclarationPath):
        path = normalized(params.path)
        return await asyncio.to_thread(
            declaration_in_file, path, params.name, ls.store.reader(path)
        )
    located = await ls.located(params)
    if located is None:
        return None
    checked, _, offset = located
    return declaration_of(checked, offset, params.text_document.uri, ls.library, ls.store.reader)


@server.feature("shapescript/documentText")
def document_text(ls: ShapeScriptServer, params: types.TextDocumentIdentifier):
    """The server's copy of an open document's text and version (null if it isn't open)."""
    document = ls.store.get(params.uri)
    if document is None:
        return None
    return {"text": document.text, "version": document.version}


@server.feature("shapescript/setPython")
def set_python(ls: ShapeScriptServer, params) -> None:
    python = _get(params, "python")
    ls.python = str(python) if python else None
    timeout = _get(params, "listTimeout")
    if timeout is not None:
        PYTHON_NAMES.set_timeout(float(timeout))
    first_wait = _get(params, "firstListWait")
    if first_wait is not None:
        PYTHON_NAMES.set_first_wait(float(first_wait))
    for document in list(ls.store.documents.values()):
        ls.list_python_imports(document)
        # Installed packages are this interpreter's now: imports may find other files.
        document.invalidate()
        ls.schedule(document, DEPENDENT_DELAY_S)


@server.feature("shapescript/setPictures")
def set_pictures(ls: ShapeScriptServer, params) -> None:
    ls.pictures = bool(_get(params, "enabled"))
    images = _get(params, "images")
    ls.hover_images = bool(images) if images is not None else ls.pictures


@server.feature("shapescript/setTheme")
def set_theme(ls: ShapeScriptServer, params) -> None:
    ls.theme = theme_name(_get(params, "theme"))


def _get(value, key: str):
    """A field of a request's params, which pygls gives as an object or a mapping."""
    if value is None:
        return None
    if isinstance(value, dict):
        return value.get(key)
    return getattr(value, key, None)


# Registers the architecture view's requests on `server` (it imports this module).
# Serves the `%%shapescript` cells of notebooks (notebook document sync).
from shapescript_lsp import notebook_sync  # noqa: E402
from shapescript_lsp.features import architecture_requests  # noqa: E402, F401

notebook_sync.register(server)
