"""Keep routine protocol chatter out of the server's log, which editors show to users.

Editors cancel requests freely, often ones already answered, and pygls logs a warning
for each such `$/cancelRequest`; VS Code's output channel filled up with them.
"""

from __future__ import annotations

import logging

_ROUTINE = ("Cancel notification for unknown message id", "Cancelled request with id")


class DropCancellations(logging.Filter):
    """Drops pygls's records about cancelled requests; passes everything else."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        return not message.startswith(_ROUTINE)


def quiet_cancellations() -> None:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(DropCancellations())
