"""The server writes the Python module beside a `.ss` file when it's opened or saved
without errors (only when the client sets the `pythonModules` option to true), and warns
with W2501 instead when a hand-written `.py` file of that name is there."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.pymodules.files import installed, write_module
from shapescript.pymodules.hand_written import hand_written

log = logging.getLogger("shapescript_lsp.python_modules")


class ModuleWriter:
    def __init__(self) -> None:
        self.enabled = False
        #: Documents opened or saved since their last check: their module is due.
        self.due: set[str] = set()
        #: W2501 for each document whose `.py` is someone's own, as its last write found.
        self.warnings: dict[str, Diagnostic] = {}

    def want(self, uri: str) -> None:
        if self.enabled:
            self.due.add(uri)

    def forget(self, uri: str) -> None:
        self.due.discard(uri)
        self.warnings.pop(uri, None)

    async def after_check(self, uri: str, path: str, checked: Checked) -> bool:
        """Write the module if one is due and the file has no errors; whether the file's
        W2501 came or went."""
        if uri not in self.due or checked.errors:
            return False
        self.due.discard(uri)
        if not path.endswith(".ss") or installed(path) or not Path(path).parent.is_dir():
            return False
        try:
            outcome = await asyncio.to_thread(write_module, path, checked=checked)
        except OSError as error:
            log.info("can't write the Python module of %s: %s", path, error)
            return False
        had = uri in self.warnings
        if outcome.state == "hand_written":
            self.warnings[uri] = hand_written(checked.source, Path(outcome.module_path))
        else:
            self.warnings.pop(uri, None)
        return had or uri in self.warnings

    def extra(self, uri: str) -> list[Diagnostic]:
        warning = self.warnings.get(uri)
        return [warning] if warning is not None else []
