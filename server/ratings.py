"""Ratings: OpenSkill's Plackett-Luce model, one rating per player per game. Pure: no I/O.

A rating moves once per finished rated race, from the race's ranking with ties: racers
whose results are equal by the ranking rule (:func:`parlour.protocol.replay.ranked_results`:
score, concession, time, moves) share a place. The races of an untimed tournament rank as its
matchpoints do, by the score alone (then a game played out before a conceded one): neither the
finish time nor the number of moves counts, so their ratings measure play, not speed, and
follow from the moves alone. Replaying the same races in the same order from fresh ratings gives the same
numbers, so stored ratings can always be recomputed from the stored results.

Leaderboards order by the *ordinal* ``mu - 3 * sigma``: a conservative estimate that rises
as a player's results become surer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    """One player's rating at one game, and how many rated races made it."""

    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    races: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_map(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "races": self.races}

    @classmethod
    def from_map(cls, data: Mapping[str, Any]) -> Rating:
        return cls(float(data["mu"]), float(data["sigma"]), int(data["races"]))


def places_with_ties(
    results: Sequence[Mapping[str, Any]], higher_is_better: bool, timed: bool = True
) -> dict[str, int]:
    """Each player's place (1 best) in a race's ``results`` (each with ``player``, ``score``,
    ``ended``, and when ``timed`` ``time`` and ``moves``); equal results share the better place.
    ``timed``: the race ranking (score, a game played out before a conceded one, time, moves).
    Not ``timed`` (an untimed tournament's race): the score and concession alone."""
    sign = -1 if higher_is_better else 1
    keys = {
        r["player"]: (sign * r["score"], r["ended"] == "conceded", r["time"], r["moves"])
        if timed
        else (sign * r["score"], r["ended"] == "conceded", 0.0, 0)
        for r in results
    }
    return {player: 1 + sum(other < key for other in keys.values()) for player, key in keys.items()}


def rate(ratings: Mapping[str, Rating], places: Mapping[str, int]) -> dict[str, Rating]:
    """The new ratings of the players in ``places`` (player -> place, 1 best, equal places
    tie) after one race; a player missing from ``ratings`` starts from the default."""
    players = sorted(places, key=lambda p: (places[p], p))
    if len(players) < 2:
        return {p: ratings.get(p, Rating()) for p in players}
    before = [ratings.get(p, Rating()) for p in players]
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = _MODEL.rate(teams, ranks=[float(places[p]) for p in players])
    return {
        p: Rating(team[0].mu, team[0].sigma, old.races + 1) for p, old, team in zip(players, before, after, strict=True)
    }


def replay(races: Iterable[Mapping[str, int]]) -> dict[str, Rating]:
    """The ratings that the races (each as player -> place, in the order they finished) give
    from fresh ratings."""
    ratings: dict[str, Rating] = {}
    for places in races:
        ratings.update(rate(ratings, places))
    return ratings


def leaderboard(ratings: Mapping[str, Rating]) -> list[tuple[str, Rating]]:
    """Players best first: by ordinal, then more races, then player id."""
    return sorted(ratings.items(), key=lambda item: (-item[1].ordinal, -item[1].races, item[0]))


__all__ = ["Rating", "leaderboard", "places_with_ties", "rate", "replay"]
