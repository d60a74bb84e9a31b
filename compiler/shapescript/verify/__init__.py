"""The exact reference run (`shapescript verify`): a function computed in mpmath's high
precision and compiled in float dtypes on the same inputs, their errors compared."""

from __future__ import annotations

from shapescript.verify.report import Blame, Report, Row
from shapescript.verify.run import INPUT_SETS, VerifyError, verify

__all__ = ["INPUT_SETS", "Blame", "Report", "Row", "VerifyError", "verify"]
