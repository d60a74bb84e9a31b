"""The message reader on its own: a body shorter than its Content-Length is cut where the
next message's header arrives, without waiting for bytes that will never come."""

from __future__ import annotations

import json

import pytest

from shapescript_lsp.transport import Cut, FrameReader


class Arriving:
    """A stream that hands out its chunks one read at a time, as a pipe does, and fails
    where a real one would block waiting for more."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read1(self, size: int) -> bytes:
        if not self.chunks:
            raise AssertionError("the reader waits for bytes the sender never sends")
        chunk = self.chunks.pop(0)
        if len(chunk) > size:
            chunk, rest = chunk[:size], chunk[size:]
            self.chunks.insert(0, rest)
        return chunk

    def readline(self, size: int) -> bytes:
        line = b""
        while not line.endswith(b"\n") and len(line) < size:
            line += self.read1(1)
        return line

    def read(self, size: int) -> bytes:
        return self.read1(size)


def framed(message: dict, extra: int = 0) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) + extra) + body


FIRST = {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}
SECOND = {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}


def test_a_short_body_is_cut_when_the_next_header_arrives_in_a_later_read():
    reader = FrameReader(Arriving(framed(FIRST, extra=1000), framed(SECOND)))
    cut = reader.next_body()
    assert isinstance(cut, Cut)
    assert json.loads(cut.body) == FIRST and cut.announced == len(json.dumps(FIRST)) + 1000
    assert json.loads(reader.next_body()) == SECOND


@pytest.mark.parametrize("split", [3, 9, 17, 19])
def test_a_header_split_between_reads_is_still_found(split):
    second = framed(SECOND)
    stream = Arriving(framed(FIRST, extra=len(second) + 50), second[:split], second[split:])
    reader = FrameReader(stream)
    assert isinstance(reader.next_body(), Cut)
    assert json.loads(reader.next_body()) == SECOND


@pytest.mark.parametrize("extra", [1, 5, 15, 18])
def test_a_body_that_ends_in_the_first_letters_of_a_header_gives_them_back(extra):
    """The announced length ends inside the next header: what was read of it is read
    again as a header, so the message after is not lost."""
    reader = FrameReader(Arriving(framed(FIRST, extra=extra) + framed(SECOND)))
    cut = reader.next_body()
    assert isinstance(cut, Cut) and json.loads(cut.body) == FIRST
    assert json.loads(reader.next_body()) == SECOND


def test_bodies_of_the_right_length_are_read_whole_and_untouched():
    awkward = {"jsonrpc": "2.0", "id": 3, "params": {"text": "Content-Length: 5\r\n\r\nc"}}
    reader = FrameReader(Arriving(framed(awkward), framed(SECOND)))
    assert json.loads(reader.next_body()) == awkward
    assert json.loads(reader.next_body()) == SECOND
