"""A race on a server, as a table the game screen plays at, through the client library.

:class:`RaceTable` is the second :class:`~parlour.client.tui.practice.Table`: its view comes from the
server's ``start`` and each ``ack``, a move the server refuses raises :class:`Refused` (with the
server's code and reason) and changes nothing, and undo is sent only in a race that allows it.
The other seats are known only by their ``progress`` events (:class:`Opponent`), and the race's
end by its ``end`` event. :func:`open_race` creates a race, invites a bot and waits for the start.

The pure parts (:class:`Opponent`, :func:`opponents_from`, :func:`progressed`, :func:`clock_text`,
:func:`results_text`, :func:`seed_check`, :func:`par`) read messages and return values; the table's
methods do the I/O.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from parlour.bots.base import Turn
from parlour.bots.ceiling import ceiling, ceiling_exact
from parlour.bots.greedy import GreedyBot
from parlour.client.connection import Client, ClientError, Disconnected, End, Progress, Start
from parlour.client.line_play import describe_error
from parlour.client.line_race import server_offset
from parlour.games import Game, GameError, IllegalMove, Move, Score, get_game
from parlour.protocol.replay import commitment
from parlour.protocol.text import plural, printable


class Refused(GameError):
    """The server refused a request: its ``code`` and its ``message``, shown as the server words them."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(describe_error(code, message))
        self.code = code
        self.message = message


def refusal(error: ClientError) -> GameError:
    """The :class:`GameError` for a refused move: an :class:`IllegalMove` for ``illegal_move`` (worded
    as the local engine's), else :class:`Refused`."""
    if error.code == "illegal_move":
        return IllegalMove(error.message)
    return Refused(str(error.code), error.message)


def trouble(error: ClientError | Disconnected) -> str:
    """What went wrong with a request, for the message line."""
    if isinstance(error, ClientError):
        return f"The server refused: {printable(error.message)}"
    return f"The connection is lost: {error}"


@dataclass(frozen=True, slots=True)
class Opponent:
    """Another seat, as its ``progress`` events tell it: score, standing moves, finished and why."""

    seat: int
    name: str
    score: int | float | None = None
    moves: int = 0
    finished: bool = False
    ended: str | None = None

    def line(self) -> str:
        """``bob: score 33, 4 moves, won`` (``playing`` until finished)."""
        score = "-" if self.score is None else str(self.score)
        state = printable(self.ended) if self.ended else "finished" if self.finished else "playing"
        return f"{printable(self.name)}: score {score}, {plural(self.moves, 'move')}, {state}"


def opponents_from(race: dict[str, Any], seat: int) -> dict[int, Opponent]:
    """Every other seat of a race summary (its ``players``), none of them started."""
    return {
        int(p["seat"]): Opponent(int(p["seat"]), str(p.get("name", f"seat {p['seat']}")))
        for p in race.get("players", [])
        if int(p["seat"]) != seat
    }


def progressed(opponents: dict[int, Opponent], event: Progress, seat: int) -> dict[int, Opponent]:
    """The opponents after ``event`` (one about this player's own seat changes nothing here)."""
    if event.seat == seat:
        return opponents
    known = opponents.get(event.seat, Opponent(event.seat, f"seat {event.seat}"))
    changed = replace(known, score=event.score, moves=event.moves, finished=event.finished, ended=event.ended)
    return {**opponents, event.seat: changed}


def clock_text(seconds: float) -> str:
    """``Time 4:05`` for 245 seconds left (``0:00`` once past)."""
    whole = max(0, int(seconds + 0.999))
    return f"Time {whole // 60}:{whole % 60:02d}"


def results_text(end: End) -> list[str]:
    """The ranking, one line a seat, best first."""
    return [
        f"{r['place']}. {printable(str(r['name']))}: score {r['score']} "
        f"({printable(str(r['ended']))}, {plural(int(r['moves']), 'move')}, {r['time']} s)"
        for r in end.results
    ]


def seed_check(end: End, published: str) -> str:
    """Whether the seed and salt the race's end reveals match the commitment published at the start: the
    deal was fixed before anyone moved."""
    try:
        honest = bool(published) and commitment(int(end.seed, 16), bytes.fromhex(end.salt)) == published
    except ValueError:
        honest = False
    seed = f"Seed {printable(end.seed)}"
    if honest:
        return f"{seed}: it matches the commitment published at the start, so the deal was fixed before it."
    return f"{seed}: it does NOT match the commitment published at the start ({printable(published) or 'none'})."


def par(game: Game[Any], seed: str, options: dict[str, Any]) -> Score | None:
    """The best score a player who saw every card could reach on the race's deal, where the game has an exact
    solver (else ``None``). Slow for some deals: call it in a thread."""
    if not ceiling_exact(game):
        return None
    return ceiling(game, game.deal(int(seed, 16), options))


class RaceTable:
    """This player's seat in a running race, played through ``client``."""

    def __init__(self, client: Client, race: dict[str, Any], start: Start, offset: float = 0.0) -> None:
        self.client = client
        self.race_id = str(race["id"])
        self.game: Game[Any] = get_game(str(race["game"]))
        self.origin = f"race {self.race_id}"
        self.seat = start.seat
        self.commitment = start.commitment  # to the secret seed, published at the start
        self.deadline = start.deadline
        self.offset = offset  # the server's clock minus this machine's
        self.allows_undo = bool(race.get("undo", False))
        self.opponents = opponents_from(race, start.seat)
        self.end: End | None = None
        self._seq = start.seq
        self._view = dict(start.view)
        self._moves = 0

    @property
    def view(self) -> dict[str, Any]:
        return self._view

    @property
    def moves_made(self) -> int:
        return self._moves

    def time_left(self) -> float:
        return self.deadline - (time.time() + self.offset)

    async def play(self, move: Move) -> dict[str, Any]:
        try:
            ack = await self.client.move(self.race_id, self._seq, move.wire())
        except ClientError as error:
            if error.code == "stale_seq":  # another connection of this player moved: catch up
                await self.resync()
            raise refusal(error) from None
        except Disconnected as error:
            raise Refused("disconnected", str(error)) from None
        self._took(ack.seq, ack.view, +1)
        return self._view

    async def undo(self) -> dict[str, Any]:
        if not self.allows_undo:
            raise Refused("forbidden", "this race was created without undo")
        if self._moves == 0:
            raise IllegalMove("there is no move to undo")
        try:
            ack = await self.client.undo(self.race_id, self._seq)
        except ClientError as error:
            raise refusal(error) from None
        except Disconnected as error:
            raise Refused("disconnected", str(error)) from None
        self._took(ack.seq, ack.view, -1)
        return self._view

    async def concede(self) -> dict[str, Any]:
        try:
            ack = await self.client.concede(self.race_id)
        except ClientError as error:
            raise refusal(error) from None
        except Disconnected as error:
            raise Refused("disconnected", str(error)) from None
        self._seq, self._view = ack.seq, dict(ack.view)
        return self._view

    async def resync(self) -> None:
        """Take the seat's ``seq`` and view from a snapshot (after a reconnection, or a ``stale_seq``)."""
        snapshot = await self.client.snapshot(self.race_id)
        if snapshot.view is not None:
            self._seq, self._view = snapshot.seq, dict(snapshot.view)

    def hint(self) -> Move | None:
        if not self._view.get("moves"):
            return None
        return GreedyBot(0).choose(Turn.of(self._view, self._moves))

    def heard(self, event: object) -> bool:
        """Take in an event of the client's; whether it was about this race."""
        if isinstance(event, Progress) and event.race == self.race_id:
            self.opponents = progressed(self.opponents, event, self.seat)
            return True
        if isinstance(event, End) and event.race == self.race_id:
            self.end = event
            return True
        return False

    def _took(self, seq: int, view: dict[str, Any], step: int) -> None:
        self._seq, self._view = seq, dict(view)
        self._moves = max(0, self._moves + step)


async def open_race(
    client: Client, game: str, bot: str, *, time_limit: int = 600, undo: bool = False, timeout: float = 60.0
) -> RaceTable:
    """Create a race of ``game`` for this player and the bot named ``bot``, say ready, invite the bot,
    and return the table once the race starts."""
    info = (await client.create(game, seats=2, time_limit=time_limit, undo=undo)).race
    race_id = str(info["id"])
    await client.ready(race_id)
    await client.invite(race_id, bot)
    offset = await server_offset(client)
    start = await client.next_event(Start, race=race_id, timeout=timeout)
    summary = (await client.snapshot(race_id)).race  # with the bot's seat and name
    return RaceTable(client, summary, start, offset)
