"""Framed JSON-RPC messages read from a byte stream, strictly and within limits.

A message is header lines, an empty line, then `Content-Length` bytes of body. A header
that can't be read is logged in one line and the reader resynchronises on the next
`Content-Length` header; a message over `MAX_MESSAGE_BYTES` is skipped without being
kept in memory. Reading happens on a thread of its own; bodies go to the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Callable
from typing import BinaryIO

log = logging.getLogger("shapescript_lsp.transport")

#: The largest message body the server reads; a bigger one is skipped.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: The longest header line kept; the rest of a longer one is dropped.
MAX_HEADER_LINE = 64 * 1024
_SKIP_CHUNK = 1024 * 1024
_CONTENT_LENGTH = re.compile(rb"Content-Length:[ \t]*([^\r\n]*?)[ \t]*\r?\n?$", re.IGNORECASE)
#: A header that begins a message; it can't appear in a JSON body, whose strings hold no
#: raw line breaks, so skipping a body stops early at one (the sender's length was wrong).
_RESYNC = re.compile(rb"Content-Length:[ \t]*[0-9]+[ \t]*\r\n", re.IGNORECASE)


class Refused:
    """A message the reader skipped, and why (answered with an error whose id is null)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class FrameReader:
    """Reads message bodies from a blocking binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.pending = b""
        #: The size of a refused body still to be dropped before the next message.
        self.skipping = 0

    def next_body(self) -> bytes | Refused | None:
        """The next body, a `Refused` for a message that is too big, or None at the end.

        A refused body is dropped on the next call, so the refusal is answered at once.
        """
        if self.skipping:
            self._skip(self.skipping)
            self.skipping = 0
        while True:
            length = self._headers()
            if length is None:
                return None
            if length < 0:
                continue
            if length > MAX_MESSAGE_BYTES:
                self.skipping = length
                reason = (
                    f"a message of {length} bytes is over the limit of "
                    f"{MAX_MESSAGE_BYTES} bytes; it was skipped"
                )
                log.warning("%s", reason)
                return Refused(reason)
            body = self._read(length)
            if len(body) < length:
                log.warning("the stream ended inside a message body")
                return None
            return body

    def _headers(self) -> int | None:
        """Read one header block: its content length, -1 if it had none, None at the end."""
        length: int | None = None
        problem = ""
        seen = False
        while True:
            line = self._readline()
            if not line:
                if seen:
                    log.warning("the stream ended inside a message's headers")
                return None
            if line in (b"\r\n", b"\n"):
                if seen:
                    break
                continue
            seen = True
            if not line.endswith(b"\n"):
                self._drop_line()
                problem = f"a header line longer than {MAX_HEADER_LINE} bytes"
                continue
            match = _CONTENT_LENGTH.search(line)
            if match is None:
                if b":" not in line:
                    problem = f"a malformed header line {_shown(line)}"
                continue
            value = match.group(1)
            if value.isdigit() and value.isascii():
                length = int(value)
                problem = ""
            else:
                length = None
                problem = f"a Content-Length that is not a number of bytes: {_shown(value)}"
        if length is None:
            log.warning(
                "skipping a message with %s; waiting for the next Content-Length header",
                problem or "no Content-Length header",
            )
            return -1
        return length

    def _readline(self) -> bytes:
        if self.pending:
            end = self.pending.find(b"\n")
            if end != -1:
                line, self.pending = self.pending[: end + 1], self.pending[end + 1 :]
                return line
            line, self.pending = self.pending, b""
            if len(line) >= MAX_HEADER_LINE:
                return line
            return line + self.stream.readline(MAX_HEADER_LINE - len(line))
        return self.stream.readline(MAX_HEADER_LINE)

    def _drop_line(self) -> None:
        """Drop the rest of a header line that was too long."""
        while True:
            rest = self._readline()
            if not rest or rest.endswith(b"\n"):
                return

    def _read(self, count: int) -> bytes:
        head, self.pending = self.pending[:count], self.pending[count:]
        if len(head) == count:
            return head
        return head + self.stream.read(count - len(head))

    def _skip(self, count: int) -> None:
        """Drop `count` bytes, stopping early where a new message's header shows up."""
        tail = b""
        while count > 0:
            if self.pending:
                chunk, self.pending = self.pending[:count], self.pending[count:]
            else:
                chunk = self.stream.read1(min(count, _SKIP_CHUNK))
                if not chunk:
                    return
            window = tail + chunk
            match = _RESYNC.search(window)
            if match is not None:
                self.pending = window[match.start() :] + self.pending
                log.warning("found a new message inside the skipped one; reading from there")
                return
            count -= len(chunk)
            tail = window[-64:]


def _shown(value: bytes) -> str:
    return repr(value[:80].decode("utf-8", "replace").strip())


async def serve(
    stream: BinaryIO,
    decode: Callable[[bytes | Refused], object],
    deliver: Callable[[object], None],
) -> None:
    """Read and `decode` bodies on a thread, `deliver` each on the event loop, to the end."""
    loop = asyncio.get_running_loop()
    finished = loop.create_future()

    def pump() -> None:
        reader = FrameReader(stream)
        try:
            while (body := reader.next_body()) is not None:
                loop.call_soon_threadsafe(deliver, decode(body))
        except (OSError, ValueError) as error:
            log.warning("reading from the client failed: %s", error)
        finally:
            loop.call_soon_threadsafe(_finish, finished)

    threading.Thread(target=pump, name="shapescript-reader", daemon=True).start()
    await finished


def _finish(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
