"""Free text that people see: which names the server accepts, and how to print any text safely.

A display name is shown in other people's terminals, so it may hold no character that
a terminal acts on or that changes how text around it reads: no character of the
Unicode categories Cc (controls: ESC, BEL, NUL, newline, ...), Cf (format: bidi
overrides, zero-width joiners, ...), Co (private use), Cs (surrogates), Zl and Zp (line
and paragraph separators); no leading or trailing whitespace; and not empty.

Text from a server (names stored before this rule, error messages, anything a peer
wrote) is printed through :func:`printable`, which writes those characters as visible
escapes instead.
"""

from __future__ import annotations

import unicodedata

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a display name (a sentence for people), or ``None`` if it can."""
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            return f"a name may not hold the character U+{ord(char):04X} (a control or format character)"
    if not name.strip():
        return "a name needs at least one visible character"
    if name != name.strip():
        return "a name may not start or end with a space"
    return None


def plural(count: int | float, word: str, words: str | None = None) -> str:
    """``1 race``, ``2 races``, ``0 races`` (``words`` for a plural not made with an s)."""
    return f"{count} {word}" if count == 1 else f"{count} {words or word + 's'}"


def printable(text: str) -> str:
    """``text`` with every control, format, private-use, surrogate and line/paragraph
    separator character written as a visible escape (``\\x1b``, ``\\u202e``), so printing
    it cannot act on a terminal. Other characters, spaces included, are kept."""
    if all(unicodedata.category(char) not in REFUSED_CATEGORIES for char in text):
        return text
    return "".join(_escape(char) if unicodedata.category(char) in REFUSED_CATEGORIES else char for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


__all__ = ["REFUSED_CATEGORIES", "name_problem", "printable"]
