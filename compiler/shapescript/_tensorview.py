"""The Tensor view's server: a stopped program's tensors, summarised and cut into tiles
where they live, answered over HTTP on 127.0.0.1 to whoever has the token.

`open(value, type_=...)` keeps a reference to the value and starts the server once per
process (a daemon thread that debugpy neither traces nor suspends); the view asks for
`/summary` and `/tile` with the value's id and the token, and `release` lets the value go.
Values are read in blocks whose temporaries stay within a memory budget (an eighth of the
GPU's free memory on CUDA), and only the answers leave the device.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

#: Cells a tile has along each side.
TILE = 256
#: The budget for temporaries when the value isn't on a GPU.
CPU_BUDGET_BYTES = 256 * 1024 * 1024
_TYPE = re.compile(r"^\s*\[(?P<axes>[^\]]*)\]\s*(?P<domain>[A-Za-z]+)?(?:\s+over\s+(?P<over>\w+))?")
_DOMAINS = {"Prob": (0.0, 1.0), "Unit": (0.0, 1.0), "NonNeg": (0.0, math.inf)}


class _View:
    """A value the view shows, with what its type promises."""

    def __init__(self, value: Any, type_text: str | None) -> None:
        import torch

        tensor = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        self.tensor = tensor.detach()
        self.type_text = type_text
        self.axes: list[str] = [f"{i}" for i in range(self.tensor.dim())]
        self.domain: str | None = None
        self.over: int | None = None
        match = _TYPE.match(type_text or "")
        if match is not None:
            written = match.group("axes").split()
            if len(written) == self.tensor.dim() and "..." not in written:
                self.axes = written
            self.domain = match.group("domain")
            over = match.group("over")
            if over is not None and over in self.axes:
                self.over = self.axes.index(over)
            elif self.domain in ("Prob", "LogProb") and self.tensor.dim():
                self.over = self.tensor.dim() - 1


class _Server:
    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(24)
        self.views: dict[str, _View] = {}
        self.lock = threading.Lock()
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.http.daemon_threads = True
        self.thread = threading.Thread(
            target=self.http.serve_forever, name="shapescript-tensorview", daemon=True
        )
        # debugpy leaves threads marked as its own alone: never traced, never suspended.
        self.thread.is_pydev_daemon_thread = True  # type: ignore[attr-defined]
        self.thread.pydev_do_not_trace = True  # type: ignore[attr-defined]
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}"


_server: _Server | None = None
_server_lock = threading.Lock()


def open(value: Any, type_: Any = None, *, expression: str | None = None) -> dict[str, str]:  # noqa: A001
    """Show `value` (a tensor or array) in the view: its id, the server's URL and token.

    `type_` is its ShapeScript type (a checker type, or its text such as
    `[b n m] Prob over m`), which names the axes and says what to check. Without it, the
    type of `expression` (`att`, `m.w`) in the nearest `.ss` frame of the caller is used,
    as when the debugger evaluates this in a stopped frame."""
    global _server
    if type_ is None and expression is not None:
        type_ = _type_in_frames(expression.strip())
    with _server_lock:
        if _server is None:
            _server = _Server()
        server = _server
    type_text = type_ if isinstance(type_, str) or type_ is None else _format(type_)
    view = _View(value, type_text)
    key = secrets.token_hex(8)
    with server.lock:
        server.views[key] = view
    return {"id": key, "url": server.url, "token": server.token}


def _type_in_frames(expression: str) -> Any:
    import sys

    from shapescript import debugging

    frame = sys._getframe(2)
    while frame is not None:
        if debugging.is_shapescript_frame(frame):
            found = debugging.frame_types(frame).get(expression)
            if found is not None:
                return found
        frame = frame.f_back
    return None


def release(key: str | None = None) -> None:
    """Let a value go (all of them without `key`), as the view does when the program goes on."""
    if _server is None:
        return
    with _server.lock:
        if key is None:
            _server.views.clear()
        else:
            _server.views.pop(key, None)


def _format(type_: Any) -> str:
    from shapescript.check.types import format_type

    return format_type(type_)


def _handler(server: _Server):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlparse(self.path)
            query = {key: values[-1] for key, values in parse_qs(url.query).items()}
            token = self.headers.get("X-ShapeScript-Token") or query.get("token", "")
            if not secrets.compare_digest(token, server.token):
                self._answer(403, {"error": "wrong token"})
                return
            with server.lock:
                view = server.views.get(query.get("id", ""))
            if view is None:
                self._answer(404, {"error": "no such value"})
                return
            try:
                if url.path == "/summary":
                    self._answer(200, summary(view))
                elif url.path == "/tile":
                    self._answer(200, tile(view, query))
                else:
                    self._answer(404, {"error": "no such request"})
            except (ValueError, IndexError) as error:
                self._answer(400, {"error": str(error)})

        def _answer(self, status: int, body: dict) -> None:
            data = json.dumps(body, allow_nan=False, default=str).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _budget(tensor) -> int:
    import torch

    if tensor.is_cuda:
        free, _ = torch.cuda.mem_get_info(tensor.device)
        return max(free // 8, 1 << 20)
    return CPU_BUDGET_BYTES


def _blocks(tensor):
    """The tensor as float blocks along its first axis, each within the memory budget."""
    if tensor.dim() == 0:
        yield tensor.reshape(1).double()
        return
    per_row = max(tensor[0].numel(), 1) * 8 * 4
    rows = max(_budget(tensor) // per_row, 1)
    for start in range(0, tensor.shape[0], rows):
        yield tensor[start : start + rows].double()


def _number(value: float) -> float | str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def summary(view: _View) -> dict[str, Any]:
    """Statistics and the type's checks, computed where the value lives."""
    import torch

    tensor = view.tensor
    count = tensor.numel()
    nan = inf = subnormal = 0
    total = squares = 0.0
    least, greatest, largest = math.inf, -math.inf, 0.0
    low, high = _DOMAINS.get(view.domain or "", (-math.inf, math.inf))
    if view.domain == "LogProb":
        low, high = -math.inf, 0.0
    outside = 0
    first_bad: dict[str, list[int] | None] = {"finite": None, "domain": None}
    offset = 0
    floating = tensor.is_floating_point()
    tiny = torch.finfo(tensor.dtype).tiny if floating else 0.0
    for block in _blocks(tensor):
        flat = block.reshape(-1)
        is_nan = torch.isnan(flat)
        is_inf = torch.isinf(flat)
        finite = ~(is_nan | is_inf)
        nan += int(is_nan.sum())
        inf += int(is_inf.sum())
        bad = ~finite
        if first_bad["finite"] is None and bool(bad.any()):
            first_bad["finite"] = _index(offset + int(bad.nonzero()[0, 0]), tensor.shape)
        values = flat[finite]
        if values.numel():
            total += float(values.sum())
            squares += float((values * values).sum())
            least = min(least, float(values.min()))
            greatest = max(greatest, float(values.max()))
            largest = max(largest, float(values.abs().max()))
            if floating:
                subnormal += int(((values != 0) & (values.abs() < tiny)).sum())
        out = finite & ((flat < low) | (flat > high))
        outside += int(out.sum())
        if first_bad["domain"] is None and bool(out.any()):
            first_bad["domain"] = _index(offset + int(out.nonzero()[0, 0]), tensor.shape)
        offset += flat.numel()
    finite_count = count - nan - inf
    mean = total / finite_count if finite_count else math.nan
    variance = squares / finite_count - mean * mean if finite_count else math.nan
    checks = [
        {
            "check": "no NaN or ±∞",
            "ok": nan + inf == 0,
            "count": nan + inf,
            "first": first_bad["finite"],
        }
    ]
    if view.domain in _DOMAINS or view.domain == "LogProb":
        checks.append(
            {
                "check": f"every value is in {view.domain}'s range",
                "ok": outside == 0,
                "count": outside,
                "first": first_bad["domain"],
            }
        )
    if view.domain in ("Prob", "LogProb") and view.over is not None:
        checks.append(_sums_to_one(view))
    stats: dict[str, Any] = {
        "count": count,
        "nan": nan,
        "inf": inf,
        "min": _number(least) if finite_count else None,
        "max": _number(greatest) if finite_count else None,
        "mean": _number(mean),
        "std": _number(math.sqrt(max(variance, 0.0))) if finite_count else None,
    }
    if floating:
        biggest = torch.finfo(tensor.dtype).max
        stats["subnormal"] = subnormal
        stats["headroom_bits"] = _number(math.log2(biggest / largest)) if largest > 0 else None
    return {
        "shape": list(tensor.shape),
        "axes": view.axes,
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "device": str(tensor.device),
        "type": view.type_text,
        "stats": stats,
        "checks": checks,
    }


def _sums_to_one(view: _View) -> dict[str, Any]:
    """Each row along the `over` axis sums to 1 (LogProb's exponentials do)."""
    import torch

    tensor = view.tensor
    over = view.over or 0
    moved = tensor.movedim(over, -1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.numel() else moved.reshape(0, 1)
    eps = torch.finfo(tensor.dtype).eps if tensor.is_floating_point() else 0.0
    tolerance = max(1e-3, 2 * eps)
    wrong = 0
    worst: tuple[float, int] | None = None
    first: int | None = None
    step = max(_budget(tensor) // (max(rows.shape[1], 1) * 8 * 2), 1)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step].double()
        sums = block.exp().sum(-1) if view.domain == "LogProb" else block.sum(-1)
        error = (sums - 1).abs()
        error = torch.where(torch.isnan(error), torch.full_like(error, math.inf), error)
        off = error > tolerance
        wrong += int(off.sum())
        if bool(off.any()):
            if first is None:
                first = start + int(off.nonzero()[0, 0])
            index = int(error.argmax())
            if worst is None or float(error[index]) > worst[0]:
                worst = (float(error[index]), start + index)
    shape = list(moved.shape[:-1])
    return {
        "check": f"each row sums to 1 over {view.axes[over]}",
        "ok": wrong == 0,
        "count": wrong,
        "first": None if first is None else _index(first, shape),
        "worst": None if worst is None else _index(worst[1], shape),
        "tolerance": tolerance,
    }


def _index(flat: int, shape) -> list[int]:
    index = []
    for size in reversed(list(shape)):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return list(reversed(index))


def tile(view: _View, query: dict[str, str]) -> dict[str, Any]:
    """A tile of up to 256 × 256 cells of two axes, each cell 2^k × 2^j elements.

    `rows` and `cols` name the axes (the last two by default), `at` fixes the others
    (comma-separated indices, 0 by default), `row`/`col` are the tile's first element
    and `row_step`/`col_step` the elements a cell covers (powers of two)."""
    import torch

    tensor = view.tensor
    if tensor.dim() == 0:
        tensor = tensor.reshape(1, 1)
    elif tensor.dim() == 1:
        tensor = tensor.reshape(1, -1)
    dims = tensor.dim()
    rows_axis = int(query.get("rows", dims - 2)) % dims
    cols_axis = int(query.get("cols", dims - 1)) % dims
    if rows_axis == cols_axis:
        raise ValueError("rows and cols must be two different axes")
    rest = [axis for axis in range(dims) if axis not in (rows_axis, cols_axis)]
    at = [int(part) for part in query.get("at", "").split(",") if part.strip()]
    at += [0] * (len(rest) - len(at))
    plane = tensor.permute(*rest, rows_axis, cols_axis)[tuple(at[: len(rest)])]
    row_step, col_step = int(query.get("row_step", 1)), int(query.get("col_step", 1))
    for step in (row_step, col_step):
        if step < 1 or step & (step - 1):
            raise ValueError("a cell covers a power of two of elements along each axis")
    row0, col0 = int(query.get("row", 0)), int(query.get("col", 0))
    part = plane[row0 : row0 + TILE * row_step, col0 : col0 + TILE * col_step]
    cells_r = -(-part.shape[0] // row_step)
    cells_c = -(-part.shape[1] // col_step)
    with torch.no_grad():
        values = part.double()
        padded = torch.full(
            (cells_r * row_step, cells_c * col_step),
            math.nan,
            dtype=values.dtype,
            device=values.device,
        )
        padded[: part.shape[0], : part.shape[1]] = values
        present = torch.zeros_like(padded, dtype=torch.bool)
        present[: part.shape[0], : part.shape[1]] = True
        cells = padded.reshape(cells_r, row_step, cells_c, col_step).transpose(1, 2)
        present = present.reshape(cells_r, row_step, cells_c, col_step).transpose(1, 2)
        cells = cells.reshape(cells_r, cells_c, -1)
        present = present.reshape(cells_r, cells_c, -1)
        is_nan = torch.isnan(cells) & present
        is_inf = torch.isinf(cells)
        finite = present & ~is_nan & ~is_inf
        zero = torch.zeros_like(cells)
        count = finite.sum(-1)
        mean = torch.where(finite, cells, zero).sum(-1) / count.clamp(min=1)
        least = torch.where(finite, cells, torch.full_like(cells, math.inf)).amin(-1)
        greatest = torch.where(finite, cells, torch.full_like(cells, -math.inf)).amax(-1)
    empty = count == 0

    def grid(values) -> list[list[float | None]]:
        values = torch.where(empty, torch.full_like(values, math.nan), values).cpu().tolist()
        return [[None if math.isnan(v) else v for v in row] for row in values]

    answer = {
        "rows": cells_r,
        "cols": cells_c,
        "row": row0,
        "col": col0,
        "row_step": row_step,
        "col_step": col_step,
        "mean": grid(mean),
        "min": grid(least),
        "max": grid(greatest),
        "nan": is_nan.sum(-1).cpu().tolist(),
        "inf": is_inf.sum(-1).cpu().tolist(),
    }
    if view.domain in ("Prob", "LogProb") and view.over == cols_axis and view.tensor.dim() >= 2:
        answer["bad_rows"] = _bad_rows(view, plane, row0, row_step, cells_r)
    return answer


def _bad_rows(view: _View, plane, row0: int, row_step: int, cells: int) -> list[int]:
    """For each row of cells, how many of the rows it covers don't sum to 1 along the columns."""
    import torch

    rows = plane[row0 : row0 + cells * row_step]
    eps = torch.finfo(rows.dtype).eps if rows.is_floating_point() else 0.0
    tolerance = max(1e-3, 2 * eps)
    counts = torch.zeros(cells, dtype=torch.long, device=rows.device)
    step = max(_budget(rows) // (max(rows.shape[1], 1) * 8 * 2), 1)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step].double()
        sums = block.exp().sum(-1) if view.domain == "LogProb" else block.sum(-1)
        error = (sums - 1).abs()
        off = torch.isnan(error) | (error > tolerance)
        which = torch.arange(start, start + block.shape[0], device=rows.device) // row_step
        counts.index_add_(0, which, off.long())
    return counts.cpu().tolist()
