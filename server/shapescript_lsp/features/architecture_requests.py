"""The protocol of the architecture view: `shapescript/architecture` and
`shapescript/setArchitectureDetail`. Imported by `server` once it is made, which
registers them."""

from __future__ import annotations

from shapescript_lsp.features.architecture import architecture_answer, detail_name
from shapescript_lsp.positions import offset_of
from shapescript_lsp.protocol import ArchitectureParams
from shapescript_lsp.server import ShapeScriptServer, _get, guarded, server


@server.feature("shapescript/architecture")
@guarded()
async def architecture_request(ls: ShapeScriptServer, params: ArchitectureParams):
    """The drawing of the model named at the position; params that don't fit (a position
    out of range, say) got InvalidParams while being decoded (`protocol.py`)."""
    uri = params.text_document.uri
    checked, _ = await ls.analysis(uri)
    if checked is None:
        return None
    detail = detail_name(params.detail) or ls.architecture.detail
    return architecture_answer(
        checked,
        uri,
        offset_of(checked.source, params.position),
        detail,
        probe=params.probe is True,
        search_path=ls.store.search_path,
        read=ls.store.reader,
    )


@server.feature("shapescript/setArchitectureDetail")
def set_architecture_detail(ls: ShapeScriptServer, params) -> None:
    detail = detail_name(_get(params, "detail"))
    if detail is not None:
        ls.architecture.detail = detail
