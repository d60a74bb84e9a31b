"""Lists Python modules for completion, run as a script in the editor's interpreter.

Says `{"ready": true}` once started, then reads one JSON request a line on stdin and
writes JSON lines on stdout:

- `{"toplevel": true}`: the modules on the path, from `pkgutil`, importing nothing;
- `{"module": "torch.nn", "roots": [...]}`: first the package's submodules (`pkgutil`,
  importing nothing) and its source file's path, then, after importing it, every public
  name with `dir()` and its kind, signature and docstring from `inspect`. A module found
  under one of `roots` (the user's own folders) is never imported.

It only uses the standard library, so that any interpreter runs it.
"""

import contextlib
import importlib
import importlib.util
import inspect
import json
import os
import pkgutil
import sys

DOC_LIMIT = 1500


_OUT = sys.stdout


def _write(message):
    _OUT.write(json.dumps(message) + "\n")
    _OUT.flush()


def _folders(dotted):
    """The folders of a package, found from its top-level spec without importing it."""
    top, *rest = dotted.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except Exception:
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    folders = list(spec.submodule_search_locations)
    for part in rest:
        folders = [os.path.join(f, part) for f in folders if os.path.isdir(os.path.join(f, part))]
    return folders


def _origin_is_users(dotted, roots):
    top = dotted.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except Exception:
        return False
    places = []
    if spec is not None:
        places = list(spec.submodule_search_locations or []) + [spec.origin or ""]
    for place in places:
        real = os.path.realpath(place) if place else ""
        for root in roots:
            if real and (real + os.sep).startswith(os.path.realpath(root) + os.sep):
                return True
    return False


def _origin(dotted):
    """The module's source file, found without importing it, or ""."""
    parent, _, last = dotted.rpartition(".")
    if not parent:
        try:
            spec = importlib.util.find_spec(dotted)
        except Exception:
            return ""
        origin = (spec.origin or "") if spec is not None else ""
        return origin if origin.endswith(".py") else ""
    for folder in _folders(parent):
        for candidate in (
            os.path.join(folder, last + ".py"),
            os.path.join(folder, last, "__init__.py"),
        ):
            if os.path.isfile(candidate):
                return candidate
    return ""


def _submodules(dotted):
    return [
        [info.name, "module", "", ""]
        for info in pkgutil.iter_modules(_folders(dotted))
        if not info.name.startswith("_")
    ]


def _resolve(dotted):
    """The module (or an attribute of one) a dotted name names."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            value = getattr(value, part)
        return value
    raise ImportError(dotted)


def _kind(value):
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "variable"


def _signature(name, value, kind, doc):
    if kind == "variable":
        return type(value).__name__
    if kind == "module":
        return ""
    try:
        return name + str(inspect.signature(value))
    except (TypeError, ValueError):
        pass
    first = doc.strip().split("\n", 1)[0].strip() if doc else ""
    if first.startswith(name + "("):
        return first
    return name + "(...)"


def _members(dotted):
    owner = _resolve(dotted)
    members = []
    names = set()
    for name in dir(owner):
        if name.startswith("_"):
            continue
        try:
            value = getattr(owner, name)
        except Exception:
            continue
        kind = _kind(value)
        doc = ""
        if kind != "variable":
            try:
                doc = inspect.getdoc(value) or ""
            except Exception:
                doc = ""
        members.append([name, kind, _signature(name, value, kind, doc), doc[:DOC_LIMIT]])
        names.add(name)
    if inspect.ismodule(owner):
        members += [m for m in _submodules(dotted) if m[0] not in names]
    return members


def _answer(request):
    if request.get("toplevel"):
        names = {info.name for info in pkgutil.iter_modules()}
        names.update(sys.builtin_module_names)
        _write({"toplevel": sorted(n for n in names if not n.startswith("_"))})
        return
    dotted = request["module"]
    _write(
        {
            "module": dotted,
            "complete": False,
            "members": _submodules(dotted),
            "origin": _origin(dotted),
        }
    )
    if _origin_is_users(dotted, request.get("roots", [])):
        _write({"module": dotted, "complete": True, "members": _submodules(dotted)})
        return
    try:
        members = _members(dotted)
    except BaseException:
        members = _submodules(dotted)
    _write({"module": dotted, "complete": True, "members": members})


def main():
    global _OUT
    # Background work: the editor's server comes first for the CPU (unless the server
    # started it niced already).
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            if os.nice(0) < 10:
                os.nice(10 - os.nice(0))
    # What imported modules print goes to stderr, never into the answers.
    _OUT = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Neither this script's folder nor the working directory: only the interpreter's path.
    sys.path[:] = [p for p in sys.path[1:] if p not in ("", os.getcwd())]
    _write({"ready": True})
    for line in sys.stdin:
        if line.strip():
            try:
                _answer(json.loads(line))
            except BaseException as error:
                _write({"error": repr(error)})


if __name__ == "__main__":
    main()
