"""The seeded shuffle: pinned vectors another implementation can check itself against."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games import game_names, get_game
from parlour.games import shuffle as shuffle_module
from parlour.games.cards import cards_text, standard_deck
from parlour.games.shuffle import Stream, shuffle

# seed -> the standard 52-card deck (ascending card order) shuffled with context "deal".
VECTORS = {
    0: "JC 9S TS JH KS 9C JS 9D 4C QD KH 7D 8C 6C TC KD KC 9H AC 5H 2D TH 5C 3C QS 8D "
    "AS 5D QH 2H 8S 6S QC 8H 2C 6D 6H JD 2S 7C 3S 4H 7H 4D AH 7S TD 4S 5S 3D 3H AD",
    1: "QH AS 2S 8C KH TD 6D 8H JS QC 7H 5D JD 3S QS 6S 4H AD QD 2H 2C 9C KC 4C 6H 3H "
    "7C KD 5H 4D 8S AH 8D 9S 3D TH 6C KS JH JC AC 7S 7D 9H 5S TS 2D 4S 9D 3C TC 5C",
    2**128 - 1: "3D 5H AC KH 6S TH JC 7H 9D 5C 2H TS 7S 3C AD 2C 4C 8H 4H 4S KC JH 9S TC 2D QC "
    "5D 5S 2S 6D AH JD 9C TD AS QS KS 9H QD 3S 8D 4D QH 6H 3H 7C 7D 8C KD 6C JS 8S",
    2**256 - 1: "3C 3D JS 3S 5H 6S 4D TH KC 2S 9D 9C AD 3H TC 8D 2D 7D 7S QD 9S QH JC 2H AH JH "
    "4S 6C 8C 9H KS 8S AC 8H AS 7H 6H 5C TS KH 2C 4C TD KD 7C 6D 5S QC 4H QS 5D JD",
}


@pytest.mark.parametrize("seed", sorted(VECTORS))
def test_pinned_deal_vectors(seed: int) -> None:
    assert cards_text(shuffle(standard_deck(), seed, "deal")) == VECTORS[seed]


def test_stream_words_follow_the_documented_construction() -> None:
    key = hashlib.sha256(b"parlour-shuffle-v1\x00" + (0).to_bytes(32, "big") + b"deal").digest()
    blocks = hashlib.sha256(key + (0).to_bytes(8, "big")).digest()
    blocks += hashlib.sha256(key + (1).to_bytes(8, "big")).digest()
    expected = [int.from_bytes(blocks[i : i + 8], "big") for i in range(0, 40, 8)]
    stream = Stream(0, "deal")
    assert [stream.word() for _ in range(5)] == expected
    assert expected[0] == 0xCA7B8A9B433C42F5


def test_every_bit_of_a_128_bit_seed_counts() -> None:
    base = 0x5EED_0000_0000_0000_0000_0000_0000_0001
    deals = {cards_text(shuffle(standard_deck(), base ^ (1 << bit), "deal")) for bit in range(128)}
    assert len(deals) == 128
    assert cards_text(shuffle(standard_deck(), base, "deal")) not in deals


def test_context_separates_streams() -> None:
    assert shuffle(standard_deck(), 7, "deal") != shuffle(standard_deck(), 7, "gaps-redeal-1")


@pytest.mark.parametrize("bad", [-1, 2**256, 1.5, "7", True])
def test_bad_seeds_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        Stream(bad, "deal")  # type: ignore[arg-type]


@given(seed=st.integers(min_value=0, max_value=2**256 - 1), n=st.integers(min_value=0, max_value=104))
def test_shuffle_is_a_pure_permutation(seed: int, n: int) -> None:
    items = list(range(n))
    once = shuffle(items, seed, "deal")
    assert sorted(once) == items
    assert shuffle(items, seed, "deal") == once


def test_below_is_uniform_enough() -> None:
    stream = Stream(3, "uniformity")
    counts = [0] * 7
    for _ in range(7000):
        counts[stream.below(7)] += 1
    assert all(900 < c < 1100 for c in counts)


@pytest.mark.parametrize("name", game_names())
def test_ruling_no_deal_uses_pythons_random(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game(name)
    dealt = {seed: game.to_text(game.deal(seed)) for seed in (0, 1)}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the deal used Python's random module")

    for attr in ("random", "shuffle", "randrange", "randint", "choice", "sample", "seed", "getrandbits", "Random"):
        monkeypatch.setattr(random, attr, refuse)
    for seed in (0, 1):
        assert game.to_text(game.deal(seed)) == dealt[seed]


@settings(deadline=None)
@given(n=st.integers(0, 120), seed=st.integers(0, 2**256 - 1), context=st.sampled_from(["deal", "gaps-redeal-1"]))
def test_the_fast_shuffle_is_the_shuffle_word_by_word(n: int, seed: int, context: str) -> None:
    by_stream = shuffle_module._shuffle_by_stream(list(range(n)), seed, context)
    assert shuffle(range(n), seed, context) == by_stream


def test_a_rejected_word_makes_the_fast_shuffle_start_again_word_by_word(monkeypatch: pytest.MonkeyPatch) -> None:
    want = shuffle(range(52), 5, "deal")
    # Reject every word on the fast path: it must hand over to the word-by-word shuffle and agree.
    monkeypatch.setattr(shuffle_module, "_LIMITS", (0,) * len(shuffle_module._LIMITS))
    assert shuffle(range(52), 5, "deal") == want


@settings(deadline=None)  # a loaded machine must not fail it
@given(n=st.integers(0, 110), seed=st.integers(0, 2**64))
def test_shuffle_drawn_is_randoms_shuffle(n: int, seed: int) -> None:
    want, got = list(range(n)), list(range(n))
    a, b = random.Random(seed), random.Random(seed)
    a.shuffle(want)
    shuffle_module.shuffle_drawn(got, b)
    assert got == want
    assert a.getrandbits(64) == b.getrandbits(64), "the generator is left where shuffle leaves it"


def test_shuffle_drawn_leaves_other_generators_their_own_shuffle() -> None:
    class Reversing(random.Random):
        def shuffle(self, x: list[object]) -> None:  # type: ignore[override]
            x.reverse()

    items = [1, 2, 3]
    shuffle_module.shuffle_drawn(items, Reversing(1))
    assert items == [3, 2, 1]
