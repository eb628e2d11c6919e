"""The seeded shuffle: SHA-256 in counter mode feeding a Fisher-Yates shuffle.

Every deal and every later random event (the Gaps redeal) comes from this module, so
a client in any language can rebuild a deal from its seed. It does not use Python's
``random``. The algorithm, exactly:

1. ``seed`` is an integer with ``0 <= seed < 2**256``; all of its bits count.
   ``context`` is a short ASCII string naming the event (``"deal"``, ``"gaps-redeal-1"``).
2. ``key = SHA-256(b"parlour-shuffle-v1" || 0x00 || seed as 32 bytes big-endian ||
   context as UTF-8)``.
3. The stream is ``SHA-256(key || i as 8 bytes big-endian)`` for ``i = 0, 1, 2, ...``;
   each 32-byte block gives four 64-bit words, read big-endian, in order.
4. ``below(n)``: take the next word ``w``; if ``w >= 2**64 - (2**64 mod n)`` discard it
   and take another; return ``w mod n``. (Rejection keeps every value equally likely.)
5. ``shuffle(items)``: copy the list; for ``i`` from ``len - 1`` down to ``1``, swap
   item ``i`` with item ``below(i + 1)``.

A game's deal shuffles its deck in ascending card order (see :mod:`parlour.games.cards`)
with context ``"deal"``; the pinned vectors in ``tests/games/test_shuffle.py`` let
another implementation check itself.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BITS = 256
_DOMAIN = b"parlour-shuffle-v1\x00"
_TWO64 = 1 << 64
_FOUR_WORDS = struct.Struct(">4Q")


def check_seed(seed: int) -> int:
    """Return ``seed`` if it is usable, else raise ``ValueError`` saying why."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"a seed is a whole number, not {type(seed).__name__}")
    if not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"a seed must be at least 0 and below 2**{SEED_BITS}, not {seed}")
    return seed


class Stream:
    """The random stream of one (seed, context) pair."""

    __slots__ = ("_block", "_key", "_words")

    def __init__(self, seed: int, context: str) -> None:
        check_seed(seed)
        self._key = hashlib.sha256(_DOMAIN + seed.to_bytes(32, "big") + context.encode()).digest()
        self._block = 0
        self._words: list[int] = []

    def word(self) -> int:
        """The next 64-bit word."""
        if not self._words:
            block = hashlib.sha256(self._key + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            self._words = list(_FOUR_WORDS.unpack(block))[::-1]  # popped from the end: first word first
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniformly drawn integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        limit = _TWO64 - _TWO64 % n
        while True:
            w = self.word()
            if w < limit:
                return w % n


def shuffle(items: Sequence[T], seed: int, context: str) -> list[T]:
    """A new list holding ``items`` shuffled by the stream of ``(seed, context)``."""
    out = list(items)
    stream = Stream(seed, context)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
