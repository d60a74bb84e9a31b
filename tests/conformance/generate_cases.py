"""Write test cases from the reference's diagnostic examples (run once per area, then reviewed).

Usage: python tests/conformance/generate_cases.py PATH/TO/diagnostic-examples.json AREA...

Each example program becomes `tests/data/diagnostics/<CODE>[-N].ss` with a marker comment
giving the expected code on the line where it is reported: `# E0404` at the end of that line,
or, where a comment can't follow the code (inside an unterminated string, after a doc comment),
a line `#^ E0102` under it. The line is the last line of code unless `MARKER_LINES` says which.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "diagnostics"

#: 1-based lines of the example program where the code is reported, when not the last line
#: (a line listed twice expects the code twice there).
MARKER_LINES: dict[str, list[int]] = {
    "E0103": [2],
    "W0201": [1],
    "E0304": [1],
    "E0307": [1],
    "E0411": [2],
    "E0415": [4],
    "E2201": [1, 2],
    "H2201": [3, 3],
    "E0801": [5],
    "E2402": [4],
    "H0601": [1],
    "H0602": [1],
    "E0802": [4],
    "E0803": [4],
    "E0804": [4],
    "E1105": [9],
    "E1106": [9],
    "E1107": [9],
    "W1101": [10],
    "E1304": [8],
}

#: Codes whose marker goes on a line of its own under (or above) the reported line.
MARK_BELOW = {"E0102", "W0201"}
MARK_ABOVE = {"H0601", "H0602"}


def _place_marker(code: str, program: str) -> str:
    lines = program.rstrip("\n").split("\n")
    code_lines = [i for i, line in enumerate(lines) if line.strip()]
    marked = MARKER_LINES.get(code, [code_lines[-1] + 1])
    for number in sorted(set(marked), reverse=True):
        index = number - 1
        codes = ", ".join([code] * marked.count(number))
        if code in MARK_ABOVE:
            lines.insert(index, f"#v {codes}")
        elif code in MARK_BELOW:
            lines.insert(index + 1, f"#^ {codes}")
        else:
            lines[index] = f"{lines[index]}  # {codes}"
    return "\n".join(lines) + "\n"


#: Examples that need what isn't built yet.
NOT_YET: set[str] = set()


def main(argv: list[str]) -> int:
    examples_path, *areas = argv
    data = json.loads(Path(examples_path).read_text(encoding="utf-8"))
    counts: dict[str, int] = {}
    for example in data["examples"]:
        code = example["code"]
        if code[1:3] not in areas or example["kind"] != "file" or code in NOT_YET:
            continue
        if not example.get("files"):
            continue
        (program,) = example["files"].values()
        counts[code] = counts.get(code, 0) + 1
        suffix = "" if counts[code] == 1 else f"-{counts[code]}"
        header = f"# From the reference's section on {code}.\n"
        path = OUT / f"{code}{suffix}.ss"
        path.write_text(header + _place_marker(code, program), encoding="utf-8")
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
