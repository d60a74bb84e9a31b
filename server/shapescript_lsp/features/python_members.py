"""Python modules' names for completion, which never waits for Python.

A module of the user's own (under the file's folder or a workspace folder) is read with
`ast` and never imported. Any other is listed by a worker process in the configured
interpreter (`python_child.py`: `pkgutil` first, then `dir()` and `inspect` after
importing it), once per interpreter and module for the session. Listing starts as soon
as a file's `import python` lines are seen. The first completion that asks for a module
waits for its listing up to `FIRST_WAIT_S` (off the event loop), since some clients
(Neovim 0.7) never ask again for a list marked incomplete; after that, and past the
limit, completion answers with what is known and says the list is incomplete.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from shapescript.records import record

log = logging.getLogger("shapescript_lsp.python")

CHILD = Path(__file__).with_name("python_child.py")
_IMPORT_PYTHON = re.compile(r"[ \t]*import[ \t]+python[ \t]+([\w.]+)")


def python_imports(text: str) -> tuple[str, ...]:
    """The modules the text's `import python` lines name, in order.

    Only the lines holding the word `python` are matched: a multiline `^` pattern tries
    every offset, which on a 1 MB document costs more than a keystroke's analysis should.
    """
    found = []
    at = text.find("python")
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        match = _IMPORT_PYTHON.match(text, start)
        if match is not None:
            found.append(match.group(1))
        end = text.find("\n", at)
        if end == -1:
            break
        at = text.find("python", end)
    return tuple(found)


@record(frozen=True)
class Member:
    """A name in a Python module: its kind (module, class, function or variable), its
    signature (or a variable's type) and its docstring."""

    name: str
    kind: str
    signature: str = ""
    doc: str = ""


@record(frozen=True)
class Listing:
    """The names known of a module, and whether that's all of them."""

    members: tuple[Member, ...]
    complete: bool


def _niced(command: list[str]) -> list[str]:
    """The command run at a lower priority where `nice` exists: listing is background work,
    and its interpreter's start (and torch's import) mustn't slow the server's answers."""
    nice = shutil.which("nice") if sys.platform != "win32" else None
    return [nice, "-n", "10", *command] if nice else command


def default_python() -> str:
    return "python" if sys.platform == "win32" else "python3"


#: Seconds a module may take to be listed before its worker is killed and restarted.
LIST_TIMEOUT = 15.0
#: Seconds the first completion that asks for a module (or the top-level list) waits for
#: its listing (`firstListWait` of `shapescript/setPython`).
FIRST_WAIT_S = 1.5
#: How long a fresh worker may take to start (a niced interpreter on a busy machine is
#: slow to start, and that time isn't the module's).
START_TIMEOUT = 60.0


class Lister:
    """The worker for one interpreter and what it has answered so far.

    Requests go to the worker one at a time; one that isn't answered within the time
    limit (an import that hangs) marks its module failed, and a fresh worker takes the
    rest of the queue. The limit counts from the moment the worker says it is ready, so
    a slow start on a busy machine isn't charged to the module asked for.
    """

    def __init__(self, python: str, timeout: float = LIST_TIMEOUT) -> None:
        self.python = python
        self.timeout = timeout
        self.listings: dict[str, Listing] = {}
        self.toplevel: tuple[str, ...] | None = None
        #: Modules whose listing ran out of time.
        self.failed: set[str] = set()
        self._origins: dict[str, str] = {}
        self._asked: set[str] = set()
        self._lock = threading.Lock()
        #: Notified, with the lock held, whenever a listing arrives or the worker is gone.
        self._changed = threading.Condition(self._lock)
        self._requests: queue.Queue[dict] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._answered = threading.Event()
        #: The current worker has started and reads requests.
        self._ready = threading.Event()
        #: The module whose answer the worker owes now ("" for the top-level list).
        self._pending: str | None = None
        self._process: subprocess.Popen | None = None
        #: The worker couldn't start or has stopped: nothing more will be listed.
        self._gone = False

    def ask(self, module: str, roots: list[str]) -> None:
        """List the module in the background, unless it was asked for already."""
        with self._lock:
            if module in self._asked:
                return
            self._asked.add(module)
            if self._gone:
                self.listings[module] = Listing((), True)
                return
        self._send({"module": module, "roots": roots})

    def ask_toplevel(self) -> None:
        with self._lock:
            if "" in self._asked:
                return
            self._asked.add("")
            if self._gone:
                self.toplevel = ()
                return
        self._send({"toplevel": True})

    def listing(self, module: str) -> Listing | None:
        with self._lock:
            return self.listings.get(module)

    def wait_for(self, module: str, seconds: float) -> None:
        """Wait until the module ("" for the top-level list) is listed in full, the worker
        is gone, or `seconds` have passed."""

        def listed() -> bool:
            if self._gone:
                return True
            if not module:
                return self.toplevel is not None
            found = self.listings.get(module)
            return found is not None and found.complete

        with self._changed:
            self._changed.wait_for(listed, timeout=seconds)

    def _send(self, request: dict) -> None:
        self._requests.put(request)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True)
                self._thread.start()

    def _start(self) -> subprocess.Popen | None:
        """A fresh, ready worker with a thread reading its answers, or None if it can't start."""
        self._ready.clear()
        try:
            process = subprocess.Popen(
                _niced([self.python, "-u", str(CHILD)]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                cwd=os.path.dirname(CHILD),
            )
        except OSError as error:
            log.info("can't start %s to list Python modules: %s", self.python, error)
            self._give_up()
            return None
        with self._lock:
            self._process = process
        threading.Thread(target=self._read, args=(process,), daemon=True).start()
        if not self._ready.wait(START_TIMEOUT):
            log.info(
                "%s didn't start listing Python modules within %s s", self.python, START_TIMEOUT
            )
            with self._lock:
                self._process = None
            process.kill()
            self._give_up()
            return None
        with self._lock:
            if self._gone:
                return None
        return process

    def _run(self) -> None:
        """Pass requests to the worker one at a time, each within the time limit."""
        process = self._start()
        while process is not None:
            request = self._requests.get()
            with self._lock:
                if self._gone:
                    return
                self._pending = request.get("module", "")
                self._answered.clear()
            try:
                assert process.stdin is not None
                process.stdin.write(json.dumps(request) + "\n")
                process.stdin.flush()
            except (OSError, ValueError):
                self._give_up()
                return
            if not self._answered.wait(self.timeout):
                self._fail(request.get("module", ""))
                with self._lock:
                    self._process = None
                process.kill()
                process = self._start()

    def _fail(self, module: str) -> None:
        """The module took too long: what its source says (read with ast) is all there is."""
        log.warning(
            "listing Python module %s took over %s s in %s: gave up on it",
            module or "(top level)",
            self.timeout,
            self.python,
        )
        with self._lock:
            self._pending = None
            if not module:
                self.toplevel = self.toplevel or ()
                self._changed.notify_all()
                return
            self.failed.add(module)
            known = self.listings.get(module)
            origin = self._origins.get(module, "")
        members = list(known.members) if known else []
        if origin:
            names = {m.name for m in members}
            members += [m for m in read_module(Path(origin)) if m.name not in names]
        with self._lock:
            self.listings[module] = Listing(tuple(members), True)
            self._changed.notify_all()

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                answer = json.loads(line)
            except ValueError:
                continue
            if "ready" in answer:
                self._ready.set()
                continue
            with self._lock:
                if "toplevel" in answer:
                    self.toplevel = tuple(answer["toplevel"])
                    self._settle("")
                elif "error" in answer:
                    self._settle(self._pending)
                elif "module" in answer:
                    module = answer["module"]
                    if answer.get("origin"):
                        self._origins[module] = answer["origin"]
                    members = tuple(Member(*fields) for fields in answer["members"])
                    self.listings[module] = Listing(members, bool(answer["complete"]))
                    if answer["complete"]:
                        self._settle(module)
                self._changed.notify_all()
        with self._lock:
            killed = process is not self._process
        if not killed:
            self._give_up()

    def _settle(self, module: str | None) -> None:
        """The worker answered the request it owed (called with the lock held)."""
        if module == self._pending:
            self._pending = None
            self._answered.set()

    def _give_up(self) -> None:
        """The worker is gone: whatever was asked and not answered stays as it is, complete."""
        with self._lock:
            self._gone = True
            for module in self._asked:
                if not module:
                    self.toplevel = self.toplevel or ()
                    continue
                known = self.listings.get(module)
                self.listings[module] = Listing(known.members if known else (), True)
            self._changed.notify_all()
        self._answered.set()
        self._ready.set()
        self._requests.put({})


class PythonNames:
    """The session's listers, one per interpreter, and the user's modules read with ast."""

    def __init__(self) -> None:
        #: Seconds a module may take to be listed (`listTimeout` of `shapescript/setPython`).
        self.timeout = LIST_TIMEOUT
        #: Seconds the first completion asking for a module waits for its listing.
        self.first_wait = FIRST_WAIT_S
        #: The (interpreter, module) pairs a completion has waited for once already.
        self._waited: set[tuple[str, str]] = set()
        self._listers: dict[str, Lister] = {}
        self._lock = threading.Lock()
        self._parsed: dict[str, tuple[int, tuple[Member, ...]]] = {}
        #: The (interpreter, roots, modules) prefetch has started listing already.
        self._prefetched: set[tuple] = set()
        #: The user's modules' names as completion last offered them, by dotted name.
        self._users: dict[str, tuple[Member, ...]] = {}

    def set_timeout(self, seconds: float) -> None:
        """How long a module may take to be listed, from now on."""
        with self._lock:
            self.timeout = seconds
            for lister in self._listers.values():
                lister.timeout = seconds

    def set_first_wait(self, seconds: float) -> None:
        """How long the first completion asking for a module waits, from now on."""
        self.first_wait = max(0.0, seconds)

    def _wait_once(self, lister: Lister, module: str, wait: bool) -> None:
        """On the first completion asking for the module, wait for its listing a while."""
        if not wait or self.first_wait <= 0:
            return
        key = (lister.python, module)
        with self._lock:
            if key in self._waited:
                return
            self._waited.add(key)
        lister.wait_for(module, self.first_wait)

    def lister(self, python: str | None) -> Lister:
        python = python or default_python()
        with self._lock:
            lister = self._listers.get(python)
            if lister is None:
                lister = self._listers[python] = Lister(python, self.timeout)
            return lister

    def prefetch(self, text: str, python: str | None, roots: list[str]) -> None:
        """Start listing every module the text's `import python` lines name (and their
        packages), unless it is the user's own."""
        if "python" not in text:
            return
        modules = python_imports(text)
        key = (python, tuple(roots), modules)
        if key in self._prefetched:
            return  # typing elsewhere in the file: the same imports, already asked for
        self._prefetched.add(key)
        for module in modules:
            parts = module.strip(".").split(".")
            if user_module(parts[:1], roots) is not None:
                continue
            lister = self.lister(python)
            for cut in range(1, len(parts) + 1):
                lister.ask(".".join(parts[:cut]), roots)

    def members(
        self, dotted: str, python: str | None, roots: list[str], wait: bool = False
    ) -> Listing:
        """What is known now of a module's (or a class's) names; with `wait`, the first time
        the module is asked for, after waiting for its listing up to `first_wait`."""
        parts = dotted.split(".")
        found = user_module(parts, roots)
        if found is not None:
            self._users[dotted] = self._read_user(found)
            return Listing(self._users[dotted], True)
        if user_module(parts[:1], roots) is not None:
            self._users[dotted] = self._user_attribute(parts, roots)
            return Listing(self._users[dotted], True)
        lister = self.lister(python)
        lister.ask(dotted, roots)
        self._wait_once(lister, dotted, wait)
        return lister.listing(dotted) or Listing((), False)

    def modules(
        self, package: str, python: str | None, roots: list[str], wait: bool = False
    ) -> Listing:
        """The modules `import python` can name: top-level ones, or a package's
        submodules (`package` dotted), from the user's folders and `pkgutil`; `wait` as
        for `members`."""
        if package:
            listing = self.members(package, python, roots, wait)
            modules = tuple(m for m in listing.members if m.kind == "module")
            return Listing(modules, listing.complete)
        own = {name: Member(name, "module", "", "your module") for name in _user_toplevel(roots)}
        lister = self.lister(python)
        lister.ask_toplevel()
        self._wait_once(lister, "", wait)
        toplevel = lister.toplevel
        others = tuple(Member(name, "module") for name in toplevel or () if name not in own)
        return Listing(tuple(own.values()) + others, toplevel is not None)

    def known_member(self, module: str, name: str | None) -> Member | None:
        """A name completion offered, from what any listing or source read found."""
        candidates = list(self._users.get(module, ()))
        with self._lock:
            listers = list(self._listers.values())
        for lister in listers:
            listing = lister.listing(module)
            if listing is not None:
                candidates = list(listing.members) + candidates
        return next((m for m in candidates if m.name == name), None)

    def _read_user(self, path: Path) -> tuple[Member, ...]:
        key = str(path)
        try:
            stamp = path.stat().st_mtime_ns if path.is_file() else 0
        except OSError:
            return ()
        cached = self._parsed.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        members = read_module(path)
        self._parsed[key] = (stamp, members)
        return members

    def _user_attribute(self, parts: list[str], roots: list[str]) -> tuple[Member, ...]:
        """Members of a class in a user's module (`augment.Crop.`), read with ast."""
        for cut in range(len(parts) - 1, 0, -1):
            found = user_module(parts[:cut], roots)
            if found is None:
                continue
            try:
                tree = ast.parse(_module_file(found).read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                return ()
            body = tree.body
            for part in parts[cut:]:
                classes = [n for n in body if isinstance(n, ast.ClassDef) and n.name == part]
                if not classes:
                    return ()
                body = classes[-1].body
            return tuple(_members_of_body(body))
        return ()


def user_module(parts: list[str], roots: list[str]) -> Path | None:
    """The file (or folder) of a module under the user's folders, or None."""
    for root in roots:
        base = Path(root).joinpath(*parts)
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        if base.is_dir() and any(base.glob("*.py")):
            return base
    return None


def _module_file(found: Path) -> Path:
    return found if found.is_file() else found / "__init__.py"


def _user_toplevel(roots: list[str]) -> list[str]:
    names: list[str] = []
    for root in roots:
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if entry.is_file() and name.endswith(".py") and name[:-3].isidentifier():
                names.append(name[:-3])
            elif (
                entry.is_dir()
                and name.isidentifier()
                and not name.startswith((".", "_"))
                and any(p.suffix == ".py" for p in Path(entry.path).iterdir())
            ):
                names.append(name)
    return list(dict.fromkeys(names))


def read_module(path: Path) -> tuple[Member, ...]:
    """A module's names from its source: definitions, assignments and imports, and a
    package's submodules; nothing is run."""
    members: list[Member] = []
    file = _module_file(path)
    if file.is_file():
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        members = _members_of_body(tree.body)
    if file.name == "__init__.py" or not path.is_file():
        folder = file.parent
        known = {m.name for m in members}
        for entry in sorted(folder.iterdir()):
            stem = entry.stem if entry.suffix == ".py" else entry.name
            package = entry.is_dir() and (entry / "__init__.py").exists()
            is_module = entry.suffix == ".py" or package
            if is_module and stem.isidentifier() and stem != "__init__" and stem not in known:
                members.append(Member(stem, "module"))
    return tuple(m for m in members if not m.name.startswith("_"))


def _members_of_body(body: list[ast.stmt]) -> list[Member]:
    found: dict[str, Member] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            signature = f"{node.name}({ast.unparse(node.args)})"
            if node.returns is not None:
                signature += f" -> {ast.unparse(node.returns)}"
            doc = ast.get_docstring(node) or ""
            found[node.name] = Member(node.name, "function", signature, doc)
        elif isinstance(node, ast.ClassDef):
            found[node.name] = Member(node.name, "class", node.name, ast.get_docstring(node) or "")
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found[name.id] = Member(name.id, "variable", _annotation(node))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                found[name] = Member(name, "module", "", f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    name = alias.asname or alias.name
                    found[name] = Member(name, "variable", "", f"from {node.module} import")
    return list(found.values())


def _annotation(node: ast.Assign | ast.AnnAssign) -> str:
    if isinstance(node, ast.AnnAssign):
        return ast.unparse(node.annotation)
    return ""


#: The server's one set of listers, shared by completion and resolve.
PYTHON_NAMES = PythonNames()


def python_roots(document_path: str, workspace_roots: list[Path]) -> list[str]:
    """The user's folders for a document: its own, then the workspace's."""
    folders = [os.path.dirname(document_path)] + [str(root) for root in workspace_roots]
    return list(dict.fromkeys(folder for folder in folders if folder))
