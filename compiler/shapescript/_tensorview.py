"""The Tensor view's server: a stopped program's tensors, summarised and cut into tiles
where they live, answered over HTTP on 127.0.0.1 to whoever has the token.

`open(value, type_=...)` keeps a reference to the value and starts the server once per
process (a daemon thread that debugpy neither traces nor suspends); the view asks for
`/summary` and `/tile` with the value's id and the token, and `/release` (or `release`)
lets the value go.
Values are read in blocks whose temporaries stay within a memory budget (an eighth of the
GPU's free memory on CUDA), and only the answers leave the device.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

#: Cells a tile has along each side.
TILE = 256
#: The budget for temporaries when the value isn't on a GPU.
CPU_BUDGET_BYTES = 256 * 1024 * 1024
_TYPE = re.compile(
    r"^\s*\[(?P<axes>[^\]]*)\]\s*(?P<domain>[A-Za-z]\w*)?(?:\[(?P<size>[^\]]*)\])?"
    r"(?:\s+over\s+(?P<over>\w+))?"
)
_AXIS = re.compile(r"\([^)]*\)|\S+")
_GROUPED = re.compile(r"^(?P<number>\d+)(?P<name>[A-Za-z_]\w*)$")
#: A structure's text, as `Structure.describe` writes it: `causal: -inf where m > n`.
_STRUCTURE = re.compile(r"^causal: (?P<background>\S+) where (?P<columns>\w+) > (?P<rows>\w+)$")
_DTYPES = frozenset({"u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "bool"})
#: Domains bounded by a range: the least and greatest values they allow.
_DOMAINS = {
    "Prob": (0.0, 1.0),
    "Unit": (0.0, 1.0),
    "NonNeg": (0.0, math.inf),
    "Pos": (0.0, math.inf),
    "Signed": (-1.0, 1.0),
    "LogProb": (-math.inf, 0.0),
}
#: Domains whose values are some numbers only: 0 or 1, 0 or -inf, indices.
_DISCRETE = frozenset({"Binary", "Additive", "Index"})
#: How a reduction makes one value of the elements along the axes it covers.
REDUCTIONS = ("mean", "max", "min", "sum", "absmax", "norm", "std")
#: Elements sampled (with a generator of the view's own) for the percentiles.
SAMPLES = 1 << 16
#: How often the server looks whether the debugger has gone.
WATCH_SECONDS = 2.0


def split_axes(text: str) -> list[str]:
    """The axes of a shape's text, a group such as `(gh gw)` as one: `b (gh gw) D`."""
    return _AXIS.findall(text)


def group_parts(axis: str) -> list[str] | None:
    """The parts of a group axis, outer first: `(gh gw)` and `16gh` (which is `(gh 16)`)."""
    if axis.startswith("(") and axis.endswith(")"):
        parts = axis[1:-1].split()
        return parts if len(parts) >= 2 else None
    grouped = _GROUPED.match(axis)
    if grouped is not None:
        return [grouped.group("name"), grouped.group("number")]
    return None


def _part_sizes(parts: list[str], total: int, sizes: dict[str, int]) -> list[int] | None:
    """Each part's size: a number, a known size, or the one left that the total gives."""
    found = [int(part) if part.isdigit() else sizes.get(part) for part in parts]
    unknown = [i for i, size in enumerate(found) if size is None]
    known = math.prod(size for size in found if size is not None)
    if len(unknown) == 1 and known and total % known == 0:
        found[unknown[0]] = total // known
    if any(size is None for size in found) or math.prod(found) != total:  # type: ignore[misc]
        return None
    return found  # type: ignore[return-value]


class _View:
    """A value the view shows, with what its type promises."""

    def __init__(
        self,
        value: Any,
        type_text: str | None,
        sizes: dict[str, int] | None = None,
        structure: Any = None,
    ) -> None:
        import torch

        tensor = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        self.tensor = tensor.detach()
        #: On CUDA, the view reads on a stream of its own, after what the stopped thread queued.
        self.stream = self.ready = None
        if self.tensor.is_cuda:
            if torch.cuda.is_current_stream_capturing():
                raise ValueError(
                    "the value is being recorded into a CUDA graph: it has no values yet"
                )
            self.ready = torch.cuda.Event()
            self.ready.record(torch.cuda.current_stream(self.tensor.device))
            self.stream = torch.cuda.Stream(device=self.tensor.device)
        self.type_text = type_text
        self.axes: list[str] = [f"{i}" for i in range(self.tensor.dim())]
        self.domain: str | None = None
        self.domain_size: int | None = None
        self.over: int | None = None
        #: The parts of each group axis whose parts' sizes are known: [(name, size), ...].
        self.groups: dict[int, list[tuple[str, int]]] = {}
        #: Where the checker knows the values are a background: (rows axis, columns axis,
        #: the background value, the structure's text), the background being where the
        #: column index is above the row index.
        self.structure: tuple[int, int, float, str] | None = None
        match = _TYPE.match(type_text or "")
        if match is None:
            return
        written = split_axes(match.group("axes"))
        if len(written) == self.tensor.dim() and "..." not in written:
            self.axes = written
            for axis, name in enumerate(written):
                parts = group_parts(name)
                found = parts and _part_sizes(parts, self.tensor.shape[axis], sizes or {})
                if parts and found:
                    self.groups[axis] = list(zip(parts, found, strict=True))
        domain = match.group("domain")
        self.domain = None if domain in _DTYPES else domain
        size = match.group("size")
        if self.domain == "Index" and size is not None:
            self.domain_size = int(size) if size.isdigit() else (sizes or {}).get(size)
        over = match.group("over")
        if over is not None and over in self.axes:
            self.over = self.axes.index(over)
        elif self.domain in ("Prob", "LogProb") and self.tensor.dim():
            self.over = self.tensor.dim() - 1
        self.structure = _structure(structure, self.axes)

    def background(self, shape, start: int = 0, origin: tuple[int, int] | None = None):
        """Which elements of a block are where the structure promises its background: a
        block of the value from `start` along its first axis, or, with `origin`, a plane of
        the structure's rows and columns whose first element is at (row, column) `origin`."""
        import torch

        assert self.structure is not None
        device = self.tensor.device
        if origin is not None:
            rows = torch.arange(shape[0], device=device) + origin[0]
            cols = torch.arange(shape[1], device=device) + origin[1]
            inside = cols[None, :] > rows[:, None]
            return inside.reshape(*inside.shape, *([1] * (len(shape) - 2))).expand(*shape)
        row_axis, col_axis = self.structure[:2]

        def along(axis: int):
            index = torch.arange(shape[axis], device=device) + (start if axis == 0 else 0)
            return index.reshape([-1 if a == axis else 1 for a in range(len(shape))])

        return (along(col_axis) > along(row_axis)).expand(*shape)

    def excused(self, values, background):
        """The -inf values where the structure's background is -inf, which aren't faults."""
        if self.structure is None or self.structure[2] != -math.inf:
            return None
        return background & (values == -math.inf)

    @property
    def range(self) -> tuple[float, float]:
        """The least and greatest values the domain allows."""
        if self.domain == "Binary":
            return 0.0, 1.0
        if self.domain == "Additive":
            return -math.inf, 0.0
        if self.domain == "Index":
            top = self.domain_size - 1 if self.domain_size else math.inf
            return 0.0, float(top)
        return _DOMAINS.get(self.domain or "", (-math.inf, math.inf))

    def outside(self, values):
        """Which of the (float) values break the domain; NaN and ±∞ are counted apart."""
        import torch

        finite = torch.isfinite(values)
        if self.domain == "Binary":
            return finite & (values != 0) & (values != 1)
        if self.domain == "Additive":
            return finite & (values != 0)
        low, high = self.range
        out = finite & ((values < low) | (values > high))
        if self.domain == "Index":
            out |= finite & (values != values.round())
        return out

    def not_finite(self, values):
        """NaN and ±∞, except -inf where the domain allows it (Additive)."""
        import torch

        if self.domain == "Additive":
            return torch.isnan(values) | (values == math.inf)
        return ~torch.isfinite(values)

    def domain_check(self) -> str | None:
        """The name of the check that values are in the domain, if it has one."""
        if self.domain == "Binary":
            return "every value is 0 or 1"
        if self.domain == "Additive":
            return "every value is 0 or -inf"
        if self.domain == "Index":
            top = self.domain_size if self.domain_size else "∞"
            return f"every value is a whole number in [0, {top})"
        if self.domain in _DOMAINS:
            return f"every value is in {self.domain}'s range"
        return None


def _structure(given: Any, axes: list[str]) -> tuple[int, int, float, str] | None:
    """A structure (the checker's, or its text) as the view's axes number it."""
    if given is None:
        return None
    if isinstance(given, str):
        match = _STRUCTURE.match(given.strip())
        if match is None:
            return None
        rows, columns, background = match.group("rows", "columns", "background")
        text = given.strip()
    else:
        rows, columns, background = given.rows, given.columns, given.background
        text = given.describe()
    if rows not in axes or columns not in axes or rows == columns:
        return None
    number = {"false": 0.0, "true": 1.0}.get(background)
    try:
        number = float(background) if number is None else number
    except ValueError:
        return None
    return axes.index(rows), axes.index(columns), number, text


def _debugger_s_own(thread: threading.Thread) -> threading.Thread:
    """Mark a thread as the debugger's own: debugpy neither traces nor suspends it."""
    thread.is_pydev_daemon_thread = True  # type: ignore[attr-defined]
    thread.pydev_do_not_trace = True  # type: ignore[attr-defined]
    return thread


class _Http(ThreadingHTTPServer):
    """Answers each request on a thread of its own, marked as the debugger's like the server's."""

    daemon_threads = True

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name="shapescript-tensorview-request",
            daemon=True,
        )
        _debugger_s_own(thread).start()


class _Server:
    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(24)
        self.views: dict[str, _View] = {}
        self.lock = threading.Lock()
        self.http = _Http(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(
            target=self.http.serve_forever, name="shapescript-tensorview", daemon=True
        )
        _debugger_s_own(self.thread).start()
        #: Whether a debugger was attached when a value was opened: when it goes away, the
        #: values it read are let go.
        self.attached = False
        self.watcher = threading.Thread(
            target=self._watch, name="shapescript-tensorview-watch", daemon=True
        )
        _debugger_s_own(self.watcher).start()

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            self.check_debugger()

    def check_debugger(self) -> None:
        """Release every value once the debugger that asked for them has gone."""
        if self.attached and not _debugger_connected():
            with self.lock:
                self.views.clear()
            self.attached = False

    @property
    def url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}"


_server: _Server | None = None
_server_lock = threading.Lock()


def open(  # noqa: A001
    value: Any,
    type_: Any = None,
    *,
    expression: str | None = None,
    sizes: dict[str, int] | None = None,
    structure: Any = None,
) -> dict[str, str]:
    """Show `value` (a tensor or array) in the view: its id, the server's URL and token.

    `type_` is its ShapeScript type (a checker type, or its text such as
    `[b n m] Prob over m`), which names the axes and says what to check. Without it, the
    type of `expression` (`att`, `m.w`) in the nearest `.ss` frame of the caller is used,
    as when the debugger evaluates this in a stopped frame. `sizes` gives the sizes of
    named axes (`gh`, `V`) that groups and `Index[V]` use; in a `.ss` frame they're read
    from the frame's sizes. `structure` is where the checker knows the values are a
    background (a `check.structures.Structure`, or its text `causal: -inf where m > n`);
    with the frame's type comes the frame's structure."""
    global _server
    known: dict[str, int] = {}
    if type_ is None and expression is not None:
        type_, known, found = _type_in_frames(expression.strip())
        structure = structure if structure is not None else found
    known.update(sizes or {})
    with _server_lock:
        if _server is None:
            _server = _Server()
        server = _server
    type_text = type_ if isinstance(type_, str) or type_ is None else _format(type_)
    view = _View(value, type_text, known, structure)
    key = secrets.token_hex(8)
    with server.lock:
        server.views[key] = view
        server.attached = server.attached or _debugger_connected()
    return {"id": key, "url": server.url, "token": server.token}


def _debugger_connected() -> bool:
    """Whether debugpy runs in this program with a client (an editor) connected."""
    import sys

    debugpy = sys.modules.get("debugpy")
    try:
        return bool(debugpy is not None and debugpy.is_client_connected())
    except Exception:  # noqa: BLE001 - a debugpy without the API: as if none were connected
        return False


def _type_in_frames(expression: str) -> tuple[Any, dict[str, int], Any]:
    """The expression's type in the frame it's evaluated in, that frame's sizes, and the
    expression's structure there.

    A debugger evaluates it on the stopped thread with the selected frame's names, so that
    frame is the one below that gave them: a Python frame gives no type, even with a `.ss`
    frame above it. Called otherwise, the nearest `.ss` frame of the caller that knows the
    expression gives its type."""
    import sys

    from shapescript import debugging

    caller = sys._getframe(2)
    target = _evaluated_in(caller)
    if target is not None:
        if not debugging.is_shapescript_frame(target):
            return None, {}, None
        found = debugging.frame_types(target).get(expression)
        if found is None:
            return None, {}, None
        return found, _frame_sizes(target), debugging.frame_structures(target).get(expression)
    frame = caller
    while frame is not None:
        if debugging.is_shapescript_frame(frame):
            found = debugging.frame_types(frame).get(expression)
            if found is not None:
                structure = debugging.frame_structures(frame).get(expression)
                return found, _frame_sizes(frame), structure
        frame = frame.f_back
    return None, {}, None


def _evaluated_in(caller: Any) -> Any:
    """The frame below `caller` whose names `caller` runs with, as an evaluation in it does
    (debugpy copies that frame's globals and locals into the evaluation's globals)."""
    names = caller.f_globals
    frame = caller.f_back
    while frame is not None:
        if frame.f_locals is caller.f_locals and frame.f_globals is names:
            return frame
        if frame.f_code.co_filename != caller.f_code.co_filename and all(
            names.get(key, names) is value
            for scope in (frame.f_globals, frame.f_locals)
            for key, value in scope.items()
            if key != "__builtins__"
        ):
            return frame
        frame = frame.f_back
    return None


def _frame_sizes(frame: Any) -> dict[str, int]:
    """The whole numbers a frame sees by name: its sizes (`b`, `gh`) and the module's dims."""
    found: dict[str, int] = {}
    for scope in (frame.f_globals, frame.f_locals):
        for name, value in scope.items():
            if isinstance(value, int) and not isinstance(value, bool):
                found[name] = value
    return found


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
    from shapescript.check.algebra.types import format_type

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
                if url.path == "/release":
                    # The view lets a value go when the program goes on.
                    gone = server.views.pop(query.get("id", ""), None) is not None
                    self._answer(200, {"released": gone})
                    return
                view = server.views.get(query.get("id", ""))
            if view is None:
                self._answer(404, {"error": "no such value"})
                return
            try:
                with _reading(view):
                    if url.path == "/summary":
                        answer = summary(view)
                    elif url.path == "/tile":
                        answer = tile(view, query)
                    else:
                        self._answer(404, {"error": "no such request"})
                        return
                self._answer(200, answer)
            except (ValueError, IndexError, RuntimeError) as error:
                self._answer(400, {"error": str(error)})

        def _answer(self, status: int, body: dict) -> None:
            data = json.dumps(body, allow_nan=False, default=str).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextlib.contextmanager
def _reading(view: _View):
    """Read a CUDA value on the view's stream once the stopped thread's queued work is done,
    leaving the program's streams alone; anything else is read as it is."""
    if view.stream is None:
        yield
        return
    import torch

    view.stream.wait_event(view.ready)
    with torch.cuda.stream(view.stream):
        yield
    view.stream.synchronize()


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
    if tensor.shape[0] == 0:
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
    outside = 0
    first_bad: dict[str, list[int] | None] = {"finite": None, "domain": None}
    offset = 0
    excused = 0
    shaped = _StructureCheck(view)
    floating = tensor.is_floating_point()
    tiny = torch.finfo(tensor.dtype).tiny if floating else 0.0
    for block in _blocks(tensor):
        flat = block.reshape(-1)
        is_nan = torch.isnan(flat)
        is_inf = torch.isinf(flat)
        finite = ~(is_nan | is_inf)
        nan += int(is_nan.sum())
        inf += int(is_inf.sum())
        bad = view.not_finite(flat)
        if view.structure is not None and tensor.dim() >= 2:
            background = view.background(block.shape, offset // max(block[0].numel(), 1))
            shaped.add(block, background, offset)
            allowed_here = view.excused(block, background)
            if allowed_here is not None:
                allowed_flat = allowed_here.reshape(-1)
                if view.domain != "Additive":
                    excused += int(allowed_flat.sum())
                bad = bad & ~allowed_flat
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
        out = view.outside(flat)
        outside += int(out.sum())
        if first_bad["domain"] is None and bool(out.any()):
            first_bad["domain"] = _index(offset + int(out.nonzero()[0, 0]), tensor.shape)
        offset += flat.numel()
    finite_count = count - nan - inf
    mean = total / finite_count if finite_count else math.nan
    variance = squares / finite_count - mean * mean if finite_count else math.nan
    allowed = inf - _count_allowed_infinities(view) if view.domain == "Additive" else inf
    allowed -= excused
    checks = [
        {
            "check": "no NaN or ±∞",
            "ok": nan + allowed == 0,
            "count": nan + allowed,
            "first": first_bad["finite"],
        }
    ]
    domain_check = view.domain_check()
    if domain_check is not None:
        checks.append(
            {
                "check": domain_check,
                "ok": outside == 0,
                "count": outside,
                "first": first_bad["domain"],
            }
        )
    if view.domain in ("Prob", "LogProb") and view.over is not None:
        checks.append(_sums_to_one(view))
    if view.structure is not None and tensor.dim() >= 2:
        checks.append(shaped.check())
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
    low, high = view.range
    answer = {
        "shape": list(tensor.shape),
        "axes": view.axes,
        "groups": {
            str(axis): [list(part) for part in parts] for axis, parts in view.groups.items()
        },
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "device": str(tensor.device),
        "type": view.type_text,
        "domain": view.domain,
        "domain_size": view.domain_size,
        "range": [low, high] if math.isfinite(low) and math.isfinite(high) else None,
        "stats": stats,
        "checks": checks,
        "structure": None
        if view.structure is None
        else {
            "rows": view.structure[0],
            "cols": view.structure[1],
            "background": _number(view.structure[2]),
            "text": view.structure[3],
        },
    }
    answer.update(_percentiles(view))
    return answer


class _StructureCheck:
    """The check that the background a structure promises is there, block by block: how
    many elements there aren't it, the first, and the worst (farthest from it)."""

    def __init__(self, view: _View) -> None:
        self.view = view
        self.count = 0
        self.first: int | None = None
        self.worst: tuple[float, int] | None = None

    def add(self, block, background, offset: int) -> None:
        import torch

        assert self.view.structure is not None
        expected = self.view.structure[2]
        off = (background & (block != expected)).reshape(-1)
        self.count += int(off.sum())
        if not bool(off.any()):
            return
        if self.first is None:
            self.first = offset + int(off.nonzero()[0, 0])
        flat = block.reshape(-1)
        distance = (flat - expected).abs() if math.isfinite(expected) else flat.abs()
        distance = torch.where(torch.isnan(distance), torch.full_like(distance, math.inf), distance)
        distance = torch.where(off, distance, torch.full_like(distance, -1.0))
        index = int(distance.argmax())
        if self.worst is None or float(distance[index]) > self.worst[0]:
            self.worst = (float(distance[index]), offset + index)

    def check(self) -> dict[str, Any]:
        view = self.view
        assert view.structure is not None
        rows, cols, expected, _ = view.structure
        shape = view.tensor.shape
        background = _number(expected)
        shown = {0.0: "0", 1.0: "1"}.get(expected, str(background))
        return {
            "check": f"{view.axes[cols]} > {view.axes[rows]} is {shown}, as its structure promises",
            "ok": self.count == 0,
            "count": self.count,
            "first": None if self.first is None else _index(self.first, shape),
            "worst": None if self.worst is None else _index(self.worst[1], shape),
        }


def _count_allowed_infinities(view: _View) -> int:
    """The -inf values of an Additive value, which its domain allows."""
    return sum(int((block == -math.inf).sum()) for block in _blocks(view.tensor))


def _percentiles(view: _View) -> dict[str, Any]:
    """The 0.5th and 99.5th percentiles of the finite values and a histogram between them
    (with the counts below and above),
    from a sample drawn with a generator of the view's own (the program's random numbers
    don't change)."""
    import torch

    tensor = view.tensor
    if tensor.numel() == 0:
        return {"percentiles": None, "histogram": None}
    if tensor.numel() <= SAMPLES:
        sample = tensor.reshape(-1).double()
    else:
        generator = torch.Generator(device=tensor.device)
        generator.manual_seed(0)
        flat = torch.randint(
            0, tensor.numel(), (SAMPLES,), generator=generator, device=tensor.device
        )
        sample = tensor[torch.unravel_index(flat, tensor.shape)].double()
    sample = sample[torch.isfinite(sample)]
    if sample.numel() == 0:
        return {"percentiles": None, "histogram": None}
    low, high = torch.quantile(
        sample, torch.tensor([0.005, 0.995], dtype=sample.dtype, device=sample.device)
    ).tolist()
    top = high if high > low else low + 1
    counts = torch.histc(sample, bins=64, min=low, max=top)
    return {
        "percentiles": [low, high],
        "histogram": {
            "min": low,
            "max": top,
            "counts": [int(c) for c in counts.tolist()],
            "below": int((sample < low).sum()),
            "above": int((sample > top).sum()),
        },
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


def arranged(view: _View, query: dict[str, str]):
    """The value with its group axes split (`split=1:4,4;...`, sizes of the axis's parts),
    as the view numbers its axes: a group's parts take its place, the later axes move on."""
    tensor = view.tensor
    if tensor.dim() == 0:
        return tensor.reshape(1, 1)
    if tensor.dim() == 1:
        return tensor.reshape(1, -1)
    splits: list[tuple[int, list[int]]] = []
    for item in filter(None, query.get("split", "").split(";")):
        axis, _, parts = item.partition(":")
        splits.append((int(axis), [int(part) for part in parts.split(",")]))
    for axis, parts in sorted(splits, reverse=True):
        if not 0 <= axis < view.tensor.dim() or math.prod(parts) != tensor.shape[axis]:
            raise ValueError(f"axis {axis} can't be split into {parts}")
        tensor = tensor.unflatten(axis, parts)
    return tensor


def _reductions(query: dict[str, str], dims: int) -> dict[int, str]:
    found: dict[int, str] = {}
    for item in filter(None, query.get("reduce", "").split(";")):
        axis, _, how = item.partition(":")
        if how not in REDUCTIONS or not 0 <= int(axis) < dims:
            raise ValueError(f"no reduction {how!r} over axis {axis}")
        found[int(axis)] = how
    return found


def _reduce(values, how: str):
    """One value of the elements along the last axis (the reduced axes, flattened)."""
    import torch

    if values.shape[-1] == 0:
        return torch.zeros(values.shape[:-1], dtype=values.dtype, device=values.device)
    if how == "mean":
        return values.mean(-1)
    if how == "max":
        return values.amax(-1)
    if how == "min":
        return values.amin(-1)
    if how == "sum":
        return values.sum(-1)
    if how == "norm":
        return values.norm(dim=-1)
    if how == "std":
        return values.std(-1, correction=0)
    picked = values.abs().argmax(-1, keepdim=True)
    return values.gather(-1, picked).squeeze(-1)


def tile(view: _View, query: dict[str, str]) -> dict[str, Any]:
    """A tile of up to 256 × 256 cells of two axes, each cell 2^k × 2^j elements.

    `rows` and `cols` name the axes (the last two by default), `reduce` makes one value of
    some others (`3:norm;0:mean`), `at` fixes the rest (comma-separated indices, 0 by
    default), `row`/`col` are the tile's first element and `row_step`/`col_step` the
    elements a cell covers (powers of two). Axes are numbered after `split`. Each cell has
    the mean, least and greatest of its values, and counts its elements that are NaN, ±∞
    or outside the domain. The tile is read in blocks of rows within the memory budget."""
    import torch

    tensor = arranged(view, query)
    dims = tensor.dim()
    rows_axis = int(query.get("rows", dims - 2)) % dims
    cols_axis = int(query.get("cols", dims - 1)) % dims
    if rows_axis == cols_axis:
        raise ValueError("rows and cols must be two different axes")
    reduced = _reductions(query, dims)
    if rows_axis in reduced or cols_axis in reduced:
        raise ValueError("the rows and columns can't be reduced")
    rest = [axis for axis in range(dims) if axis not in (rows_axis, cols_axis, *reduced)]
    at = [int(part) for part in query.get("at", "").split(",") if part.strip()]
    at += [0] * (len(rest) - len(at))
    order = [*rest, rows_axis, cols_axis, *reduced]
    plane = tensor.permute(*order)[tuple(at[: len(rest)])]
    how = list(reduced.values())
    row_step, col_step = int(query.get("row_step", 1)), int(query.get("col_step", 1))
    for step in (row_step, col_step):
        if step < 1 or step & (step - 1):
            raise ValueError("a cell covers a power of two of elements along each axis")
    row0, col0 = int(query.get("row", 0)), int(query.get("col", 0))
    part = plane[row0 : row0 + TILE * row_step, col0 : col0 + TILE * col_step]
    cells_r = -(-part.shape[0] // row_step)
    cells_c = -(-part.shape[1] // col_step)
    inner = math.prod(part.shape[2:])
    per_cell_row = max(row_step * part.shape[1] * max(inner, 1) * 8 * 6, 1)
    chunk = max(_budget(tensor) // per_cell_row, 1)
    pieces: dict[str, list] = {name: [] for name in ("mean", "min", "max", "nan", "inf", "out")}
    shaped = (
        view.structure is not None
        and not query.get("split")
        and (rows_axis, cols_axis) == view.structure[:2]
    )
    if shaped:
        pieces.update(background=[], off=[])
    with torch.no_grad():
        for first in range(0, cells_r, chunk):
            rows = part[first * row_step : (first + chunk) * row_step]
            origin = (row0 + first * row_step, col0) if shaped else None
            for name, value in _cells(view, rows, row_step, col_step, how, origin).items():
                pieces[name].append(value)
    joined = {name: torch.cat(value) if value else None for name, value in pieces.items()}

    def grid(values) -> list[list[float | None]]:
        if values is None:
            return []
        return [[None if math.isnan(v) else v for v in row] for row in values.cpu().tolist()]

    def counts(values) -> list[list[int]]:
        return [] if values is None else values.cpu().tolist()

    answer = {
        "rows": cells_r,
        "cols": cells_c,
        "row": row0,
        "col": col0,
        "row_step": row_step,
        "col_step": col_step,
        "reduced": ",".join(how) or None,
        "mean": grid(joined["mean"]),
        "min": grid(joined["min"]),
        "max": grid(joined["max"]),
        "nan": counts(joined["nan"]),
        "inf": counts(joined["inf"]),
        "outside": counts(joined["out"]),
    }
    if shaped:
        # Cells wholly in the structure's background, and how many of a cell's elements
        # there aren't the background.
        answer["background"] = counts(joined["background"])
        answer["not_background"] = counts(joined["off"])
    plain = not query.get("split") and not reduced
    if (
        plain
        and view.domain in ("Prob", "LogProb")
        and view.over == cols_axis
        and view.tensor.dim() >= 2
    ):
        answer["bad_rows"] = _bad_rows(view, plane, row0, row_step, cells_r)
    return answer


def _cells(
    view: _View,
    rows,
    row_step: int,
    col_step: int,
    how: list[str],
    origin: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """The cells of some rows of a tile: [rows, cols, reduced...] elements in (each reduced
    axis with its reduction in `how`), per cell out. With `origin`, where the first element
    is among the structure's rows and columns, the cells also say whether they are wholly
    its background and how many elements there aren't it."""
    import torch

    full = rows.double()
    values = full.reshape(rows.shape[0], rows.shape[1], -1)
    bad = view.not_finite(values)
    background = view.background(values.shape, origin=origin) if origin is not None else None
    if background is not None:
        allowed = view.excused(values, background)
        if allowed is not None:
            bad = bad & ~allowed
        expected = view.structure[2] if view.structure is not None else 0.0
        inside_n = background.sum(-1)
        off_n = (background & (values != expected)).sum(-1)
        every_n = torch.full_like(inside_n, values.shape[-1])
    is_nan = torch.isnan(values)
    out = view.outside(values)
    nan_n = is_nan.sum(-1)
    inf_n = (bad & ~is_nan).sum(-1)
    out_n = out.sum(-1)
    values = full
    for reduction in reversed(how):
        values = _reduce(values, reduction)
    r, c = values.shape
    cells_r, cells_c = -(-r // row_step), -(-c // col_step)

    def padded(grid, fill):
        full = torch.full(
            (cells_r * row_step, cells_c * col_step), fill, dtype=grid.dtype, device=grid.device
        )
        full[:r, :c] = grid
        return (
            full.reshape(cells_r, row_step, cells_c, col_step)
            .transpose(1, 2)
            .reshape(cells_r, cells_c, -1)
        )

    cells = padded(values, math.nan)
    finite = torch.isfinite(cells)
    count = finite.sum(-1)
    mean = torch.where(finite, cells, torch.zeros_like(cells)).sum(-1) / count.clamp(min=1)
    least = torch.where(finite, cells, torch.full_like(cells, math.inf)).amin(-1)
    greatest = torch.where(finite, cells, torch.full_like(cells, -math.inf)).amax(-1)
    empty = count == 0
    nothing = torch.full_like(mean, math.nan)
    found = {
        "mean": torch.where(empty, nothing, mean),
        "min": torch.where(empty, nothing, least),
        "max": torch.where(empty, nothing, greatest),
        "nan": padded(nan_n, 0).sum(-1),
        "inf": padded(inf_n, 0).sum(-1),
        "out": padded(out_n, 0).sum(-1),
    }
    if background is not None:
        real = padded(every_n, 0).sum(-1)
        found["background"] = ((padded(inside_n, 0).sum(-1) == real) & (real > 0)).long()
        found["off"] = padded(off_n, 0).sum(-1)
    return found


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
