"""E0107 cases: files whose bytes are not UTF-8 are one E0107, which a `.ss` case file
(always UTF-8) can't show, so the cases are bytes here."""

from __future__ import annotations

import pytest

from shapescript.syntax.encoding import decode

TEXT = "dim D = 4\nfn f(x: [D]) -> [D] = x\n"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (TEXT.encode("utf-16"), "this file is UTF-16 (little-endian), not UTF-8"),
        (b"\xfe\xff" + TEXT.encode("utf-16-be"), "this file is UTF-16 (big-endian), not UTF-8"),
        (TEXT.encode("utf-32"), "this file is UTF-32 (little-endian), not UTF-8"),
        (TEXT.encode("utf-16-le"), "this file looks like UTF-16 or UTF-32 without a byte order"),
        (TEXT.encode("latin-1") + b"# caf\xe9\n", "this file is not UTF-8: byte 0xE9 at offset"),
    ],
    ids=["utf16-le", "utf16-be", "utf32", "utf16-no-bom", "latin1"],
)
def test_not_utf8_is_one_e0107(data: bytes, message: str) -> None:
    decoded = decode(data)
    assert decoded.problem is not None
    assert decoded.problem.code == "E0107"
    assert decoded.problem.message.startswith(message)


def test_a_bad_byte_is_pointed_at_in_the_text() -> None:
    decoded = decode("dim D = 4 # é\n".encode() + b"\xff\n")
    assert decoded.problem is not None
    span = decoded.problem.primary.span
    assert decoded.text[span.start : span.end] == "\ufffd"


@pytest.mark.parametrize("data", [TEXT.encode(), b"\xef\xbb\xbf" + TEXT.encode(), b""])
def test_utf8_with_or_without_a_byte_order_mark_is_fine(data: bytes) -> None:
    decoded = decode(data)
    assert decoded.problem is None
    assert decoded.text.lstrip("\ufeff") == data.decode("utf-8-sig")
