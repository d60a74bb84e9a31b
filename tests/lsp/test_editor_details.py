"""The editor details of the reference's "Completion and signature help", and binding hints.

Over the protocol, with VS Code's and Neovim 0.7's capabilities: which typed characters
open the completion list, the axes after `over=` last first, hovering an axis name in a
pattern, and the inlay hints after bound names (and the option that turns them off).
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 8
dim H = 2
dim Dh = D / H

fn attend(x: [b n D], w: [D 3*D]) -> [b n D]:
    q, k, v = x @ w |> split(b n (3 H Dh) -> b H n Dh)
    scores = einsum(q, k: b H n Dh, b H m Dh -> b H n m)
    att = softmax(scores, over=m)
        |> dropout(0.1, Eval)
    out = einsum(att, v: b H n m, b H m Dh -> b H n Dh)
    return out |> rearrange(b H n Dh -> b n (H Dh))

fn heads(x: [b n D]) -> [b n H Dh] = x |> rearrange(b n (h d) -> b n h d, h=H)

fn long_names(activations: [batch sequence channels]) -> [batch sequence channels]:
    probabilities = softmax(activations, over=channels)
    count = 3
    fixed = activations as [batch sequence channels]
    return probabilities + fixed
"""

_names = itertools.count()


async def complete(
    client: LanguageClient, text: str, trigger: str | None = None
) -> list[types.CompletionItem]:
    """Completion at `‸` in `text`, as typing `trigger` (when given) asks for it."""
    at = text.index("‸")
    source = text.replace("‸", "")
    uri = await open_document(client, source, f"details{next(_names)}.ss")
    context = (
        types.CompletionContext(
            trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character=trigger
        )
        if trigger is not None
        else types.CompletionContext(trigger_kind=types.CompletionTriggerKind.Invoked)
    )
    line = source.count("\n", 0, at)
    column = at - (source.rfind("\n", 0, at) + 1)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=column),
            context=context,
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    return sorted(items, key=lambda item: item.sort_text or item.label)


HEAD = "dim D = 8\nfn f(x: [b n D]) -> [b n D]:\n"

OPENS = [
    (HEAD + "    y = x |> ‸\n    return x\n", " "),
    (HEAD + "    y = softmax(x, over=‸\n    return x\n", "="),
    (HEAD + "    y = softmax(‸\n    return x\n", "("),
    (HEAD + "    y = softmax(x, ‸\n    return x\n", ","),
    ("dim D = 8\nmodel M:\n    param w: [D D] = zeros\nfn g(m: M) -> [D D]:\n    y = M.‸\n", "."),
    ("fn g(x: [‸\n", "["),
    ("import ‸\n", " "),
    ("# the scale is $\\‸\nfn g() -> [] = 1.0\n", "\\"),
]

QUIET = [
    (HEAD + "    y = ‸\n    return x\n", " "),
    (HEAD + "    y = x + ‸\n    return x\n", " "),
    (HEAD + "    y =‸\n    return x\n", "="),
    (HEAD + "    y = x ==‸\n    return x\n", "="),
    (HEAD + "    y = (‸\n    return x\n", "("),
    (HEAD + "    y, ‸\n    return x\n", ","),
    (HEAD + "    y = x[‸\n    return x\n", "["),
    (HEAD + "    y = 1.‸\n    return x\n", "."),
    ("# no math here \\‸\nfn g() -> [] = 1.0\n", "\\"),
]


@pytest.mark.asyncio
async def test_listed_characters_open_the_list(client: LanguageClient):
    for text, trigger in OPENS:
        items = await complete(client, text, trigger)
        assert items, f"{trigger!r} opened nothing in {text!r}"


@pytest.mark.asyncio
async def test_the_same_characters_elsewhere_open_nothing(client: LanguageClient):
    for text, trigger in QUIET:
        assert await complete(client, text, trigger) == [], f"{trigger!r} in {text!r}"
    invoked = await complete(client, HEAD + "    y = ‸\n    return x\n")
    assert "x" in [item.label for item in invoked]


@pytest.mark.asyncio
async def test_over_offers_the_operands_axes_last_first(client: LanguageClient):
    for text in (
        HEAD + "    y = softmax(x, over=‸\n    return x\n",
        HEAD + "    y = x |> softmax(over=‸\n    return x\n",
    ):
        items = await complete(client, text, "=")
        assert [item.label for item in items][:3] == ["D", "n", "b"]
        assert items[0].preselect


@pytest.mark.asyncio
async def test_the_stage_snippet_orders_the_axes_the_same_way(client: LanguageClient):
    items = await complete(client, HEAD + "    y = x |> ‸\n    return x\n", " ")
    by_label = {item.label: item for item in items}
    completion = client.capabilities.text_document.completion
    if completion.completion_item and completion.completion_item.snippet_support:
        assert by_label["softmax"].insert_text == "softmax(over=${1|D,n,b|})"
        assert by_label["softmax"].insert_text_format == types.InsertTextFormat.Snippet
    else:
        assert by_label["softmax"].insert_text is None
    assert by_label["sum"].insert_text is None and by_label["topk"].insert_text is None


@pytest.mark.asyncio
async def test_math_completion_after_a_backslash(client: LanguageClient):
    labels = [item.label for item in await complete(client, OPENS[-1][0], "\\")]
    assert "\\frac" in labels and "\\sqrt" in labels


async def hover_text(client: LanguageClient, uri: str, needle: str, offset: int) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, offset),
        )
    )
    return markdown(hover)


@pytest.mark.asyncio
async def test_hover_on_a_pattern_axis_shows_that_axis(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    text = await hover_text(client, uri, "b H m Dh -> b H n m", 4)
    assert "axis m = n" in text and "Axis 3 of `k`" in text and "[b H n m]" not in text
    text = await hover_text(client, uri, "b H m Dh -> b H n m", 18)
    assert "axis m = n" in text and "Axis 3 of `k`, moved here" in text
    text = await hover_text(client, uri, "b n (3 H Dh) -> b H n Dh", 2)
    assert "axis n" in text and "Axis 2 of `x @ w`: `[b n 3*D]`" in text
    text = await hover_text(client, uri, "(3 H Dh) -> b H n Dh", 3)
    assert "axis H = 2" in text and "grouped axis `(3 H Dh)`" in text


@pytest.mark.asyncio
async def test_hover_on_a_split_axis_gives_its_size(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    text = await hover_text(client, uri, "(h d) -> b n h d", 3)
    assert "axis d = 4" in text and "grouped axis `(h d)`" in text
    text = await hover_text(client, uri, "(h d) -> b n h d", 13)
    assert "axis h = H = 2" in text and "Split from axis 3 of `x`" in text


async def hints(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    return await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=PROGRAM.count("\n"), character=0),
            ),
        )
    )


def _by_place(found: list[types.InlayHint]) -> dict[tuple[int, int], types.InlayHint]:
    return {(hint.position.line, hint.position.character): hint for hint in found}


def _after(needle: str) -> tuple[int, int]:
    spot = position(PROGRAM, needle, len(needle))
    return spot.line, spot.character


@pytest.mark.asyncio
async def test_bindings_get_their_types_after_the_names(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    found = _by_place(await hints(client, uri))
    for name in ("    q", "    q, k", "    q, k, v"):
        assert found[_after(name)].label == ": [b H n Dh]"
    assert found[_after("    scores")].label == ": [b H n m]"
    assert found[_after("    att")].label == ": [b H n m]"
    assert found[_after("    out")].label == ": [b H n Dh]"
    for written in ("    count", "    fixed"):
        assert _after(written) not in found


@pytest.mark.asyncio
async def test_a_long_type_is_cut_with_the_whole_in_the_tooltip(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    hint = _by_place(await hints(client, uri))[_after("    probabilities")]
    full = "[batch sequence channels] Prob over channels"
    assert hint.label == ": " + full[:39] + "…"
    assert full in hint.tooltip.value


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=["visual-studio-code", "neovim@v0.7.0"],
)
async def no_binding_hints(request, lsp_client: LanguageClient, tmp_path_factory):
    """A client that turns binding hints off with `inlayHints.bindings`."""
    params = _initialize_params(request.param, tmp_path_factory.mktemp("lsp"))
    params.initialization_options["inlayHints"] = {"bindings": False}
    accept_registrations(lsp_client)
    result = await lsp_client.initialize_session(params)
    lsp_client.client_name = request.param
    lsp_client.trigger_characters = result.capabilities.completion_provider.trigger_characters
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_option_turns_binding_hints_off(no_binding_hints: LanguageClient):
    uri = await open_document(no_binding_hints, PROGRAM)
    found = _by_place(await hints(no_binding_hints, uri))
    assert _after("    scores") not in found and _after("    q") not in found
    assert found[_after("|> dropout(0.1, Eval)")].label == ": [b H n m]"


@pytest.mark.asyncio
async def test_trigger_characters_are_the_references(no_binding_hints: LanguageClient):
    assert sorted(no_binding_hints.trigger_characters) == sorted(
        [".", "[", "(", ",", "=", " ", "\\", "{"]
    )


def test_cancelling_an_answered_request_logs_nothing(tmp_path: Path) -> None:
    """Editors cancel requests already answered; pygls's warning about each stays out."""
    messages = [
        {"id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {},
         "initializationOptions": {"libraryDir": str(tmp_path / "library")}}},
        {"method": "initialized", "params": {}},
        {"method": "$/cancelRequest", "params": {"id": 1}},
        {"method": "$/cancelRequest", "params": {"id": 77}},
        {"id": 2, "method": "shutdown", "params": None},
        {"method": "exit", "params": None},
    ]  # fmt: skip
    stream = b""
    for message in messages:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stream += f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    completed = subprocess.run(
        SERVER, input=stream, capture_output=True, timeout=60, env=os.environ.copy()
    )
    assert b'"id": 2' in completed.stdout or b'"id":2' in completed.stdout
    log = completed.stderr.decode(errors="replace")
    assert "Cancel" not in log and "cancel" not in log, log
