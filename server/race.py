"""A race: its settings, seats and per-seat games, as plain in-memory logic (no I/O).

Every seat plays its own copy of the same deal. A seat's game is rebuilt from its log,
an append-only list of entries in wire form: moves, ``["concede"]`` and, where the race
allows undo, ``["undo"]`` (which takes back the last move). A seat's ``seq`` is the
number of entries in its log: a request that changes the game names the ``seq`` it
expects to become entry number ``seq``.

The seed is drawn from :mod:`secrets` when the race starts and stays secret until it
ends; the commitment published at the start is ``SHA-256(salt || seed as 32 bytes
big-endian)`` in hex, with a 16-byte random salt.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from parlour.games import CONCEDE, Ending, Game, GameError, IllegalMove, Move, get_game, score_wire
from parlour.protocol import ErrorCode, ProtocolError
from parlour.protocol.replay import commitment, ranked_results
from parlour.protocol.text import plural

SEED_BITS = 128
# Join codes: Crockford's base32 alphabet (no I, L, O, U), 12 characters: 60 bits.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 12
_CODE_BITS = 5  # a character of the 32 of CODE_ALPHABET
_CODE_MASK = (1 << _CODE_BITS) - 1
assert len(CODE_ALPHABET) == 1 << _CODE_BITS
_CODE_READING = str.maketrans({"I": "1", "L": "1", "O": "0", "-": None, " ": None})
UNDO = ["undo"]
CONCEDE_WIRE = CONCEDE.wire()


class Status(enum.StrEnum):
    OPEN = "open"  # taking seats
    COUNTDOWN = "countdown"  # every seat ready; starting soon
    RUNNING = "running"
    FINISHED = "finished"
    EXPIRED = "expired"  # removed unplayed: only ever seen in the last race_update about it


@dataclass
class Settings:
    """What the creator chose; fixed once the race exists."""

    game: str
    options: dict[str, Any]
    seats: int = 2
    time_limit: int = 600  # seconds, from the start
    public: bool = True
    undo: bool = False
    spectator_delay: int = 0  # seconds
    live_boards: bool = False  # spectators see the boards while the race runs (else only at the end)

    def to_map(self) -> dict[str, Any]:
        """Every setting as plain data (``Settings(**map)`` reads it back)."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "seats": self.seats,
            "time_limit": self.time_limit,
            "public": self.public,
            "undo": self.undo,
            "spectator_delay": self.spectator_delay,
            "live_boards": self.live_boards,
        }


@dataclass
class Seat:
    """One racer's place in a race, and, once it runs, their game."""

    player: str
    name: str
    bot: bool = False
    ready: bool = False
    log: list[tuple[Any, ...]] = field(default_factory=list)  # entries as tuples: the collector skips them
    state: Any = None  # the game as it stands, once the race runs
    earlier: list[Any] = field(default_factory=list)  # the state before each standing move, where undo is allowed
    moves: int = 0  # moves made and still standing (undone moves and concessions do not count)
    finished_at: float | None = None  # when the game ended, by its rules or a concession

    @property
    def seq(self) -> int:
        return len(self.log)


@dataclass
class Invitation:
    """A free seat of an open race offered to a bot until ``expires_at`` (unix time): the seat
    is kept for it, and it may join the race even if the race is private."""

    player: str
    name: str
    expires_at: float
    by: str = ""  # the inviter's name (told to the bot; not in the summary)
    seed: int | None = None  # in a tournament's race: the seed the entrant's bot plays with

    def to_map(self) -> dict[str, Any]:
        return {"player": self.player, "name": self.name, "expires_at": self.expires_at}


@dataclass
class Race:
    """A race and its seats. Methods check the rules of the race, not of the game."""

    id: str
    settings: Settings
    created_by: str
    created_at: float
    code: str = field(default_factory=lambda: new_code())
    seats: list[Seat] = field(default_factory=list)
    status: Status = Status.OPEN
    starts_at: float | None = None
    started_at: float | None = None
    deadline: float | None = None
    ended_at: float | None = None
    seed: int | None = None
    salt: bytes | None = None
    results: list[dict[str, Any]] | None = None
    joined_at: float | None = None  # when a player last took a seat (None: not since the creation)
    # Pending invitations, oldest first; each keeps a seat free (seats taken + invited <= seats).
    invited: list[Invitation] = field(default_factory=list)
    # When the race stopped taking entries (its deadline, or its last game's end), if it did:
    # it then finishes as of this time, once the entries already on their way are stored.
    closed_at: float | None = None
    # How many times its record was saved: a node saves a change only over the version it
    # read (see Store.save_race), so race-wide changes from several nodes never cross.
    version: int = 0
    # A tournament's race: the tournament's id, and the deal's seed (secret until the race
    # ends). Every seat is kept for an invited entrant; one who joins is ready at once; one who
    # leaves, declines or lets the invitation lapse gives the seat up (a forfeit), and the race
    # starts once everyone still expected is seated. ``max_moves``: the tournament's move cap,
    # told to the invited entrants (a game still going after it is conceded by its player).
    tournament: str | None = None
    deal: int | None = None
    max_moves: int | None = None

    @property
    def game(self) -> Game[Any]:
        return get_game(self.settings.game)

    def seat_of(self, player: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.player == player:
                return index
        return None

    # --- the lobby -------------------------------------------------------------------

    def invitation_of(self, player: str) -> Invitation | None:
        return next((invitation for invitation in self.invited if invitation.player == player), None)

    def join(self, player: str, name: str, bot: bool) -> int:
        """Seat ``player``; return the seat. Joining twice returns the same seat. An invited
        player takes the seat kept for them (and the invitation is used up)."""
        index = self.seat_of(player)
        if index is not None:
            return index
        if self.status is not Status.OPEN:
            raise ProtocolError(ErrorCode.RACE_STARTED, "the race has started; watch it instead")
        invitation = self.invitation_of(player)
        if invitation is not None:
            self.invited.remove(invitation)
        elif len(self.seats) + len(self.invited) >= self.settings.seats:
            kept = f" ({len(self.invited)} kept for invited bots)" if self.invited else ""
            seats = "the only seat is" if self.settings.seats == 1 else f"all {self.settings.seats} seats are"
            raise ProtocolError(ErrorCode.RACE_FULL, f"{seats} taken{kept}")
        self.seats.append(Seat(player, name, bot, ready=self.tournament is not None))
        return len(self.seats) - 1

    def invite(self, player: str, name: str, expires_at: float, by: str = "", seed: int | None = None) -> bool:
        """Keep a free seat for ``player`` (a bot) until ``expires_at``, invited by the player named
        ``by``; return whether this is news (False: ``player`` is seated already). Inviting again
        renews the invitation.

        Raises ``race_started`` (not open) or ``race_full`` (no seat left to keep).
        """
        if self.seat_of(player) is not None:
            return False
        if self.status is not Status.OPEN:
            raise ProtocolError(ErrorCode.RACE_STARTED, "the race has started: it takes no more players")
        invitation = self.invitation_of(player)
        if invitation is not None:
            invitation.expires_at = expires_at
            invitation.name, invitation.by = name, by
            return True
        if len(self.seats) + len(self.invited) >= self.settings.seats:
            raise ProtocolError(ErrorCode.RACE_FULL, "no seat is free: every seat is taken or kept for an invited bot")
        self.invited.append(Invitation(player, name, expires_at, by, seed))
        return True

    def lapse(self, player: str, now: float) -> bool:
        """Drop ``player``'s invitation if it expired by ``now``; return whether it did."""
        invitation = self.invitation_of(player)
        if invitation is None or invitation.expires_at > now:
            return False
        self.invited.remove(invitation)
        self._forfeit()
        return True

    def leave(self, player: str) -> None:
        """Give up a seat before the start (a countdown stops), or decline an invitation."""
        invitation = self.invitation_of(player)
        if invitation is not None and self.seat_of(player) is None:
            self.invited.remove(invitation)
            self._forfeit()
            return
        index = self.seated(player)
        if self.status not in (Status.OPEN, Status.COUNTDOWN):
            raise ProtocolError(ErrorCode.RACE_STARTED, "the race has started: concede instead")
        del self.seats[index]
        self._forfeit()
        self.status = Status.OPEN
        self.starts_at = None

    def _forfeit(self) -> None:
        """In a tournament's race, an entrant gave up their seat: the race no longer waits for it."""
        if self.tournament is not None:
            self.settings.seats -= 1

    def all_ready(self) -> bool:
        """Whether every seat is taken and ready (and there is a seat): the countdown may begin."""
        return 0 < len(self.seats) == self.settings.seats and all(seat.ready for seat in self.seats)

    def set_ready(self, player: str, ready: bool) -> bool:
        """Mark a seat ready or not; return whether every seat is now ready."""
        index = self.seated(player)
        if self.status not in (Status.OPEN, Status.COUNTDOWN):
            raise ProtocolError(ErrorCode.RACE_STARTED, "the race has started")
        self.seats[index].ready = ready
        if not ready and self.status is Status.COUNTDOWN:
            self.status = Status.OPEN
            self.starts_at = None
        return self.all_ready()

    def begin_countdown(self, starts_at: float) -> None:
        self.status = Status.COUNTDOWN
        self.starts_at = starts_at

    def start(self, now: float, seed: int | None = None, salt: bytes | None = None) -> None:
        """Deal every seat the same game from a fresh secret seed (or the given one; a
        tournament's race always from its deal's)."""
        if self.deal is not None:
            seed = self.deal
        self.seed = secrets.randbits(SEED_BITS) if seed is None else seed
        self.salt = secrets.token_bytes(16) if salt is None else salt
        self.status = Status.RUNNING
        self.started_at = now
        self.deadline = now + self.settings.time_limit
        self.invited = []  # none can be pending (they keep seats free), and none is taken now
        first = self.game.deal(self.seed, self.settings.options)
        for seat in self.seats:
            seat.state, seat.earlier, seat.moves, seat.log = first, [], 0, []
            if first.ended is not None:
                seat.finished_at = now

    @property
    def commitment(self) -> str | None:
        if self.seed is None or self.salt is None:
            return None
        return commitment(self.seed, self.salt)

    # --- play ------------------------------------------------------------------------

    def check_entry(self, player: str, seq: int | None, now: float) -> tuple[int, bool]:
        """The seat of ``player`` and whether entry ``seq`` is already in its log, at unix time ``now``
        (``seq`` None: the next entry, whatever the log's length).

        Raises ``race_not_running`` (also once the race is closed or its deadline has come),
        ``not_seated`` or ``stale_seq``.
        """
        index = self.seated(player)
        if self.status is not Status.RUNNING:
            raise ProtocolError(ErrorCode.RACE_NOT_RUNNING, f"the race is {self.status.value}")
        if not self.taking_entries(now):
            raise ProtocolError(ErrorCode.RACE_NOT_RUNNING, "the race is ending: it takes no more entries")
        seat = self.seats[index]
        if seq is None:
            return index, False
        if seq < seat.seq:
            return index, True
        if seq > seat.seq:
            raise ProtocolError(
                ErrorCode.STALE_SEQ, f"entry {seq} is not next: this game has {plural(seat.seq, 'entry', 'entries')}"
            )
        return index, False

    def taking_entries(self, now: float) -> bool:
        """Whether the race takes entries at unix time ``now``: it runs, is not closed, its deadline has not come."""
        return self.status is Status.RUNNING and self.closed_at is None and now < (self.deadline or now + 1)

    def next_state(self, index: int, entry: list[Any]) -> Any:
        """The state that ``entry`` would produce for seat ``index``, without recording it.

        Raises ``game_over``, ``undo_not_allowed``, ``bad_move`` or ``illegal_move``.
        """
        seat = self.seats[index]
        game = self.game
        if seat.state.ended is not None:
            raise ProtocolError(ErrorCode.GAME_OVER, f"this game is over ({seat.state.ended.value})")
        if entry == UNDO:
            if not self.settings.undo:
                raise ProtocolError(ErrorCode.UNDO_NOT_ALLOWED, "this race does not allow undo")
            if seat.moves == 0:
                raise ProtocolError(ErrorCode.ILLEGAL_MOVE, "there is no move to undo")
            return seat.earlier[-1]
        try:
            move = Move.from_wire(entry)
            return game.apply(seat.state, move)
        except IllegalMove as error:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, error.reason) from None
        except GameError as error:
            raise ProtocolError(ErrorCode.BAD_MOVE, str(error)) from None

    def record(self, index: int, entry: list[Any], state: Any, now: float) -> None:
        """Append ``entry`` (already checked by :meth:`next_state`) and its resulting state."""
        seat = self.seats[index]
        seat.log.append(tuple(entry))
        if entry == UNDO:
            seat.earlier.pop()
            seat.moves -= 1
        elif entry != CONCEDE_WIRE:
            if self.settings.undo:
                seat.earlier.append(seat.state)
            seat.moves += 1
        seat.state = state
        if state.ended is not None:
            seat.earlier = []  # a finished game takes nothing back
            if seat.finished_at is None:
                seat.finished_at = now

    def replay_seat(self, index: int, log: Sequence[list[Any]], finished_at: float | None) -> None:
        """Rebuild seat ``index`` from its stored log (after a restart); ``finished_at`` is the
        stored time its game ended, if the log ends it."""
        when = (self.started_at or 0.0) if finished_at is None else finished_at
        for entry in log:
            state = self.next_state(index, list(entry))
            self.record(index, list(entry), state, when)

    def all_over(self) -> bool:
        return all(seat.state.ended is not None for seat in self.seats)

    def finish(self, now: float) -> list[dict[str, Any]]:
        """End the race: unfinished games run out of time; rank and return the results."""
        game = self.game
        for seat in self.seats:
            seat.earlier = []  # nothing can be undone now
            if seat.state.ended is None:
                seat.state = game.end(seat.state, Ending.OUT_OF_TIME)
                seat.finished_at = now
        self.status = Status.FINISHED
        self.ended_at = now
        self.results = rank(game, self.seats, self.started_at or now)
        return self.results

    # --- what others see -------------------------------------------------------------

    def progress(self, index: int) -> dict[str, Any]:
        seat = self.seats[index]
        state = seat.state
        return {
            "seat": index,
            "score": score_wire(self.game.score(state)),
            "moves": seat.moves,
            "finished": state.ended is not None,
            "ended": None if state.ended is None else state.ended.value,
        }

    def summary(self, for_player: str | None = None) -> dict[str, Any]:
        """The race as the lobby shows it; the join code only to its seated players."""
        out: dict[str, Any] = {
            "id": self.id,
            **self.settings.to_map(),
            "status": self.status.value,
            "players": [
                {"seat": i, "player": s.player, "name": s.name, "bot": s.bot, "ready": s.ready}
                for i, s in enumerate(self.seats)
            ],
            "created_at": self.created_at,
        }
        for key in ("starts_at", "started_at", "deadline", "ended_at"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.invited:
            out["invited"] = [invitation.to_map() for invitation in self.invited]
        if self.tournament is not None:
            out["tournament"] = self.tournament
        if self.max_moves is not None:
            out["max_moves"] = self.max_moves
        if self.commitment is not None:
            out["commitment"] = self.commitment
        if for_player is not None and self.seat_of(for_player) is not None:
            out["code"] = self.code
        if self.results is not None:
            out["results"] = self.results
        return out

    def seated(self, player: str) -> int:
        index = self.seat_of(player)
        if index is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, "you have no seat in this race")
        return index


def new_code() -> str:
    """A fresh random join code: one draw of 60 random bits, 5 a character (not a draw from the
    system's random source per character, a system call each)."""
    bits = secrets.randbits(_CODE_BITS * CODE_LENGTH)
    return "".join(CODE_ALPHABET[(bits >> _CODE_BITS * i) & _CODE_MASK] for i in range(CODE_LENGTH))


def read_code(text: str) -> str | None:
    """The join code ``text`` stands for, as people may type it (any case, with dashes or spaces,
    I or L for 1, O for 0), or ``None`` if it cannot be a join code at all."""
    code = text.upper().translate(_CODE_READING)
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def rank(game: Game[Any], seats: Sequence[Seat], started_at: float) -> list[dict[str, Any]]:
    """Results, best first, by :func:`ranked_results`: score (in the game's direction), a game
    played out before a conceded one, finish time, fewer moves.

    The rows are ranked as published (the time in seconds from the start, to the
    millisecond), by the rule ``parlour verify`` checks, so anyone can check the order.
    """
    results = [
        {
            "seat": index,
            "player": seat.player,
            "name": seat.name,
            "score": score_wire(game.score(seat.state)),
            "ended": seat.state.ended.value if seat.state.ended else None,
            "time": round((seat.finished_at or started_at) - started_at, 3),
            "moves": seat.moves,
        }
        for index, seat in enumerate(seats)
    ]
    ranked = ranked_results(results, game.higher_is_better)
    return [{"place": place, **result} for place, result in enumerate(ranked, 1)]


__all__ = [
    "CODE_LENGTH",
    "CONCEDE_WIRE",
    "UNDO",
    "Invitation",
    "Race",
    "Seat",
    "Settings",
    "Status",
    "new_code",
    "rank",
    "read_code",
]
