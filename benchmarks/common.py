"""What every benchmark here shares: percentiles, the machine's description, results files."""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import statistics
from pathlib import Path
from typing import Any

from shapescript import atomic_write

RESULTS = Path(__file__).resolve().parent / "results"


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest sample with `fraction` of them at or below it."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def figures(samples: list[float], budget_ms: float | None) -> dict[str, Any]:
    """Median, p95 and min of millisecond samples, and whether the median meets the budget
    (a figure without a budget, such as the interpreter's own start, always passes)."""
    median = statistics.median(samples)
    return {
        "runs": len(samples),
        "median_ms": round(median, 3),
        "p95_ms": round(percentile(samples, 0.95), 3),
        "min_ms": round(min(samples), 3),
        "budget_median_ms": budget_ms,
        "pass": budget_ms is None or median <= budget_ms,
    }


def environment() -> dict[str, Any]:
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "machine": {"cpu_count": os.cpu_count(), "arch": platform.machine()},
    }


def write_results(name: str, result: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    atomic_write.write_text(path, json.dumps(result, indent=2) + "\n")
    return path


def line(label: str, result: dict[str, Any]) -> str:
    budget = result["budget_median_ms"]
    verdict = (
        "no budget"
        if budget is None
        else f"budget {budget:.0f} ms: " + ("PASS" if result["pass"] else "FAIL")
    )
    cpu = f"   cpu {result['cpu_median_ms']:7.1f} ms" if "cpu_median_ms" in result else ""
    return (
        f"  {label:<28} median {result['median_ms']:8.2f} ms   p95 {result['p95_ms']:8.2f} ms   "
        f"min {result['min_ms']:8.2f} ms{cpu}   {verdict}"
    )
