"""The torch worker's own program, run by the Python the server was given.

It imports only the standard library and torch (never shapescript), limits its own
address space, and answers requests on stdin with replies on stdout, each a 4-byte
big-endian length and UTF-8 JSON. A request is {"code": module source, "call": name
(which the compiled module may have suffixed with _), "args": [value, ...]} (or
"calls": [[value, ...], ...] to call it several times), where a tensor value is
{"tensor": nested lists, "dtype": name} and a model {"model": class name, "seed": int},
made by the module's own class, and Eval {"mode": "Eval"}; the reply is
{"ok": true, "result": value} or {"ok": false, "kind": ..., "error": ...}.
"""

import json
import os
import resource
import signal
import struct
import sys
import traceback

HEADER = struct.Struct(">I")
PR_SET_PDEATHSIG = 1


def read_message(stream):
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (length,) = HEADER.unpack(header)
    return json.loads(stream.read(length).decode("utf-8"))


def write_message(stream, message):
    data = json.dumps(message).encode("utf-8")
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def address_space():
    """This process's virtual size in bytes, from /proc (0 where there is none)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def die_with_parent():
    """Ask Linux to kill this process when the server goes, even mid-request."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def limit_memory(extra):
    """Let the process grow by at most `extra` bytes beyond what importing torch took."""
    if extra <= 0:
        return
    limit = address_space() + extra
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def to_torch(torch, value, namespace):
    if isinstance(value, dict) and "tensor" in value:
        return torch.tensor(value["tensor"], dtype=getattr(torch, value["dtype"]))
    if isinstance(value, dict) and "model" in value:
        return namespace[value["model"]].init(seed=value["seed"])
    if isinstance(value, dict) and value.get("mode") == "Eval":
        return namespace["_ss_Eval"]
    if isinstance(value, list):
        return [to_torch(torch, part, namespace) for part in value]
    return value


def to_plain(torch, value):
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        dtype = str(value.dtype).removeprefix("torch.")
        if value.dtype == torch.bfloat16 or value.dtype == torch.float16:
            value = value.float()
        return {"tensor": value.tolist(), "dtype": dtype, "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):
        return [to_plain(torch, part) for part in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return repr(value)


def answer(torch, request):
    namespace = {"__name__": "_ss_picture"}
    try:
        exec(compile(request["code"], request.get("path", "<picture>"), "exec"), namespace)
        name = request["call"]
        function = namespace.get(name) or namespace[name + "_"]
        calls = request.get("calls") or [request.get("args", [])]
        results = []
        for call in calls:
            args = [to_torch(torch, value, namespace) for value in call]
            with torch.no_grad():
                results.append(to_plain(torch, function(*args)))
        return {"ok": True, "result": results if "calls" in request else results[0]}
    except MemoryError:
        return {"ok": False, "kind": "memory", "error": "out of memory"}
    except RuntimeError as exc:
        kind = "memory" if "alloc" in str(exc).lower() else "error"
        return {"ok": False, "kind": kind, "error": f"{type(exc).__name__}: {exc}"}
    except Exception as exc:
        lines = traceback.format_exception_only(type(exc), exc)
        return {"ok": False, "kind": "error", "error": "".join(lines).strip()}


def main():
    incoming, outgoing = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    die_with_parent()
    try:
        import torch
    except ImportError as exc:
        write_message(outgoing, {"ready": False, "error": f"PyTorch isn't installed: {exc}"})
        return
    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    write_message(outgoing, {"ready": True, "torch": torch.__version__})
    while True:
        request = read_message(incoming)
        if request is None:
            return
        write_message(outgoing, answer(torch, request))


if __name__ == "__main__":
    main()
