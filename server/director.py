"""The tournament director: runs tournaments through ordinary races, on any node.

A tournament has a lease like a race (lease id ``tournament:<id>``, in the same lease keys):
the node holding it *directs* it. Directing is one idempotent step, :meth:`Director.advance`,
run whenever one of its races ends on this node and at every heartbeat:

1. Read the tournament and the results recorded so far.
2. In the current round (the first with a slot lacking results), for each such slot: if its
   race (id ``<tournament>-<slot>``) never existed, create it with every entrant invited
   (the invitation keeps the seat until ``forfeit_after``); if it finished, record its
   results (write-once); if it was removed unplayed (every entrant gave up the seat),
   record a forfeit for each.
3. When the round is complete, go on with the next one; when every slot has results, the
   tournament is finished and its seed revealed.

A race id is created at most once (its version key outlives the race) and a slot's results
are written once, so a node killed at any moment neither skips nor repeats a race: the next
holder of the lease runs the same step from what Redis holds.

Forfeits. An entrant who does not take the seat before the invitation lapses (or leaves, or
declines) gives it up: the race starts without them, and they rank below everyone who
played the deal. Rated tournaments feed ratings once per finished race
(:mod:`parlour.server.ratings`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgpack

from parlour.games import GameError, game_names, get_game, score_wire
from parlour.protocol import ErrorCode, ProtocolError
from parlour.protocol import messages as m
from parlour.protocol.text import plural
from parlour.protocol.tournament import (
    Entrant,
    Format,
    Result,
    Slot,
    TournamentError,
    deal_seed,
    make_spec,
    schedule,
)
from parlour.server.bots import OnlineBot
from parlour.server.logs import Ids
from parlour.server.race import Race, Settings, Status
from parlour.server.ratings import Rating, leaderboard, places_with_ties, rate
from parlour.server.store import VersionConflict
from parlour.server.tournaments import Status as TStatus
from parlour.server.tournaments import StoredRatings, Tournament, TournamentStore

if TYPE_CHECKING:
    from parlour.server.app import Server
    from parlour.server.connection import Connection

log = logging.getLogger("parlour.director")

LEASE_PREFIX = "tournament:"
MAX_LOBBY = 50  # the most tournaments the lobby's first page lists
# Bytes of replays one part of an export holds at most (past its first race): a part must stay well
# inside the client's largest message (1 MiB) and the server's backlog per connection (--max-backlog,
# of which a part takes a quarter at most).
EXPORT_PART = 256 * 1024


def lease_id(tournament: str) -> str:
    return LEASE_PREFIX + tournament


def bot_seed(seed: int, slot: int, entrant: int) -> int:
    """The seed entrant ``entrant``'s bot plays slot ``slot`` with: from the tournament's seed,
    so a reproducible tournament's bots play alike in every run."""
    digest = hashlib.sha256(seed.to_bytes(32, "big") + f"bot:{slot}:{entrant}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def entrant_bots(bots: list[OnlineBot], wanted: list[str], games: set[str]) -> list[OnlineBot]:
    """The online bots ``wanted`` names (each a name or a player id), each one that plays every
    game in ``games``; ``bad_tournament`` if one is missing or named twice."""
    chosen: list[OnlineBot] = []
    for name in wanted:
        named = [b for b in bots if name in (b.name, b.player)]
        playing = [b for b in named if games <= b.games]
        if not playing:
            if named:
                missing = ", ".join(sorted(games - set().union(*(b.games for b in named))))
                raise ProtocolError(ErrorCode.BAD_TOURNAMENT, f"the online bot {name!r} does not play {missing}")
            raise ProtocolError(ErrorCode.NO_SUCH_BOT, f"no online bot named {name!r}")
        bot = next((b for b in playing if b not in chosen), None)
        if bot is None:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, f"the bot {name!r} is entered twice")
        chosen.append(bot)
    return chosen


class Director:
    """The tournaments of one server node: requests about them, and the directing of those
    whose lease the node holds."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.store = TournamentStore(server.store)
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.held: set[str] = set()  # tournaments this node directs
        self.watchers: dict[str, set[Connection]] = defaultdict(set)
        self.shown: dict[str, dict[str, Any]] = {}  # the last summary told to watchers, by tournament

    # --- requests ----------------------------------------------------------------------

    async def on_create(self, conn: Connection, msg: m.TournamentCreate) -> m.Message:
        server = self.server
        player = server._player(conn)
        if msg.seed is not None and msg.rated:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a rated tournament draws its own secret seed")
        try:
            seed = None if msg.seed is None else int(msg.seed, 16)
        except ValueError:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "the seed must be hexadecimal") from None
        if seed is not None and not 0 <= seed < 2**256:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "the seed must be below 2**256")
        games = _games(msg)
        wanted = list(msg.bots or [])
        if not wanted and not msg.people:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a tournament needs entrants: bots or seats for people")
        try:  # checked before the bots are looked for: the entrants below stand in for them
            stand_in = [Entrant(f"e{i}", f"e{i}") for i in range(max(2, len(wanted) + msg.people))]
            spec = make_spec(msg.format, games, msg.deals, stand_in, msg.table_size, msg.timed, msg.max_moves)
        except TournamentError as error:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, str(error)) from None
        bots = entrant_bots(await server._online_bots(), wanted, {e.game for e in spec.events})
        if len(bots) + msg.people < 2:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a tournament needs at least two entrants")
        now = time.time()
        tournament = Tournament(
            id="t" + secrets.token_hex(5),
            name=msg.name or f"{spec.format.value} of {', '.join(e.game for e in spec.events[:3])}",
            created_by=player.id,
            created_at=now,
            format=spec.format,
            events=spec.events,
            deals=spec.deals,
            table_size=spec.table_size,
            entrants=[Entrant(b.player, b.name, True) for b in bots],
            named=len(bots),
            people=msg.people,
            rated=msg.rated,
            timed=msg.timed,
            time_limit=msg.time_limit,
            forfeit_after=float(msg.forfeit_after),
            public=msg.public,
            max_moves=spec.max_moves,
        )
        if seed is not None:
            tournament.seed = seed
        await server.store.take_leases(server.lease, [lease_id(tournament.id)])
        server.held.add(lease_id(tournament.id))
        self.held.add(tournament.id)
        tournament = await self.store.save(tournament)
        log.info("tournament created: %s, %s", tournament.name, plural(len(bots), "bot"), extra=Ids(player=player.id))
        if tournament.people == 0:
            tournament = await self._start(tournament)
        return m.TournamentInfo(id=msg.id, tournament=await self._summary(tournament))

    async def on_join(self, conn: Connection, msg: m.TournamentJoin) -> m.Message:
        player = self.server._player(conn)
        async with self.locks[msg.tournament]:
            tournament = await self._known(msg.tournament)
            if any(e.player == player.id for e in tournament.entrants):
                return m.TournamentInfo(id=msg.id, tournament=await self._summary(tournament))
            if tournament.status != TStatus.OPEN or tournament.joined >= tournament.people:
                raise ProtocolError(ErrorCode.TOURNAMENT_STARTED, "the tournament takes no more entrants")
            tournament.entrants.append(Entrant(player.id, player.name, player.bot))
            try:
                tournament = await self.store.save(tournament)
            except VersionConflict:
                raise ProtocolError(ErrorCode.UNAVAILABLE, "the tournament changed meanwhile; try again", 0.1) from None
            if tournament.joined == tournament.people:
                tournament = await self._start(tournament)
        await self._tell(tournament)
        return m.TournamentInfo(id=msg.id, tournament=await self._summary(tournament))

    async def on_start(self, conn: Connection, msg: m.TournamentStart) -> m.Message:
        player = self.server._player(conn)
        async with self.locks[msg.tournament]:
            tournament = await self._known(msg.tournament)
            if tournament.created_by != player.id:
                raise ProtocolError(ErrorCode.FORBIDDEN, "only the tournament's creator may start it")
            if tournament.status == TStatus.OPEN:
                if len(tournament.entrants) < 2:
                    raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a tournament needs at least two entrants")
                tournament = await self._start(tournament)
                await self._tell(tournament)
        return m.TournamentInfo(id=msg.id, tournament=await self._summary(tournament))

    async def on_watch(self, conn: Connection, msg: m.TournamentWatch) -> m.Message:
        tournament = await self._known(msg.tournament)
        self.watchers[tournament.id].add(conn)
        conn.tournaments.add(tournament.id)
        return m.TournamentInfo(id=msg.id, tournament=await self._summary(tournament))

    async def on_unwatch(self, conn: Connection, msg: m.TournamentUnwatch) -> m.Message:
        self.unwatch(conn, msg.tournament)
        return m.Ok(id=msg.id)

    def unwatch(self, conn: Connection, tournament: str) -> None:
        conn.tournaments.discard(tournament)
        watchers = self.watchers.get(tournament)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.watchers[tournament]
                self.shown.pop(tournament, None)

    async def on_list(self, conn: Connection, msg: m.TournamentList) -> m.Message:
        out = []
        for tournament_id in await self.store.listed(msg.limit):
            tournament = await self.store.load(tournament_id)
            if tournament is not None:
                out.append(tournament.summary())
        return m.Tournaments(id=msg.id, tournaments=out)

    async def on_export(self, conn: Connection, msg: m.TournamentExport) -> m.Message:
        tournament = await self._known(msg.tournament)
        if tournament.status != TStatus.FINISHED:
            raise ProtocolError(ErrorCode.NOT_FINISHED, "the tournament is not finished: its seed is still secret")
        results = await self.store.results(tournament.id)
        slots = schedule(tournament.spec)
        races: list[dict[str, Any]] = []
        size, budget = 0, min(EXPORT_PART, self.server.config.max_backlog // 4)
        next_slot: int | None = None
        for slot in slots[msg.first :]:
            if races and size >= budget:
                next_slot = slot.index
                break
            race_id = tournament.race_id(slot.index)
            try:
                replay: dict[str, Any] | None = await self.server.replay_data(race_id)
            except ProtocolError as error:
                if error.code != ErrorCode.UNKNOWN_RACE:
                    raise
                replay = None  # removed unplayed: every entrant gave up the seat (all forfeits)
            size += len(msgpack.packb(replay, use_bin_type=True))
            races.append({"slot": slot.index, "race": race_id, "replay": replay})
        export = {
            "format": "parlour-tournament-1",
            "tournament": tournament.summary(results),
            "spec": tournament.spec.to_map(),
            "results": {str(k): [r.to_map() for r in v] for k, v in sorted(results.items())},
            "races": races,
        }
        return m.TournamentExportData(id=msg.id, export=export, next=next_slot)

    async def on_ratings(self, conn: Connection, msg: m.Ratings) -> m.Message:
        try:
            game = get_game(msg.game)
        except GameError as error:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, str(error)) from None
        ratings, who = await self.ratings(game.name)
        rows = []
        for player, rating in leaderboard(ratings):
            name, bot = who[player]
            if msg.bots is None or msg.bots == bot:
                rows.append({"player": player, "name": name, "bot": bot, **rating.to_map(), "ordinal": rating.ordinal})
        return m.Leaderboard(id=msg.id, game=game.name, ratings=rows[: msg.limit])

    async def ratings(self, game: str) -> tuple[dict[str, Rating], dict[str, tuple[str, bool]]]:
        """The game's ratings and each player's name and whether it is a bot: those stored, brought
        up to date with the rated races finished since (replayed from the start if the stored ones
        do not begin the log as it stands)."""
        races = await self.store.rated(game)
        stored = await self.store.load_ratings(game)
        ratings: dict[str, Rating] = {}
        who: dict[str, tuple[str, bool]] = {}
        done = 0
        if stored is not None and 0 < stored.count <= len(races) and races[stored.count - 1] == stored.last:
            ratings, who, done = dict(stored.ratings), dict(stored.who), stored.count
        tournaments: dict[str, tuple[Tournament | None, dict[int, list[Result]]]] = {}
        for tournament_id, slot in races[done:]:
            if tournament_id not in tournaments:
                loaded = await self.store.load(tournament_id)
                tournaments[tournament_id] = (loaded, await self.store.results(tournament_id))
            tournament, results = tournaments[tournament_id]
            if tournament is None or slot not in results:
                continue
            places = _places(tournament, results[slot], game)
            ratings.update(rate(ratings, places))
            for player in places:
                entrant = next(e for e in tournament.entrants if e.player == player)
                who[player] = (entrant.name, entrant.bot)
        if len(races) > done:
            await self.store.save_ratings(game, StoredRatings(len(races), races[-1], ratings, who))
        return ratings, who

    # --- directing ---------------------------------------------------------------------

    async def take_over(self, tournament_id: str) -> None:
        """Direct a tournament whose lease this node just took."""
        tournament = await self.store.load(tournament_id)
        if tournament is None or tournament.status == TStatus.FINISHED:
            self.server._release(lease_id(tournament_id))
            return
        self.held.add(tournament_id)
        log.info("directing tournament %s", tournament_id)
        self.server._spawn(self.advance(tournament_id), ("advance", tournament_id))

    def lost(self, tournament_id: str) -> None:
        self.held.discard(tournament_id)

    def beat(self) -> None:
        """At each heartbeat: a step for every tournament directed here."""
        for tournament_id in sorted(self.held):
            if not self.locks[tournament_id].locked():
                self.server._spawn(self.advance(tournament_id), ("advance", tournament_id))

    def race_ended(self, race: Race) -> None:
        """One of a tournament's races ended on this node: direct the next step now."""
        if race.tournament is not None and race.tournament in self.held:
            self.server._spawn(self.advance(race.tournament), ("advance", race.tournament))

    async def _start(self, tournament: Tournament) -> Tournament:
        tournament.status = TStatus.RUNNING
        tournament.started_at = time.time()
        tournament = await self.store.save(tournament)
        log.info("tournament %s started: %s", tournament.id, plural(len(schedule(tournament.spec)), "race"))
        self.server._spawn(self.advance(tournament.id), ("advance", tournament.id))
        return tournament

    async def advance(self, tournament_id: str) -> None:
        """One directing step (see the module's docstring). Safe to run on any node at any time."""
        async with self.locks[tournament_id]:
            tournament = await self.store.load(tournament_id)
            if tournament is None or tournament.status != TStatus.RUNNING:
                return
            results = await self.store.results(tournament_id)
            slots = schedule(tournament.spec)
            changed = False
            while True:
                pending = [slot for slot in slots if slot.index not in results]
                if not pending:
                    await self._finish(tournament, results)
                    return
                in_round = [slot for slot in pending if slot.round == pending[0].round]
                for slot in in_round:
                    outcome = await self._slot(tournament, slot)
                    if outcome is not None:
                        results[slot.index] = await self.store.record_result(tournament.id, slot.index, outcome)
                        changed = True
                        if tournament.rated:
                            await self._mark_rated(tournament, slot)
                if any(slot.index not in results for slot in in_round):
                    break
            if changed:
                await self._tell(tournament, results)

    async def _slot(self, tournament: Tournament, slot: Slot) -> list[Result] | None:
        """The slot's results if its race is over; else ``None`` (its race created if need be)."""
        server = self.server
        race_id = tournament.race_id(slot.index)
        race = await server.store.load_record(race_id)
        if race is None:
            if await server.store.race_version(race_id) == 0:
                await self._create_race(tournament, slot)
                return None
            return [self._forfeit(tournament, slot, i) for i in slot.entrants]  # removed unplayed
        if race.status is not Status.FINISHED:
            return None
        by_player = {row["player"]: row for row in race.results or ()}
        out = []
        for i in slot.entrants:
            row = by_player.get(tournament.entrants[i].player)
            if row is None:
                out.append(self._forfeit(tournament, slot, i))
            else:
                out.append(Result(i, row["score"], row["ended"], row["time"], row["moves"]))
        return out

    def _forfeit(self, tournament: Tournament, slot: Slot, entrant: int) -> Result:
        """An entrant who never took the seat: the untouched deal's score, ranked below all who played."""
        event = tournament.events[slot.event]
        game = get_game(event.game)
        first = game.deal(deal_seed(tournament.seed, slot.event, event.game, slot.deal), event.options)
        return Result(entrant, score_wire(game.score(first)), "conceded", 0.0, 0, forfeit=True)

    async def _create_race(self, tournament: Tournament, slot: Slot) -> None:
        server = self.server
        event = tournament.events[slot.event]
        now = time.time()
        settings = Settings(
            game=event.game,
            options=dict(event.options),
            seats=len(slot.entrants),
            time_limit=tournament.time_limit,
            public=False,
        )
        race = Race(
            id=tournament.race_id(slot.index),
            settings=settings,
            created_by=tournament.created_by,
            created_at=now,
            tournament=tournament.id,
            deal=deal_seed(tournament.seed, slot.event, event.game, slot.deal),
            max_moves=tournament.max_moves,
        )
        for i in slot.entrants:
            entrant = tournament.entrants[i]
            seed = bot_seed(tournament.seed, slot.index, i)
            race.invite(entrant.player, entrant.name, now + tournament.forfeit_after, tournament.name, seed)
        await asyncio.gather(server.store.take_leases(server.lease, [race.id]), server._watch_race(race.id))
        server.held.add(race.id)
        try:
            race.version = await server.store.save_race(race)
        except VersionConflict:  # created before (by an earlier step that died before recording it)
            server.held.discard(race.id)
            await server._unwatch_race(race.id)
            return
        except BaseException:
            server.held.discard(race.id)
            server._spawn(server._unwatch_race(race.id), ("unwatch", race.id))
            raise
        held = server.races.get(race.id)
        if held is None:
            server._adopt(race)
        else:  # read from Redis meanwhile by a request that named it (its id is known before it exists)
            race = held
        server._plan(race)
        log.info("tournament race created (slot %d)", slot.index, extra=Ids(race=race.id))
        for invitation in race.invited:
            await server._invite_anywhere(invitation.player, race)

    async def _mark_rated(self, tournament: Tournament, slot: Slot) -> None:
        """Add the slot's race to its game's rated races (again changes nothing)."""
        race = await self.server.store.load_record(tournament.race_id(slot.index))
        ended = (race.ended_at if race is not None else None) or time.time()
        await self.store.mark_rated(tournament.events[slot.event].game, ended, tournament.id, slot.index)

    async def _finish(self, tournament: Tournament, results: Mapping[int, list[Result]]) -> None:
        if tournament.rated:  # a step that died between a result and its mark left it out
            for slot in schedule(tournament.spec):
                await self._mark_rated(tournament, slot)
        tournament.status = TStatus.FINISHED
        tournament.ended_at = time.time()
        try:
            tournament = await self.store.save(tournament)
        except VersionConflict:
            return  # finished by another node meanwhile
        log.info("tournament %s finished", tournament.id)
        self.held.discard(tournament.id)
        self.server._release(lease_id(tournament.id))
        await self._tell(tournament, results)

    # --- telling -----------------------------------------------------------------------

    async def _summary(self, tournament: Tournament) -> dict[str, Any]:
        results = await self.store.results(tournament.id)
        summary = tournament.summary(results)
        if tournament.status == TStatus.RUNNING:
            summary["playing"] = [tournament.race_id(slot.index) for slot in _current_round(tournament, results)]
        return summary

    async def _tell(self, tournament: Tournament, results: Mapping[int, list[Result]] | None = None) -> None:
        """Tell every node's watchers of the tournament what changed."""
        summary = await self._summary(tournament) if results is None else tournament.summary(results)
        if results is not None and tournament.status == TStatus.RUNNING:
            summary["playing"] = [tournament.race_id(slot.index) for slot in _current_round(tournament, results)]
        await self.server._tell_nodes(["t", tournament.id, summary])

    def deliver(self, tournament_id: str, summary: dict[str, Any]) -> None:
        """Send this node's watchers a tournament's new summary."""
        watchers = self.watchers.get(tournament_id)
        if watchers:
            self.server._broadcast(watchers, m.TournamentUpdate(tournament=summary))

    async def lobby(self) -> list[dict[str, Any]]:
        """The public tournaments open or running, newest first (at most ``MAX_LOBBY``)."""
        out = []
        for tournament_id in await self.store.active():
            tournament = await self.store.load(tournament_id)
            if tournament is not None and tournament.public and tournament.status != TStatus.FINISHED:
                out.append(tournament.summary())
        out.sort(key=lambda t: (-t["created_at"], t["id"]))
        return out[:MAX_LOBBY]

    async def finished(self, tournament_id: str) -> bool:
        """Whether the tournament is over (its seed, races and boards are then public)."""
        tournament = await self.store.load(tournament_id)
        return tournament is not None and tournament.status == TStatus.FINISHED

    async def _known(self, tournament_id: str) -> Tournament:
        tournament = await self.store.load(tournament_id)
        if tournament is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, "no tournament with that id")
        return tournament


def _current_round(tournament: Tournament, results: Mapping[int, list[Result]]) -> list[Slot]:
    pending = [slot for slot in schedule(tournament.spec) if slot.index not in results]
    return [slot for slot in pending if slot.round == pending[0].round] if pending else []


def _places(tournament: Tournament, results: list[Result], game_name: str) -> dict[str, int]:
    """The places of one race's entrants (forfeits last, tied), for ratings, ranked as the tournament's
    matchpoints rank them (an untimed tournament's by score and concession alone)."""
    played = [r for r in results if not r.forfeit]
    rows = [
        {"player": tournament.entrants[r.entrant].player, "score": r.score, "ended": r.ended, "time": r.time,
         "moves": r.moves}
        for r in played
    ]  # fmt: skip
    game = get_game(game_name)
    places = places_with_ties(rows, game.higher_is_better, tournament.timed) if rows else {}
    last = len(played) + 1
    for r in results:
        if r.forfeit:
            places[tournament.entrants[r.entrant].player] = last
    return places


def _games(msg: m.TournamentCreate) -> list[tuple[str, dict[str, object] | None]]:
    """The games a create asks for: ``{game, options}`` maps; a mixed tournament without any plays all eight."""
    if not msg.games:
        if msg.format == Format.MIXED.value:
            return [(name, None) for name in game_names()]
        raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a tournament needs a game")
    out = []
    for item in msg.games:
        if not isinstance(item, dict) or not isinstance(item.get("game"), str):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "tournament_create: each of 'games' must be a map with 'game'")
        options = item.get("options")
        if options is not None and not isinstance(options, dict):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "tournament_create: a game's 'options' must be a map")
        out.append((item["game"], options))
    return out


__all__ = ["LEASE_PREFIX", "Director", "bot_seed", "entrant_bots", "lease_id"]
