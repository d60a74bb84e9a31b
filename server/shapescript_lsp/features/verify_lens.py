""" "Verify" above each function: a code lens whose command (`shapescript.verify`, the
editor's) sends the `shapescript/verify` request, answered with `shapescript verify`'s
error table as Markdown.

The reference run imports torch and mpmath and can take seconds, so it runs in a child
process of the server's own Python, with a time limit, never in the server itself.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.syntax import ast

COMMAND = "shapescript.verify"
REQUEST = "shapescript/verify"
#: How long one reference run may take before it is stopped.
TIME_LIMIT_S = 120.0

#: The child's program: the document's text on stdin, the answer as JSON on stdout.
_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
from shapescript.verify import VerifyError, verify
path, fn = sys.argv[1], sys.argv[2]
try:
    report = verify(path, fn, text=sys.stdin.read())
except VerifyError as exc:
    print(json.dumps({"ok": False, "markdown": f"`{fn}` can't be verified: {exc}"}))
else:
    print(json.dumps({"ok": True, "markdown": report.markdown()}))
"""


def verify_lenses(checked: Checked, uri: str) -> list[types.CodeLens]:
    """A "Verify" lens on the name of each function of the file."""
    lenses = []
    for item in checked.items:
        declaration = item.item
        if not isinstance(declaration, ast.FnDecl):
            continue
        start = checked.source.position(item.base + declaration.name_span.start)
        end = checked.source.position(item.base + declaration.name_span.end)
        lenses.append(
            types.CodeLens(
                range=types.Range(
                    types.Position(start.line - 1, start.column - 1),
                    types.Position(end.line - 1, end.column - 1),
                ),
                command=types.Command(
                    title="Verify", command=COMMAND, arguments=[uri, declaration.name]
                ),
            )
        )
    return lenses


async def run_verify(path: str, text: str, fn: str) -> dict[str, Any]:
    """`{"ok", "markdown"}`: the function's reference run on the document's text."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _CHILD,
        path,
        fn,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(text.encode("utf-8")), TIME_LIMIT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return {"ok": False, "markdown": f"verifying `{fn}` took longer than {TIME_LIMIT_S:g} s"}
    try:
        return json.loads(out.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError):
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        return {"ok": False, "markdown": f"verifying `{fn}` failed: {last[0]}"}
