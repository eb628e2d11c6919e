"""Names and printing: what a name may hold, and printing any server text without escapes."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from parlour.protocol.text import REFUSED_CATEGORIES, name_problem, plural, printable

TERMINAL_TRICKS = ["\x1b[2J", "\x07", "\x00", "\u202e", "\u2066", "\u200b", "\u2028", "\u2029", "\ue000", "\r", "\n"]


def test_names_with_terminal_escapes_or_format_characters_are_refused() -> None:
    for trick in TERMINAL_TRICKS:
        assert name_problem(f"ada{trick}x") is not None, repr(trick)
    for blank in ["", " ", "\u3000", " ada", "ada ", "\tada"]:
        assert name_problem(blank) is not None, repr(blank)
    for fine in ["ada", "Zoë", "张伟", "ada lovelace", "bot-7 🂡", "O'Brien"]:
        assert name_problem(fine) is None, fine


def test_printable_writes_control_and_format_characters_as_visible_escapes() -> None:
    assert printable("\x1b[31mred\x07") == "\\x1b[31mred\\x07"
    assert printable("evil\u202etxt.exe") == "evil\\u202etxt.exe"
    assert printable("a\u2028b\x00") == "a\\u2028b\\x00"
    assert printable("\U000f0000") == "\\U000f0000"  # private use, beyond the BMP
    assert printable("Zoë ada 🂡") == "Zoë ada 🂡"  # everything else is kept as it is


@given(st.text())
def test_printable_leaves_no_refused_character_and_keeps_clean_text(text: str) -> None:
    shown = printable(text)
    assert not any(unicodedata.category(char) in REFUSED_CATEGORIES for char in shown)
    if not any(unicodedata.category(char) in REFUSED_CATEGORIES for char in text):
        assert shown == text


@given(st.text(min_size=1, max_size=32))
def test_every_accepted_name_prints_unchanged(name: str) -> None:
    if name_problem(name) is None:
        assert printable(name) == name and name == name.strip()


def test_plural_counts_in_words() -> None:
    assert [plural(n, "race") for n in (0, 1, 2)] == ["0 races", "1 race", "2 races"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"
