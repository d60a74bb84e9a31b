"""The protocol of the architecture view: `shapescript/architecture` and
`shapescript/setArchitectureDetail`. Imported by `server` once it is made, which
registers them."""

from __future__ import annotations

from lsprotocol import types

from shapescript_lsp.features.architecture import architecture_answer, detail_name
from shapescript_lsp.positions import offset_of
from shapescript_lsp.server import ShapeScriptServer, _get, guarded, server


@server.feature("shapescript/architecture")
@guarded()
async def architecture_request(ls: ShapeScriptServer, params):
    """`{textDocument, position, detail?, probe?}` → the drawing of the model named there."""
    document = _get(params, "textDocument") or _get(params, "text_document")
    uri = _get(document, "uri")
    position = _get(params, "position")
    if uri is None or position is None:
        return None
    checked, _ = await ls.analysis(uri)
    if checked is None:
        return None
    where = types.Position(
        line=int(_get(position, "line")), character=int(_get(position, "character"))
    )
    detail = detail_name(_get(params, "detail")) or ls.architecture.detail
    return architecture_answer(
        checked,
        uri,
        offset_of(checked.source, where),
        detail,
        probe=_get(params, "probe") is True,
        search_path=ls.store.search_path,
        read=ls.store.reader,
    )


@server.feature("shapescript/setArchitectureDetail")
def set_architecture_detail(ls: ShapeScriptServer, params) -> None:
    detail = detail_name(_get(params, "detail"))
    if detail is not None:
        ls.architecture.detail = detail
