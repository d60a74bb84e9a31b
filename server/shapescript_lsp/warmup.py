"""Warm the checker up while the client waits for `initialize`, not for its first diagnostics.

A process's first check pays for more than the file: the prelude (read from the user
cache, or built), the first use of each syntax and type class (whose methods are
compiled then) and the regular expressions of the math in comments. Checking a short
program that uses the common constructs pays those before any document is open.
"""

from __future__ import annotations

import logging
import traceback

from shapescript.check.checker import check_text
from shapescript_lsp.features.diagnostics import publishable

log = logging.getLogger("shapescript_lsp")

SAMPLE = """\
## Width. $D = 8$
dim D = 8
dim H = 2
dim Dh = D / H

data Pair:
    x: [D]
    label: [] Index[D]

model Layer:
    param w: [D 3*D] = normal(std=0.02)
    param b: [D] = zeros

fn attend(x: [b n D], w: [D 3*D]) -> [b n D]:
    q, k, v = x @ w |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))

fn score(layer: Layer, batch: [b] Pair, mode: Mode) -> [] NonNeg:
    h = relu(batch.x + layer.b) |> dropout(0.1, mode)
    total = sum(h, over=D) + 1.0
    return cross_entropy(h, batch.label, over=D) * mean(sigmoid(total))

fn broken(x: [n]) -> [m] = x + missing
"""


def warm_up() -> None:
    """Check the sample program once; a failure here is logged and otherwise ignored."""
    try:
        publishable(check_text(SAMPLE, "<warm-up>"), "untitled:warm-up")
    except Exception:
        log.error("warming up failed:\n%s", traceback.format_exc())


def warm_messages(converter) -> None:
    """Build the converter's hooks for completion's messages, which cattrs writes the first
    time a type is seen (about 30 ms), so that the first completion doesn't pay for them."""
    from lsprotocol import types

    position = types.Position(line=0, character=0)
    edit = types.TextEdit(range=types.Range(start=position, end=position), new_text="x")
    item = types.CompletionItem(
        label="x",
        kind=types.CompletionItemKind.Function,
        detail="x",
        sort_text="0",
        data={"kind": "python"},
        insert_text="x",
        insert_text_format=types.InsertTextFormat.Snippet,
        text_edit=edit,
        additional_text_edits=[edit],
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value="x"),
    )
    try:
        for message in (
            types.CompletionResponse(
                id=0, result=types.CompletionList(is_incomplete=True, items=[item])
            ),
            types.CompletionResolveResponse(id=0, result=item),
        ):
            converter.unstructure(message)
        params = {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}}
        request = {"jsonrpc": "2.0", "id": 0, "method": "textDocument/completion"}
        converter.structure(request | {"params": params}, types.CompletionRequest)
        resolve = {"jsonrpc": "2.0", "id": 0, "method": "completionItem/resolve"}
        plain = {"label": "x", "kind": 3, "detail": "x", "sortText": "0", "data": {"a": 1}}
        converter.structure(resolve | {"params": plain}, types.CompletionResolveRequest)
    except Exception:
        log.error("warming up completion's messages failed:\n%s", traceback.format_exc())
