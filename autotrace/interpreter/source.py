"""Script source: decoding, line tables, character columns and source segments.

``ast`` reports ``col_offset`` in UTF-8 bytes; everything autotrace shows uses
characters, so :class:`SourceMap` converts. Lines are split the way Python's tokenizer
does (``\\n``, ``\\r\\n``, ``\\r``), not with ``str.splitlines``.
"""

from __future__ import annotations

from ..site import Site

#: scripts larger than this (characters) are refused before parsing
MAX_SOURCE_CHARS = 1_000_000


class SourceMap:
    """Lines of a script and conversions from ``ast`` positions to text."""

    def __init__(self, source: str):
        self.source = source
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.ascii = [line.isascii() for line in self.lines]

    def line(self, lineno: int) -> str:
        if 1 <= lineno <= len(self.lines):
            return self.lines[lineno - 1]
        return ""

    def char_col(self, lineno: int, byte_col: int) -> int:
        """0-based character column of an ``ast`` byte offset on line ``lineno``."""
        if 1 <= lineno <= len(self.lines):
            if self.ascii[lineno - 1]:
                return byte_col
            return len(self.lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        return byte_col

    def segment(self, l1: int, c1: int, l2: int, c2: int) -> str:
        """Source text from (l1, c1) to (l2, c2); character columns, 0-based."""
        if l1 == l2:
            return self.line(l1)[c1:c2]
        parts = [self.line(l1)[c1:]]
        for n in range(l1 + 1, l2):
            parts.append(self.line(n))
        parts.append(self.line(l2)[:c2])
        return "\n".join(parts)

    def span(self, node) -> tuple[int, int, int, int]:
        """(line, col, end_line, end_col) of ``node`` with character columns."""
        line = getattr(node, "lineno", None) or 1
        col = self.char_col(line, getattr(node, "col_offset", 0) or 0)
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None)
        end_col = self.char_col(end_line, end_col) if end_col is not None else col
        return line, col, end_line, end_col

    def site(self, node, statement: str) -> Site:
        line, col, end_line, end_col = self.span(node)
        return Site(line, col, end_line, end_col, self.segment(line, col, end_line, end_col), statement)


def decode_source(source: str | bytes) -> tuple[str | None, tuple[str, str, int | None, int | None] | None]:
    """Turn the caller's source into text.

    Returns ``(text, None)`` or ``(None, (type, message, line, column))`` for input that
    is not a script: NUL bytes (binary files) and invalid UTF-8 ("SyntaxError"), too
    large ("LimitError").
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        if len(raw) > MAX_SOURCE_CHARS * 4:
            return None, ("LimitError", f"script is too large ({len(raw)} bytes; at most {MAX_SOURCE_CHARS} characters are accepted)", None, None)
        if b"\x00" in raw:
            line = raw[: raw.index(b"\x00")].count(b"\n") + 1
            return None, ("SyntaxError", "script contains NUL bytes (is it a binary file?)", line, None)
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw[: e.start].count(b"\n") + 1
            col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
            return None, ("SyntaxError", f"script is not valid UTF-8 text (invalid byte 0x{raw[e.start]:02x})", line, col)
    elif isinstance(source, str):
        text = source
        if text.startswith("\ufeff"):
            text = text[1:]
        if "\x00" in text:
            line = text[: text.index("\x00")].count("\n") + 1
            return None, ("SyntaxError", "script contains NUL bytes (is it a binary file?)", line, None)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            line = text[: e.start].count("\n") + 1
            return None, ("SyntaxError", "script is not valid Unicode text (lone surrogate)", line, None)
    else:
        raise TypeError(f"source must be str or bytes, not {type(source).__name__}")
    if len(text) > MAX_SOURCE_CHARS:
        return None, ("LimitError", f"script is too large ({len(text)} characters; at most {MAX_SOURCE_CHARS} are accepted)", None, None)
    return text, None
