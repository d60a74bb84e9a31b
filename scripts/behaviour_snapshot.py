"""Record what the checker says about every `.ss` file, to compare two versions of it.

    python scripts/behaviour_snapshot.py OUT.json [ROOT ...]

For each `.ss` file under the roots (default: tests, examples and the benchmarks'
generated programs) it records the diagnostics as JSON, the module `build` writes, the
typed module `pymodules` writes and the text of the hover at the start of every word.
Run it before and after a change that must not change behaviour, then compare the two
files with `--compare BEFORE.json AFTER.json`, which names every file that differs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

DEFAULT_ROOTS = ("tests", "examples")
WORD = re.compile(r"[^\W\d]\w*")
#: Hovers are recorded for files up to this size; larger ones get diagnostics and modules.
HOVER_LIMIT = 40_000


def _benchmark_programs(folder: Path) -> list[Path]:
    """The programs the benchmarks generate, written to `folder` (always the same one, as a
    build names its file)."""
    from benchmarks.check_big import program_of_size
    from shapescript.atomic_write import write_text

    path = folder / "benchmark_program.ss"
    write_text(path, program_of_size(0.05, seed=1))
    return [path]


def _hovers(checked, text: str) -> list[list]:
    from shapescript.check.analyses.padding import complete_facts
    from shapescript_lsp.features.hover import HoverRenderer

    complete_facts(checked)
    renderer = HoverRenderer(False)
    found = []
    for word in WORD.finditer(text):
        try:
            answer = renderer.hover(checked, word.start())
        except Exception as error:  # a crash is behaviour too
            found.append([word.start(), f"raised {type(error).__name__}"])
            continue
        if answer is not None:
            found.append([word.start(), getattr(answer.contents, "value", str(answer.contents))])
    return found


def snapshot_file(path: Path) -> dict:
    """Everything recorded for one file."""
    from shapescript import analysis
    from shapescript.codegen import generate
    from shapescript.diagnostics.render_json import diagnostic_to_json
    from shapescript.pymodules.render import render
    from shapescript.syntax.source import SourceFile

    text = path.read_bytes().decode("utf-8", errors="replace")
    source = SourceFile.from_text(str(path), text)
    checked = analysis.check(source, search_path=[str(path.parent)])
    entry: dict = {
        "diagnostics": [diagnostic_to_json(diag, source) for diag in checked.diagnostics]
    }
    if not checked.errors:
        generated = generate(checked)
        entry["build"] = generated.source if generated.tree is not None else None
        entry["pymodule"] = render(checked, path.stem)
    if len(text) <= HOVER_LIMIT:
        entry["hovers"] = _hovers(checked, text)
    return entry


def snapshot(roots: list[str]) -> dict[str, dict]:
    files = sorted(p for root in roots for p in Path(root).rglob("*.ss"))
    results = {}
    scratch = os.path.join(tempfile.gettempdir(), "shapescript-behaviour-snapshot")
    os.makedirs(scratch, exist_ok=True)
    try:
        files += _benchmark_programs(Path(scratch))
    except Exception as error:
        print(f"no benchmark program: {error}", file=sys.stderr)
    for path in files:
        name = str(path) if not str(path).startswith(scratch) else path.name
        try:
            results[name] = snapshot_file(path)
        except Exception as error:
            results[name] = {"raised": f"{type(error).__name__}: {error}"}
    return results


def compare(before_path: str, after_path: str) -> int:
    before = json.loads(Path(before_path).read_text())
    after = json.loads(Path(after_path).read_text())
    differing = [
        name for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)
    ]
    for name in differing:
        old, new = before.get(name, {}), after.get(name, {})
        parts = sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key))
        print(f"{name}: {', '.join(parts)} differ")
    print(f"{len(before)} files before, {len(after)} after, {len(differing)} differ")
    return 1 if differing else 0


def main() -> int:
    from shapescript.atomic_write import write_text

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?")
    parser.add_argument("roots", nargs="*")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("name the file to write the snapshot to")
    sys.setrecursionlimit(10_000)
    results = snapshot(args.roots or list(DEFAULT_ROOTS))
    write_text(args.out, json.dumps(results, indent=1, sort_keys=True))
    raised = sum("raised" in entry for entry in results.values())
    print(f"{len(results)} files recorded in {args.out} ({raised} raised)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("SHAPESCRIPT_CACHE_DIR", tempfile.mkdtemp(prefix="snapshot-cache-"))
    sys.exit(main())
