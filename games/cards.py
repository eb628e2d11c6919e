"""Cards: small ints with a two-character text form.

A card is an ``int``: ``deck * 52 + suit * 13 + (rank - 1)``, with suits in the order
clubs, diamonds, hearts, spades (``C D H S``, indices 0 to 3) and ranks 1 (ace) to 13
(king). Single-deck games only use deck 0; two-deck games (German Patience) also use
deck 1, whose cards keep the same text form.

The text form is rank then suit: ``A 2 3 4 5 6 7 8 9 T J Q K`` and ``C D H S``, so
``TD`` is the ten of diamonds. :func:`parse_card` also accepts lower case and ``10``
for ``T``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from parlour.games.errors import BadLayout

Card = int

RANK_CHARS: Final = "A23456789TJQK"
SUIT_CHARS: Final = "CDHS"
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

_MAX_CARDS: Final = 104
RANK: Final[tuple[int, ...]] = tuple(c % 13 + 1 for c in range(_MAX_CARDS))
SUIT: Final[tuple[int, ...]] = tuple((c // 13) % 4 for c in range(_MAX_CARDS))
RED: Final[tuple[bool, ...]] = tuple(SUIT[c] in (DIAMONDS, HEARTS) for c in range(_MAX_CARDS))
TEXT: Final[tuple[str, ...]] = tuple(RANK_CHARS[RANK[c] - 1] + SUIT_CHARS[SUIT[c]] for c in range(_MAX_CARDS))
_BY_TEXT: Final = {TEXT[c]: c for c in range(52)}


def make_card(rank: int, suit: int, deck: int = 0) -> Card:
    """The card of ``rank`` (1-13) and ``suit`` (0-3) from ``deck`` (0 or 1)."""
    if not (1 <= rank <= 13 and 0 <= suit <= 3 and deck in (0, 1)):
        raise ValueError(f"no such card: rank {rank}, suit {suit}, deck {deck}")
    return deck * 52 + suit * 13 + rank - 1


def rank(card: Card) -> int:
    return RANK[card]


def suit(card: Card) -> int:
    return SUIT[card]


def deck_of(card: Card) -> int:
    return card // 52


def is_red(card: Card) -> bool:
    return RED[card]


def card_text(card: Card) -> str:
    """The two-character text form, e.g. ``TD``."""
    return TEXT[card]


def cards_text(cards: Iterable[Card]) -> str:
    """Cards joined by single spaces."""
    return " ".join(TEXT[c] for c in cards)


def card_count(count: int) -> str:
    """``1 card``, ``2 cards``, ``0 cards``: a count of cards as a board shows it."""
    return f"{count} card" if count == 1 else f"{count} cards"


def parse_card(text: str) -> Card:
    """The deck-0 card written as ``text``; raises :class:`BadLayout` if it is no card."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    try:
        return _BY_TEXT[t]
    except KeyError:
        raise BadLayout(f"not a card: {text!r} (write rank then suit, like TD or AS)") from None


def parse_cards(tokens: Iterable[str], seen: dict[Card, int] | None = None, decks: int = 1) -> list[Card]:
    """Parse card texts, giving each repeat of a text the next deck.

    ``seen`` counts the copies of each deck-0 card read so far; pass the same dict to
    every call for one layout so that a second ``TD`` becomes deck 1's ten of diamonds.
    More copies than ``decks`` raise :class:`BadLayout`.
    """
    counts = {} if seen is None else seen
    out: list[Card] = []
    for token in tokens:
        base = parse_card(token)
        n = counts.get(base, 0)
        if n >= decks:
            raise BadLayout(f"card {TEXT[base]} appears more than {decks} time(s)")
        counts[base] = n + 1
        out.append(base + 52 * n)
    return out


def standard_deck(decks: int = 1, ranks: Sequence[int] = range(1, 14)) -> list[Card]:
    """Every card of ``decks`` decks limited to ``ranks``, in ascending card order."""
    return [d * 52 + s * 13 + r - 1 for d in range(decks) for s in range(4) for r in ranks]
