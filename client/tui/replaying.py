"""A finished race's replay as positions to step through: pure, no Textual, no I/O.

:func:`positions_of` reads a replay document (the ``replay_data`` map, or a file saved from it) and
rebuilds, with the rules engine from the revealed seed, every seat's player view after each entry of
its log: a move, ``["undo"]`` (the position before the move taken back) or ``["concede"]``. The views
stored nowhere else are never trusted: a replay that :func:`~parlour.protocol.replay.verify_replay`
finds a problem with is refused (:class:`ReplayRefused`, its problems listed).

A replay records no time per entry, only each seat's order of entries, so :attr:`Replay.timeline`,
all seats together, goes by entry number: every seat's first entry, then every seat's second, and so on
(seat order within a round).

A :class:`Cursor` says what is looked at: one seat's position, or a point of the timeline with all
seats side by side. The functions :func:`moved`, :func:`toggled`, :func:`other_seat` and
:func:`shown` move it and read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from parlour.games import Ending, Move, get_game
from parlour.protocol.replay import verify_replay

ENTRY_TEXTS = {"undo": "undo", "concede": "concede"}


class ReplayRefused(ValueError):
    """A replay that cannot be shown: malformed, or dishonest. ``problems`` lists why, one a line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the replay is refused: " + "; ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Position:
    """One seat's game after one entry of its log (``number`` 0: the deal, before any entry).

    ``entry`` is the log entry that led here in wire form (``None`` for the deal and for the end by
    time, after the last entry); ``text`` says it (``play p4``, ``undo``, ``concede``, ``the deal``,
    ``out of time``); ``move`` is the move it made, ``None`` for undo, concede and the rest; ``before``
    is the view it was made on (to mark the places it joined). ``moves`` counts the standing moves.
    """

    number: int
    entry: list[Any] | None
    text: str
    view: dict[str, Any]
    moves: int
    move: Move | None = None
    before: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class SeatReplay:
    """One seat: who sat there and every position of its game, the deal first. ``result`` is its
    entry of the results (``place``, ``score``, ``ended``, ``time``, ``moves``)."""

    seat: int
    name: str
    bot: bool
    positions: tuple[Position, ...]
    result: Mapping[str, Any]

    @property
    def last(self) -> int:
        """The number of the seat's final position."""
        return len(self.positions) - 1


@dataclass(frozen=True, slots=True)
class Replay:
    """A verified replay, rebuilt. ``timeline`` holds (seat index, position number) for every position
    after the deal, in the order shown all together; ``points[t]`` is each seat's position number once
    the first ``t`` of them are made (``points[0]``: every seat at its deal)."""

    race: str
    game: str
    options: Mapping[str, Any]
    seed: int
    seats: tuple[SeatReplay, ...]
    timeline: tuple[tuple[int, int], ...]
    points: tuple[tuple[int, ...], ...]

    @property
    def end(self) -> int:
        """The timeline's last point (every seat at its final position)."""
        return len(self.timeline)

    def point_of(self, seat: int, number: int) -> int:
        """The first timeline point at which seat index ``seat`` shows its position ``number``."""
        if number == 0:
            return 0
        return self.timeline.index((seat, number)) + 1


@dataclass(frozen=True, slots=True)
class Cursor:
    """What is looked at: with ``together``, the timeline point ``step`` with every seat; else seat
    index ``seat`` alone at its position number ``step``. ``seat`` is kept while together, to go back
    to it."""

    together: bool = False
    seat: int = 0
    step: int = 0


def positions_of(document: Mapping[str, Any]) -> Replay:
    """The replay ``document`` rebuilt: every seat's positions from the revealed seed and its log.

    Raises :class:`ReplayRefused` with the problems :func:`verify_replay` finds (a malformed map, a
    seed that does not match the commitment, a refused entry, a result the log does not give).
    """
    if not isinstance(document, Mapping):
        raise ReplayRefused(["a replay is a JSON object"])
    problems = verify_replay(document)
    if problems:
        raise ReplayRefused(problems)
    game = get_game(document["game"])
    options = game.resolve_options(document["options"])
    seed = int(document["seed"], 16)
    results = {r["seat"]: r for r in document["results"]}
    seats = tuple(
        SeatReplay(
            seat=int(seat["seat"]),
            name=str(seat.get("name", f"seat {seat['seat']}")),
            bot=bool(seat.get("bot", False)),
            positions=_positions(document["game"], options, seed, seat["log"]),
            result=results[seat["seat"]],
        )
        for seat in document["seats"]
    )
    timeline = tuple(
        sorted(((i, n) for i, s in enumerate(seats) for n in range(1, len(s.positions))), key=lambda p: (p[1], p[0]))
    )
    points = [tuple(0 for _ in seats)]
    for seat, number in timeline:
        now = list(points[-1])
        now[seat] = number
        points.append(tuple(now))
    return Replay(
        race=str(document.get("race", "")),
        game=game.name,
        options=options,
        seed=seed,
        seats=seats,
        timeline=timeline,
        points=tuple(points),
    )


def _positions(game_name: str, options: Mapping[str, Any], seed: int, log: list[Any]) -> tuple[Position, ...]:
    """One seat's positions: the deal, then one after each entry (undo back to the state before the
    move it takes back), then, if the game was still running, its end by time. The log was verified."""
    game = get_game(game_name)
    states = [game.deal(seed, options)]
    positions = [Position(0, None, "the deal", game.view(states[0], "player"), 0)]
    conceded = False
    for number, entry in enumerate(log, 1):
        before = positions[-1].view
        move: Move | None = None
        if entry == ["undo"]:
            states.pop()
        else:
            move = Move.from_wire(entry)
            states.append(game.apply(states[-1], move))
            conceded = entry == ["concede"]
        kind = entry[0] if entry and isinstance(entry[0], str) else ""
        text = ENTRY_TEXTS.get(kind) or (move.text() if move else str(entry))
        shown = None if kind in ENTRY_TEXTS else move
        standing = len(states) - 1 - conceded
        positions.append(Position(number, list(entry), text, game.view(states[-1], "player"), standing, shown, before))
    if states[-1].ended is None:
        ended = game.end(states[-1], Ending.OUT_OF_TIME)
        last = positions[-1]
        positions.append(Position(len(positions), None, "out of time", game.view(ended, "player"), last.moves))
    return tuple(positions)


def last_step(replay: Replay, cursor: Cursor) -> int:
    """The last step the cursor can reach: the timeline's end together, else the seat's final position."""
    return replay.end if cursor.together else replay.seats[cursor.seat].last


def moved(replay: Replay, cursor: Cursor, steps: int) -> Cursor:
    """``steps`` forward (back if negative), stopping at the first and the last position."""
    return replace(cursor, step=max(0, min(last_step(replay, cursor), cursor.step + steps)))


def at_end(replay: Replay, cursor: Cursor) -> bool:
    """Whether the cursor is at its last position (nothing left to play)."""
    return cursor.step >= last_step(replay, cursor)


def toggled(replay: Replay, cursor: Cursor) -> Cursor:
    """Between one seat and all seats together, keeping the moment: together, the first point where the
    seat shows its position; alone, the seat's position at the point."""
    if cursor.together:
        return Cursor(False, cursor.seat, replay.points[cursor.step][cursor.seat])
    return Cursor(True, cursor.seat, replay.point_of(cursor.seat, cursor.step))


def other_seat(replay: Replay, cursor: Cursor, by: int) -> Cursor:
    """The next seat (``by`` 1) or the previous one (-1), round, at the same moment: alone, the new seat's
    position at the timeline point of the old one's. Together, it only changes which seat is kept."""
    seat = (cursor.seat + by) % len(replay.seats)
    if cursor.together:
        return replace(cursor, seat=seat)
    point = replay.point_of(cursor.seat, cursor.step)
    return Cursor(False, seat, replay.points[point][seat])


def shown(replay: Replay, cursor: Cursor) -> list[tuple[SeatReplay, Position]]:
    """The seats on screen and their positions: one seat alone, or every seat at the timeline point."""
    if not cursor.together:
        seat = replay.seats[cursor.seat]
        return [(seat, seat.positions[cursor.step])]
    return [(seat, seat.positions[n]) for seat, n in zip(replay.seats, replay.points[cursor.step], strict=True)]


def just_made(replay: Replay, cursor: Cursor) -> tuple[SeatReplay, Position] | None:
    """The seat and the position of the entry made last at the cursor (``None`` at the start)."""
    if cursor.step == 0:
        return None
    if cursor.together:
        seat, number = replay.timeline[cursor.step - 1]
        return replay.seats[seat], replay.seats[seat].positions[number]
    seat_replay = replay.seats[cursor.seat]
    return seat_replay, seat_replay.positions[cursor.step]


def ending_text(seat: SeatReplay) -> str:
    """The seat's result: ``1st place: score 33, conceded, 3 moves, 20.0 s``."""
    r = seat.result
    place = int(r["place"])
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    moves = int(r["moves"])
    return (
        f"{place}{suffix} place: score {r['score']}, {str(r['ended']).replace('_', ' ')}, "
        f"{moves} move{'' if moves == 1 else 's'}, {r['time']} s"
    )
