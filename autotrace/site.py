"""Where in the script the engine is: the interpreter sets it, node creation reads it.

``current`` is the :class:`Site` of the expression being evaluated (or None outside a
script). The engine copies it onto every graph node it creates, so explanations and
graphs can quote the script's own source (``y = x * 3``, line 3).
"""

from __future__ import annotations


class Site:
    """A span of script source: 1-based ``line``, 0-based ``col`` (as Python's ast),
    ``text`` the expression's source, ``statement`` the whole statement's source."""

    __slots__ = ("line", "col", "end_line", "end_col", "text", "statement")

    def __init__(self, line: int, col: int, end_line: int, end_col: int, text: str, statement: str):
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        self.text = text
        self.statement = statement

    def __eq__(self, other):
        # equal spans of one script's source (a record's fields: autotrace.folding compares sites)
        if other.__class__ is not Site:
            return NotImplemented
        return (self.line, self.col, self.text, self.statement) == (other.line, other.col, other.text, other.statement)

    def __hash__(self):
        return hash((self.line, self.col, self.text))

    def __repr__(self) -> str:
        return f"Site(line={self.line}, col={self.col}, text={self.text!r})"


current: Site | None = None
