"""Turning a file's bytes into text: UTF-8, or one E0107 that says what the bytes are."""

from __future__ import annotations

import codecs

from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.records import record
from shapescript.syntax.source import Span

#: Byte order marks of the encodings an editor may save a file in, longest first.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 (little-endian)"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 (big-endian)"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 (little-endian)"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 (big-endian)"),
)
_HELP = "save the file as UTF-8; ShapeScript reads no other encoding"


@record
class Decoded:
    """A file's text, and the E0107 diagnostic when its bytes are not UTF-8.

    When there is a diagnostic, the text is only good for showing it: nothing else in
    the file should be checked.
    """

    text: str
    problem: Diagnostic | None = None


def decode(data: bytes) -> Decoded:
    """Decode a source file's bytes as UTF-8 (a UTF-8 byte order mark is allowed)."""
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(codec, errors="replace")
            return Decoded(
                text,
                Diagnostic(
                    "E0107",
                    f"this file is {name}, not UTF-8",
                    Label(Span(0, 0), f"the file starts with the {name} byte order mark"),
                    help=_HELP,
                ),
            )
    sample = data[:4096]
    if sample and sample.count(0) * 4 >= len(sample):
        return Decoded(
            data.decode("utf-8", errors="replace"),
            Diagnostic(
                "E0107",
                "this file looks like UTF-16 or UTF-32 without a byte order mark, not UTF-8",
                Label(Span(0, 0), "a quarter or more of its first bytes are zero"),
                help=_HELP,
            ),
        )
    try:
        return Decoded(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        offset = len(data[: exc.start].decode("utf-8"))
        byte = data[exc.start]
        return Decoded(
            text,
            Diagnostic(
                "E0107",
                f"this file is not UTF-8: byte 0x{byte:02X} at offset {exc.start} "
                "isn't part of a UTF-8 character",
                Label(Span(offset, offset + 1), "not UTF-8"),
                help=_HELP,
            ),
        )
