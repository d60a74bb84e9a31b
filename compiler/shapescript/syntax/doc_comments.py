"""Attach `##` doc comments to the declarations directly below them (W0201 otherwise)."""

from __future__ import annotations

from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.syntax import ast, nodes
from shapescript.syntax.source import SourceFile, Span
from shapescript.syntax.tokens import Comment

#: `Span(start, end)` without the named tuple's `__new__`.
_new_span = tuple.__new__


def _documentable(module: ast.Module):
    for item in module.items:
        if isinstance(item, ast.DOCUMENTABLE):
            yield item
        if isinstance(item, (ast.ModelDecl, ast.DataDecl)):
            yield from item.fields
        elif isinstance(item, ast.LogsDecl):
            yield from item.metrics


def _doc_blocks(comments: list[Comment]) -> list[list[Comment]]:
    """Group own-line doc comments on consecutive lines into blocks."""
    blocks: list[list[Comment]] = []
    for comment in comments:
        if not comment.is_doc or comment.after_code:
            continue
        if blocks and blocks[-1][-1].line + 1 == comment.line:
            blocks[-1].append(comment)
        else:
            blocks.append([comment])
    return blocks


def _doc_text(block: list[Comment]) -> str:
    lines = []
    for comment in block:
        text = comment.text
        lines.append(text[1:] if text.startswith(" ") else text)
    return "\n".join(lines).rstrip()


def _warning(span: Span, message: str, label: str) -> Diagnostic:
    return Diagnostic(
        "W0201",
        message,
        Label(span, label),
        help="put the `##` comment on the line directly above a declaration, or use `#` for an "
        "ordinary comment",
    )


def attach_doc_comments(
    module: ast.Module, comments: list[Comment], source: SourceFile
) -> list[Diagnostic]:
    """Set `doc` on documented declarations; return W0201 for doc comments that document nothing."""
    diagnostics: list[Diagnostic] = []
    for comment in comments:
        if comment.is_doc:
            break
    else:
        return diagnostics
    # The 1-based line of an offset in the text (as `source.position(offset).line`), by
    # counting the line breaks before it: a chunk is short, and has few declarations.
    text = source.text
    by_line = {}
    for declaration in _documentable(module):
        by_line.setdefault(text.count("\n", 0, declaration.span.start) + 1, declaration)
    # A declaration that failed to parse was reported already; its doc comment isn't a
    # second problem.
    broken = {
        text.count("\n", 0, item.span.start) + 1
        for item in module.items
        if isinstance(item, ast.ErrorItem)
    }
    for comment in comments:
        if comment.is_doc and comment.after_code:
            diagnostics.append(
                _warning(
                    comment.span,
                    "a doc comment after code documents nothing",
                    "follows code on its line",
                )
            )
    for block in _doc_blocks(comments):
        # Comments come in order, so the block runs from the first's start to the last's end.
        span = _new_span(Span, (block[0].span.start, block[-1].span.end))
        declaration = by_line.get(block[-1].line + 1)
        if declaration is None and block[-1].line + 1 in broken:
            continue
        if declaration is None:
            diagnostics.append(
                _warning(
                    span,
                    "doc comment isn't directly above a declaration",
                    "documents nothing",
                )
            )
            continue
        declaration.doc = nodes.DocComment(_doc_text(block), span)
    return diagnostics
