"""Checking a finished tournament from its export: anyone can, with no server.

An export is the ``tournament_export_data`` reply's map (``parlour tournament export --format
json`` saves it as JSON): ``format`` (``"parlour-tournament-1"``), ``tournament`` (the finished
tournament's summary: the revealed ``seed`` and ``salt``, the ``commitment`` published when it
started, the ``standings``), ``spec`` (:meth:`parlour.protocol.tournament.Spec.to_map`),
``results`` (slot, as a string, to that slot's results) and ``races`` (one per slot: ``slot``,
``race`` id and ``replay``, or a nil replay for a race every entrant forfeited).

:func:`verify_export` runs five checks, each listing its own problems:

1. **The tournament**: the spec is one that can be held, and the summary describes it.
2. **The commitment**: SHA-256 of the revealed salt and seed is the published commitment.
3. **The schedule**: the races are exactly the schedule's slots (none missing, none extra, none
   twice, each with the id ``<tournament>-<slot>``), and results are recorded for exactly those.
4. **The races**: each race was dealt from its slot's seed (:func:`deal_seed` of the tournament
   seed); its replay is honest (:func:`parlour.protocol.replay.verify_replay`: every log
   replays, every score); it seated the slot's entrants who did not forfeit, no one else; and
   each result recorded for the slot is its race's (score, end, time, moves), a forfeit's the
   untouched deal's.
5. **The standings**: matchpoints and standings recomputed from the results
   (:func:`parlour.protocol.tournament.standings`) are the export's.

Pure: no I/O. Malformed input is a problem found, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parlour.games import GameError, get_game, score_wire
from parlour.protocol.replay import commitment, verify_replay
from parlour.protocol.tournament import (
    Result,
    Slot,
    Spec,
    TournamentError,
    deal_seed,
    make_spec,
    schedule,
    standings,
)

EXPORT_FORMAT = "parlour-tournament-1"
TOLERANCE = 1e-6  # standings' fractions travel as floats rounded to 4 places
SUMMARY_FIELDS = ("format", "events", "deals", "entrants", "table_size", "timed", "max_moves")


@dataclass
class Check:
    """One check: what it checks, and every problem it found (none: it holds)."""

    what: str
    problems: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    """Every check made, in order. Checks after one that makes the rest meaningless (an
    unreadable spec, say) are not made."""

    checks: list[Check] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [problem for check in self.checks for problem in check.problems]

    @property
    def honest(self) -> bool:
        """Whether every check was made and holds."""
        return len(self.checks) == 5 and not self.problems


def is_export(data: object) -> bool:
    """Whether ``data`` (a file's JSON) claims to be a tournament export (and not a race replay)."""
    return isinstance(data, Mapping) and data.get("format") == EXPORT_FORMAT


def verify_export(export: Mapping[str, Any]) -> Verdict:
    """Check a tournament export (see the module's docstring); the verdict lists every problem."""
    verdict = Verdict()
    try:
        _verify(export, verdict)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        verdict.checks.append(Check("the export is readable", [f"the export is malformed: {_describe(error)}"]))
    return verdict


def _describe(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"the field {error.args[0]!r} is missing"
    return f"{type(error).__name__}: {error}"


def _verify(export: Mapping[str, Any], verdict: Verdict) -> None:
    if export.get("format") != EXPORT_FORMAT:
        verdict.checks.append(Check("the format", [f"not a tournament export in the format {EXPORT_FORMAT!r}"]))
        return
    summary = export["tournament"]
    spec = _check_spec(export, summary, verdict)
    if spec is None:
        return
    seed = _check_commitment(summary, verdict)
    if seed is None:
        return
    slots = schedule(spec)
    races, results = _check_schedule(export, summary["id"], slots, verdict)
    _check_races(spec, slots, seed, races, results, verdict)
    _check_standings(spec, results, summary, verdict)


def _check_spec(export: Mapping[str, Any], summary: Mapping[str, Any], verdict: Verdict) -> Spec | None:
    spec = Spec.from_map(export["spec"])
    games = ", ".join(event.game for event in spec.events)
    check = Check(
        f"the tournament: {spec.format.value} of {games}, {_count(spec.deals, 'deal')} each, "
        f"{_count(len(spec.entrants), 'entrant')}, {_count(len(schedule(spec)), 'race')}; the summary describes it"
    )
    verdict.checks.append(check)
    try:
        remade = make_spec(
            spec.format.value,
            [(event.game, dict(event.options)) for event in spec.events],
            spec.deals,
            spec.entrants,
            spec.table_size,
            spec.timed,
            spec.max_moves,
        )
    except TournamentError as error:
        check.problems.append(f"the spec is not a tournament that can be held: {error}")
        return None
    if remade != spec:
        check.problems.append("the spec's table size or game options are not the ones such a tournament has")
    described = spec.to_map()
    for key in SUMMARY_FIELDS:
        if summary.get(key) != described[key]:
            check.problems.append(f"the summary's {key} is {summary.get(key)!r}, the spec's {described[key]!r}")
    if summary.get("status") != "finished":
        check.problems.append(f"the tournament is {summary.get('status')!r}, not finished")
    if summary.get("races") != len(schedule(spec)):
        check.problems.append(f"the summary says {summary.get('races')} races, the schedule has {len(schedule(spec))}")
    return spec


def _check_commitment(summary: Mapping[str, Any], verdict: Verdict) -> int | None:
    check = Check("the commitment: SHA-256 of the revealed salt and seed is the one published at the start")
    verdict.checks.append(check)
    if "seed" not in summary or "salt" not in summary:
        check.problems.append("the seed and salt are not revealed")
        return None
    seed = int(summary["seed"], 16)
    if not 0 <= seed < 2**256:
        check.problems.append("the seed is not below 2**256")
        return None
    if commitment(seed, bytes.fromhex(summary["salt"])) != summary["commitment"]:
        check.problems.append("the seed and salt do not match the commitment published at the start")
    return seed


def _check_schedule(
    export: Mapping[str, Any], tournament: str, slots: list[Slot], verdict: Verdict
) -> tuple[dict[int, Mapping[str, Any]], dict[int, list[Result]]]:
    """The races and results by slot, of the schedule's slots only."""
    check = Check(f"the schedule: exactly its {_count(len(slots), 'race')}, each once, each with its results")
    verdict.checks.append(check)
    races: dict[int, Mapping[str, Any]] = {}
    for race in export["races"]:
        slot = race["slot"]
        if not isinstance(slot, int) or not 0 <= slot < len(slots):
            check.problems.append(f"the race {race.get('race')!r} (slot {slot!r}) is not in the schedule: extra")
        elif slot in races:
            check.problems.append(f"slot {slot} has two races")
        else:
            races[slot] = race
            if race["race"] != f"{tournament}-{slot}":
                check.problems.append(f"slot {slot}'s race is {race['race']!r}, not {tournament}-{slot}")
    results: dict[int, list[Result]] = {}
    for key, rows in export["results"].items():
        slot = int(key)
        if not 0 <= slot < len(slots):
            check.problems.append(f"results for slot {slot}, which is not in the schedule: extra")
        else:
            results[slot] = [Result.from_map(row) for row in rows]
    for slot in slots:
        if slot.index not in races:
            check.problems.append(f"slot {slot.index} ({_where(slot)}) has no race: missing")
        if slot.index not in results:
            check.problems.append(f"slot {slot.index} ({_where(slot)}) has no results: missing")
    return races, results


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _where(slot: Slot) -> str:
    return f"round {slot.round}, event {slot.event} deal {slot.deal}, table {slot.table}"


def _check_races(
    spec: Spec,
    slots: list[Slot],
    seed: int,
    races: Mapping[int, Mapping[str, Any]],
    results: Mapping[int, list[Result]],
    verdict: Verdict,
) -> None:
    check = Check(
        "the races: each dealt from its slot's seed, every log replayed and every score checked, "
        "the slot's entrants seated, the recorded results the races' own"
    )
    verdict.checks.append(check)
    for slot in slots:
        race = races.get(slot.index)
        if race is not None:
            check.problems += [
                f"slot {slot.index}: {p}" for p in _race(spec, slot, seed, race, results.get(slot.index))
            ]


def _race(spec: Spec, slot: Slot, seed: int, race: Mapping[str, Any], results: list[Result] | None) -> list[str]:
    """The problems of one slot's race and recorded results."""
    problems: list[str] = []
    event = spec.events[slot.event]
    game = get_game(event.game)
    dealt = deal_seed(seed, slot.event, event.game, slot.deal)
    rows = results or []

    def name(entrant: int) -> str:
        return spec.entrants[entrant].name if 0 <= entrant < len(spec.entrants) else f"entrant {entrant}"

    for row in rows:
        if row.entrant not in slot.entrants:
            problems.append(f"a result for entrant {row.entrant}, who does not sit at this slot")
    recorded = {row.entrant for row in rows}
    problems += [f"no result for {name(i)}" for i in slot.entrants if results is not None and i not in recorded]
    forfeited = {row.entrant for row in rows if row.forfeit}
    untouched = score_wire(game.score(game.deal(dealt, event.options)))
    for row in rows:
        if row.forfeit and (row.score, row.ended, row.moves) != (untouched, "conceded", 0):
            problems.append(
                f"{name(row.entrant)}'s forfeit is recorded as score {row.score}, {row.ended}, "
                f"{row.moves} moves, not the untouched deal's score {untouched}, conceded, 0 moves"
            )
    replay = race["replay"]
    if replay is None:
        if set(slot.entrants) != forfeited:
            problems.append("the race has no replay (removed unplayed), yet not every entrant forfeited")
        return problems
    problems += verify_replay(replay)
    if replay.get("race") != race["race"]:
        problems.append(f"the replay is of race {replay.get('race')!r}, not {race['race']!r}")
    try:
        options = get_game(replay["game"]).resolve_options(replay["options"])
    except GameError as error:
        return [*problems, str(error)]
    if (replay["game"], options) != (event.game, dict(event.options)):
        problems.append(f"the race is of {replay['game']} {options}, not the slot's {event.game} {dict(event.options)}")
    if int(replay["seed"], 16) != dealt:
        problems.append(
            f"the race was dealt from seed {replay['seed']}, not the slot's {dealt:x} "
            f"(from the tournament seed, event {slot.event}, {event.game}, deal {slot.deal})"
        )
    expected = {spec.entrants[i].player: i for i in slot.entrants if i not in forfeited}
    seated = [seat["player"] for seat in replay["seats"]]
    for player in seated:
        if player not in expected:
            problems.append(f"the player {player} sat in the race without a seat at this slot (or after a forfeit)")
    for player, i in expected.items():
        if player not in seated:
            problems.append(f"{name(i)} did not sit in the race, yet has no forfeit")
    by_player = {row["player"]: row for row in replay["results"]}
    for row in rows:
        if row.forfeit or row.entrant not in slot.entrants:
            continue
        played = by_player.get(spec.entrants[row.entrant].player)
        if played is None:
            continue
        for key in ("score", "ended", "time", "moves"):
            if getattr(row, key) != played[key]:
                problems.append(
                    f"{name(row.entrant)}'s recorded {key} is {getattr(row, key)!r}, the race's result {played[key]!r}"
                )
    return problems


def _check_standings(
    spec: Spec, results: Mapping[int, list[Result]], summary: Mapping[str, Any], verdict: Verdict
) -> None:
    check = Check("the standings: every deal's matchpoints and the standings recomputed from the results")
    verdict.checks.append(check)
    recomputed = [row.to_map() for row in standings(spec, results)]
    claimed: Sequence[Mapping[str, Any]] = summary.get("standings") or []
    if summary.get("done") != len(results):
        check.problems.append(f"the summary says {summary.get('done')} races done, the results hold {len(results)}")
    if len(claimed) != len(recomputed):
        check.problems.append(f"the export's standings have {len(claimed)} rows, not {len(recomputed)}")
    for number, (mine, theirs) in enumerate(zip(recomputed, claimed, strict=False), start=1):
        for key, value in mine.items():
            if not _same(theirs.get(key), value):
                check.problems.append(
                    f"standings row {number} ({mine['name']}): {key} is {theirs.get(key)!r} in the export, "
                    f"{value!r} recomputed"
                )


def _same(claimed: object, value: object) -> bool:
    if isinstance(value, list):
        return (
            isinstance(claimed, list)
            and len(claimed) == len(value)
            and all(_same(a, b) for a, b in zip(claimed, value, strict=True))
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        return isinstance(claimed, int | float) and not isinstance(claimed, bool) and abs(claimed - value) <= TOLERANCE
    return claimed == value


__all__ = ["EXPORT_FORMAT", "Check", "Verdict", "is_export", "verify_export"]
