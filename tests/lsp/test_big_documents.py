"""Big documents never block: cancellable analyses, and answers while one is running.

No timing budgets here (benchmarks/big_files.py measures them); the timeouts only turn a
hang into a failure.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from benchmarks.generate import generate_program
from shapescript.cancellation import Cancelled
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp import documents
from shapescript_lsp.documents import DocumentStore
from tests.lsp.raw_client import RawServer

SMALL = "dim D = 4\nfn f(x: [n D]) -> [n D] = x\n"


def test_the_check_asks_between_items_and_stops_when_cancelled():
    text = generate_program(600, 0)
    asked = []

    def cancelled() -> bool:
        asked.append(True)
        return len(asked) > 20

    with pytest.raises(Cancelled):
        check_source(SourceFile.from_text("big.ss", text), cancelled=cancelled)
    assert len(asked) == 21
    assert check_source(SourceFile.from_text("big.ss", text), cancelled=lambda: False).items


@pytest.mark.parametrize(("others", "pauses"), [(0, False), (1, True)])
def test_a_big_document_s_analysis_pauses_while_another_runs(monkeypatch, others, pauses):
    monkeypatch.setattr(documents, "BIG_DOCUMENT", 1000)
    slept: list[float] = []
    monkeypatch.setattr(documents.time, "sleep", slept.append)
    store = DocumentStore()
    document = store.open("file:///big.ss", generate_program(200, 0), 1)
    documents.running.change(others)
    try:
        documents.analyze(document, document.text, document.revision, store.closing)
    finally:
        documents.running.change(-others)
    assert bool(slept) == pauses
    assert documents.running.count == 0


@pytest.mark.asyncio
async def test_a_newer_text_overtakes_the_analysis_in_progress():
    store = DocumentStore()
    document = store.open("file:///big.ss", generate_program(6000, 0), 1)
    first = asyncio.create_task(store.analysis(document))
    await asyncio.sleep(0.2)
    document.edit([_whole(SMALL)], 2)
    checked = await asyncio.wait_for(first, 120)
    assert checked.source.text == SMALL
    assert document.analysis is checked and document.analysis_revision == document.revision


@pytest.mark.asyncio
async def test_no_analysis_after_shutdown():
    store = DocumentStore()
    document = store.open("file:///big.ss", generate_program(6000, 0), 1)
    running = asyncio.create_task(store.analysis(document))
    await asyncio.sleep(0.2)
    store.closing.set()
    assert await asyncio.wait_for(running, 120) is None


def test_other_documents_and_shutdown_are_answered_during_a_long_analysis(tmp_path: Path):
    server = RawServer()
    try:
        server.initialize(tmp_path)
        server.open((tmp_path / "huge.ss").as_uri(), generate_program(150_000, 0))
        small = (tmp_path / "small.ss").as_uri()
        server.open(small, SMALL)
        assert "[n D]" in server.hover(small, 1, 26)["result"]["contents"]["value"]
        assert server.request("shutdown") == {
            "jsonrpc": "2.0",
            "id": server.next_id,
            "result": None,
        }
        server.notify("exit")
        assert server.exit_status() == 0
    finally:
        server.close()


def _whole(text: str) -> types.TextDocumentContentChangeWholeDocument:
    return types.TextDocumentContentChangeWholeDocument(text=text)


def test_the_benchmark_analyses_its_keystrokes_in_process_as_the_server_does() -> None:
    from benchmarks.big_files import in_process_keystrokes

    samples, cpu = in_process_keystrokes(generate_program(300, 0), 2)
    assert len(samples) == len(cpu) == 2
    assert all(sample > 0 for sample in samples)
