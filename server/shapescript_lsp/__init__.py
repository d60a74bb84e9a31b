"""The ShapeScript language server (pygls). Only this package imports pygls and lsprotocol."""

from __future__ import annotations
