"""The real-VS Code session that several test files share (tests/e2e/editing_session.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def editing_session(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The report of one VS Code run through the end-to-end, quick fix, outline and rename,
    notebook and hover-picture steps; skipped only where the probe's own install is missing."""
    from tests.e2e.editing_session import run_session
    from tests.e2e.test_vscode import _missing_prerequisites

    reason = _missing_prerequisites()
    if reason:
        pytest.skip(reason)
    return run_session(tmp_path_factory.mktemp("editing-session"))
