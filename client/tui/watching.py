"""Race TV's pure parts: a watched race as the spectator's events tell it, the race to follow, and how
many seats' boards fit a terminal side by side.

:class:`WatchedRace` takes in a ``spectating`` reply and the events of one race (``race_update``,
``watch``, ``progress``, ``end``) and holds each seat's state (:class:`SeatState`): its public view
once one came, its score, standing moves and ending. It only keeps what it was sent, so in a race
without live boards it holds no board until the final ones arrive. :func:`race_to_follow` picks the
race follow mode watches from a lobby page; :func:`tiling` and :func:`window` arrange the seats' tiles.
No Textual and no I/O here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from parlour.client.tui.race import clock_text
from parlour.games import GameError, get_game
from parlour.protocol.messages import End, Progress, RaceUpdate, Spectating, Watch
from parlour.protocol.text import plural, printable


@dataclass
class SeatState:
    """One seat as a spectator knows it.

    ``view`` is the seat's latest public view (``None`` until a ``watch`` or the ``spectating`` reply
    brings one) and ``seq`` the number of entries in its log at that view (-1 before any). ``moves``
    are the standing moves, known only from ``progress`` (races without live boards) and from the
    results at the end; a live board tells only its ``seq``.
    """

    seat: int
    name: str
    view: dict[str, Any] | None = None
    seq: int = -1
    score: int | float | None = None
    moves: int | None = None
    finished: bool = False
    ended: str | None = None

    def line(self) -> str:
        """``ann: score 33, 4 moves, won``; ``step 12`` (log entries) when only a live board tells the
        progress; ``playing`` until the seat's game is over."""
        score = "-" if self.score is None else str(self.score)
        if self.moves is not None:
            done = plural(self.moves, "move")
        elif self.seq >= 0:
            done = f"step {self.seq}"
        else:
            done = "0 moves"
        state = printable(self.ended) if self.ended else "finished" if self.finished else "playing"
        return f"{printable(self.name)}: score {score}, {done}, {state}"

    def saw(self, seq: int, view: Mapping[str, Any]) -> bool:
        """Take a board at ``seq``; an older one than the board held is ignored (``False``)."""
        if seq < self.seq:
            return False
        self.seq, self.view = seq, dict(view)
        self.score = view.get("score", self.score)
        if view.get("ended"):
            self.finished, self.ended = True, str(view["ended"])
        return True


@dataclass
class WatchedRace:
    """One race watched: its summary (``info``, empty until the ``spectating`` reply), every seat, and
    its ``end`` once it came (or, for a race found finished, one made from the summary's results)."""

    race_id: str
    info: dict[str, Any] = field(default_factory=dict)
    seats: dict[int, SeatState] = field(default_factory=dict)
    end: End | None = None

    @property
    def game(self) -> str:
        return str(self.info.get("game", ""))

    @property
    def title(self) -> str:
        try:
            return get_game(self.game).title
        except GameError:
            return printable(self.game) or "?"

    @property
    def status(self) -> str:
        return str(self.info.get("status", "open"))

    @property
    def live_boards(self) -> bool:
        return bool(self.info.get("live_boards", False))

    @property
    def delay(self) -> int:
        """Seconds the boards come late (only with live boards)."""
        return int(self.info.get("spectator_delay", 0)) if self.live_boards else 0

    @property
    def tournament(self) -> bool:
        return bool(self.info.get("tournament"))

    @property
    def over(self) -> bool:
        return self.end is not None or self.status in ("finished", "expired")

    def boards(self) -> list[SeatState]:
        """The seats with a board to show, in seat order."""
        return [s for _, s in sorted(self.seats.items()) if s.view is not None]

    def spectating(self, reply: Spectating) -> None:
        """Take in the reply to ``spectate`` (the first, or one after a reconnection)."""
        self.summary(reply.race)
        for board in reply.boards:
            self.seat(int(board["seat"])).saw(int(board["seq"]), board["view"])
        if self.end is None and self.status == "finished" and "results" in self.info:
            self.ended(End(race=self.race_id, results=list(self.info["results"])))

    def heard(self, event: object) -> bool:
        """Take in one of the client's events; whether it was about this race (and changed something)."""
        if isinstance(event, RaceUpdate) and event.race.get("id") == self.race_id:
            self.summary(event.race)
            return True
        if isinstance(event, Watch) and event.race == self.race_id:
            return self.seat(event.seat).saw(event.seq, event.view)
        if isinstance(event, Progress) and event.race == self.race_id:
            seat = self.seat(event.seat)
            seat.score, seat.moves, seat.finished = event.score, event.moves, event.finished
            seat.ended = event.ended or seat.ended
            return True
        if isinstance(event, End) and event.race == self.race_id:
            self.ended(event)
            return True
        return False

    def summary(self, info: Mapping[str, Any]) -> None:
        self.info = dict(info)
        for player in self.info.get("players", []):
            self.seat(int(player["seat"])).name = str(player.get("name", f"seat {player['seat']}"))

    def ended(self, end: End) -> None:
        self.end = end
        for result in end.results:
            seat = self.seat(int(result["seat"]))
            seat.score, seat.moves = result["score"], int(result["moves"])
            seat.finished, seat.ended = True, str(result["ended"])

    def seat(self, seat: int) -> SeatState:
        if seat not in self.seats:
            self.seats[seat] = SeatState(seat, f"seat {seat}")
        return self.seats[seat]

    def headline(self, time_left: float | None) -> str:
        """``Golf · race 5f0c2a9e41 · running · Time 4:05 · boards 30 s behind``: the clock while the
        race runs (``time_left`` in seconds, ``None`` to leave it out)."""
        parts = [self.title, f"race {printable(self.race_id)}"]
        if self.over:
            parts.append("over")
        else:
            parts.append(printable(self.status))
            if self.status == "running" and time_left is not None:
                parts.append(clock_text(time_left))
        if self.delay:
            parts.append(f"boards {self.delay} s behind")
        return "  ·  ".join(parts)

    def note(self) -> str:
        """Why no board shows, if none does: before the start, a race without live boards, a tournament's race."""
        if self.boards():
            return ""
        if self.tournament:
            return "A tournament's race: its boards show once the whole tournament is over."
        if self.status in ("open", "countdown"):
            return "The race has not started: the boards show from the start." if self.live_boards else ""
        if not self.live_boards and not self.over:
            return "No live boards in this race: each seat's progress shows, its board at the end."
        return ""

    def time_left(self, server_now: float) -> float | None:
        deadline = self.info.get("deadline")
        return None if deadline is None else float(deadline) - server_now


def race_to_follow(races: Iterable[Mapping[str, Any]], player: str, skip: Iterable[str] = ()) -> str | None:
    """The race follow mode watches: the most active live race, or ``None``.

    "Most active" is read from the lobby alone: among the ``running`` races this player is not
    seated in (a racer may not watch their own running race) and not in ``skip``, the one with the
    most players; among those, one with live boards (whose boards show); then the one started last;
    then the smallest id, so the choice is always the same for the same lobby.
    """
    skipped = set(skip)
    candidates = [
        r
        for r in races
        if r.get("status") == "running"
        and str(r.get("id")) not in skipped
        and not any(p.get("player") == player for p in r.get("players", []))
    ]
    if not candidates:
        return None

    def activity(r: Mapping[str, Any]) -> tuple[int, bool, float, str]:
        players, live = len(r.get("players", [])), bool(r.get("live_boards", False))
        return -players, not live, -float(r.get("started_at", 0.0)), str(r["id"])

    return str(min(candidates, key=activity)["id"])


@dataclass(frozen=True, slots=True)
class Tiling:
    """How the seats' tiles are arranged: ``columns`` side by side, ``rows`` of them; ``shown`` tiles
    at once (all the seats when they fit, else a window of them that tab moves)."""

    columns: int
    rows: int
    shown: int


def tiling(seats: int, tile: tuple[int, int], area: tuple[int, int]) -> Tiling:
    """The arrangement of ``seats`` tiles of ``tile`` (width, height) cells each in ``area`` (width,
    height): as many columns as fit the width, as many rows as fit the height, at least one of each
    (a tile taller than the area scrolls). ``shown`` is how many seats show at once."""
    if seats <= 0:
        return Tiling(1, 1, 0)
    columns = max(1, min(seats, area[0] // max(1, tile[0])))
    rows = max(1, min(-(-seats // columns), area[1] // max(1, tile[1])))
    return Tiling(columns, rows, min(seats, columns * rows))


def window(seats: list[int], first: int, shown: int) -> list[int]:
    """The ``shown`` seats from seat ``first`` on, in seat order, wrapping round to the first seats."""
    if not seats:
        return []
    start = seats.index(first) if first in seats else 0
    return [seats[(start + i) % len(seats)] for i in range(min(shown, len(seats)))]
