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
import random
import struct
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

SEED_BITS: Final = 256
_DOMAIN: Final = b"parlour-shuffle-v1\x00"
_TWO64: Final = 1 << 64
_FOUR_WORDS: Final = struct.Struct(">4Q")


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is usable, else raise ``ValueError`` saying why (any object may be checked)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"a seed is a whole number, not {type(seed).__name__}")
    if not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"a seed must be at least 0 and below 2**{SEED_BITS}, not {seed}")
    return seed


class Stream:
    """The random stream of one (seed, context) pair."""

    __slots__ = ("_block", "_key", "_words")

    def __init__(self, seed: object, context: str) -> None:
        number = check_seed(seed)
        self._key = hashlib.sha256(_DOMAIN + number.to_bytes(32, "big") + context.encode()).digest()
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


# _LIMITS[n]: the first word ``below(n)`` rejects, for the deck sizes the games shuffle.
_LIMITS = tuple(_TWO64 - _TWO64 % n if n else 0 for n in range(106))
_COUNTERS: Final = tuple(b.to_bytes(8, "big") for b in range(27))  # block numbers as 8 bytes, for up to 105 items


def shuffle(items: Sequence[T], seed: int, context: str) -> list[T]:
    """A new list holding ``items`` shuffled by the stream of ``(seed, context)``.

    The fast path hashes every block the shuffle needs at once and unpacks their words in one call; if
    a word is ever rejected (odds about 1 in 2**57 per word) it starts again the slow way, word by word.
    """
    out = list(items)
    n = len(out)
    if n > len(_LIMITS) - 1:
        return _shuffle_by_stream(out, seed, context)
    check_seed(seed)
    key = hashlib.sha256(_DOMAIN + seed.to_bytes(32, "big") + context.encode()).digest()
    blocks = (n + 2) // 4  # n - 1 words, four to a block
    sha256 = hashlib.sha256
    data = b"".join([sha256(key + counter).digest() for counter in _COUNTERS[:blocks]])
    words = struct.unpack(f">{4 * blocks}Q", data)
    limits = _LIMITS
    for i, w in zip(range(n - 1, 0, -1), words, strict=False):  # words may hold up to 3 spare
        if w >= limits[i + 1]:
            return _shuffle_by_stream(list(items), seed, context)
        j = w % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def _shuffle_by_stream(out: list[T], seed: int, context: str) -> list[T]:
    """The shuffle exactly as the module's docstring says it, word by word (``out`` is shuffled in place)."""
    stream = Stream(seed, context)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def shuffle_drawn(items: list[T], rng: random.Random) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does, faster for a plain ``random.Random``.

    For drawing hidden cards (``Game.draw``), never for deals. CPython's ``Random.shuffle`` swaps item
    ``i`` with item ``_randbelow(i + 1)`` for ``i`` from the end down to 1, and ``_randbelow(n)`` takes
    ``getrandbits(n.bit_length())`` until it is below ``n``; this is that loop with the calls inlined.
    Any other generator (a subclass may draw differently) gets ``rng.shuffle`` itself.
    """
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    bits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        items[i], items[j] = items[j], items[i]
