"""Spans of the same offsets are one object: spans are relative to their chunk, so a file
of many small functions would otherwise hold hundreds of thousands of equal ones."""

from __future__ import annotations

from shapescript.syntax import source
from shapescript.syntax.parser import parse_text

TWO_FUNCTIONS = "fn f(x: [n]) -> [n] = x * 2\n\nfn g(y: [m]) -> [m] = y * 3\n"


def test_equal_spans_in_two_chunks_are_one_object() -> None:
    first, second = parse_text(TWO_FUNCTIONS).module.items
    assert first.span == second.span
    assert first.span is second.span
    assert first.params[0].span is second.params[0].span


def test_the_shared_spans_stay_bounded(monkeypatch) -> None:
    monkeypatch.setattr(source, "SHARED_SPANS_KEPT", 16)
    monkeypatch.setattr(source, "_SPANS", {})
    text = "".join(f"fn f{index}(x: [n]) -> [n] = x * {index}\n\n" for index in range(30))
    items = parse_text(text).module.items
    assert len(items) == 30
    assert len(source._SPANS) <= 16


def test_a_tokens_span_is_shared_too() -> None:
    from shapescript.syntax.lexer import lex
    from shapescript.syntax.source import SourceFile

    tokens = lex(SourceFile.from_text("t.ss", "fn f(x: [n]) -> [n] = x\n")).tokens
    name = parse_text(TWO_FUNCTIONS).module.items[0].name_span
    assert tokens[1].span is name
