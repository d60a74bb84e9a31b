"""The padding analysis keeps its walks in module-wide tables while it runs; the language
server runs a document's analyses on several threads (its diagnostics, and the facts a
request reads), so one analysis must not clear or fill another's tables."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from shapescript.check.analyses import padding
from shapescript.check.analyses.padding import complete_facts
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parents[3]


def _later(text: str):
    return check_source(SourceFile.from_text("f.ss", text), padding_later=True)


def test_an_analysis_on_another_thread_waits_for_the_one_running(monkeypatch) -> None:
    text = (ROOT / "examples" / "gpt.ss").read_text(encoding="utf-8")
    alone = complete_facts(_later(text))
    assert alone is not None and alone.walks.walked
    inside, run = threading.Event(), padding._Analysis.run

    def slow_run(self):
        found = run(self)
        if threading.current_thread().name == "first":
            inside.set()
            # Long enough for the other thread's whole check, had it not to wait.
            time.sleep(0.5)
        return found

    monkeypatch.setattr(padding._Analysis, "run", slow_run)
    first_checked, got = _later(text), {}
    first = threading.Thread(
        target=lambda: got.setdefault("facts", complete_facts(first_checked)), name="first"
    )
    first.start()
    assert inside.wait(timeout=60)
    other = check_source(
        SourceFile.from_text("g.ss", (ROOT / "examples" / "attention.ss").read_text("utf-8"))
    )
    first.join(timeout=60)
    assert other.padding is not None
    assert len(got["facts"].walks.walked) == len(alone.walks.walked)
