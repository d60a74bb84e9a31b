"""Framed JSON-RPC messages read from a byte stream, strictly and within limits.

A message is header lines, an empty line, then `Content-Length` bytes of body. A header
that can't be read is logged in one line and the reader resynchronises on the next
`Content-Length` header; a message over `MAX_MESSAGE_BYTES` is skipped without being
kept in memory. A body is scanned as it arrives for a `Content-Length` header, which
JSON can't hold: where one shows up, the sender's length was too big, the body ends
there (a `Cut`) and the next message is read from that header. Reading happens on a
thread of its own; bodies go to the event loop.
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
#: How far back a scan looks for a header that began in the bytes before the new ones.
_OVERLAP = 256


def _prefixes_of_header() -> re.Pattern[bytes]:
    """A pattern for a beginning of a `Content-Length` header line at the end of the bytes.

    JSON text never ends that way: outside its strings the only letters are those of
    true, false and null, and a string ends with a quote.
    """
    rest = rb"(?::[ \t]*(?:[0-9]+[ \t]*\r?)?)?"
    for letter in reversed(b"ontent-length"):
        rest = rb"(?:" + re.escape(bytes([letter])) + rest + rb")?"
    return re.compile(rb"c" + rest + rb"\Z", re.IGNORECASE)


_HEADER_BEGINS = _prefixes_of_header()


def _header_ending_in(tail: bytes, chunk: bytes) -> int | None:
    """Where, in `tail + chunk`, the first `Content-Length` header line whose line feed is
    in `chunk` begins, if any (`tail` holds the bytes read just before `chunk`).

    Only the bytes just before each line feed are matched: most bodies have none, and
    finding a byte is far quicker than matching the pattern everywhere.
    """
    if b"\n" not in chunk:
        return None
    window = tail + chunk
    newline = window.find(b"\n", len(tail))
    while newline != -1:
        match = _RESYNC.search(window, max(0, newline - _OVERLAP), newline + 1)
        if match is not None:
            return match.start()
        newline = window.find(b"\n", newline + 1)
    return None


def _last_bytes(tail: bytes, chunk: bytes) -> bytes:
    """The last `_OVERLAP` bytes of `tail + chunk`."""
    if len(chunk) >= _OVERLAP:
        return chunk[-_OVERLAP:]
    return (tail + chunk)[-_OVERLAP:]


class Refused:
    """A message the reader skipped, and why (answered with an error whose id is null)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class Cut:
    """A body that ended early, where a new message's header began inside it."""

    def __init__(self, body: bytes, announced: int) -> None:
        self.body = body
        self.announced = announced

    @property
    def reason(self) -> str:
        return (
            f"a message's Content-Length announced {self.announced} bytes, but a new "
            f"message began after {len(self.body)}; the broken message was dropped"
        )


class FrameReader:
    """Reads message bodies from a blocking binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.pending = b""
        #: The size of a refused body still to be dropped before the next message.
        self.skipping = 0

    def next_body(self) -> bytes | Refused | Cut | None:
        """The next body, a `Refused` for a message that is too big, a `Cut` for one whose
        body was shorter than its length, or None at the end.

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
            body = self._read_body(length)
            if body is None:
                log.warning("the stream ended inside a message body")
            elif isinstance(body, Cut):
                log.warning("%s", body.reason)
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

    def _read_body(self, count: int) -> bytes | Cut | None:
        """`count` bytes of body as they arrive, or a `Cut` where a header shows up in them.

        A body whose sender gave too big a length is cut once the next message's header
        arrives, so that message is read and answered instead of being waited for. A body
        can end in the first part of a header: that part is read again as a header.
        """
        chunks: list[bytes] = []
        size = 0
        tail = b""
        while size < count:
            if self.pending:
                chunk, self.pending = self.pending[: count - size], self.pending[count - size :]
            else:
                chunk = self.stream.read1(count - size)
                if not chunk:
                    return None
            found = _header_ending_in(tail, chunk)
            if found is not None:
                body = b"".join(chunks) + chunk
                return self._cut(body, size - len(tail) + found, count)
            chunks.append(chunk)
            size += len(chunk)
            tail = _last_bytes(tail, chunk)
        body = b"".join(chunks)
        begins = _HEADER_BEGINS.search(body, max(0, len(body) - _OVERLAP))
        if begins is not None:
            return self._cut(body, begins.start(), count)
        return body

    def _cut(self, body: bytes, at: int, announced: int) -> Cut:
        """The body up to `at`; the rest is read again as the next message's beginning."""
        self.pending = body[at:] + self.pending
        return Cut(body[:at], announced)

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
            found = _header_ending_in(tail, chunk)
            if found is not None:
                self.pending = (tail + chunk)[found:] + self.pending
                log.warning("found a new message inside the skipped one; reading from there")
                return
            count -= len(chunk)
            tail = _last_bytes(tail, chunk)


def _shown(value: bytes) -> str:
    return repr(value[:80].decode("utf-8", "replace").strip())


async def serve(
    stream: BinaryIO,
    decode: Callable[[bytes | Refused | Cut], object],
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
