"""Checking a tournament export (pure): an honest export built here with the real rules engine, as
the director builds one, passes every check; each kind of tampering is caught and named."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from parlour.games import CONCEDE, get_game, score_wire
from parlour.protocol.replay import REPLAY_FORMAT, commitment, ranked_results
from parlour.protocol.tournament import Entrant, Result, deal_seed, make_spec, schedule, standings
from parlour.protocol.tournament_verify import EXPORT_FORMAT, is_export, verify_export

SEED = 0xC0FFEE
SALT = bytes(range(16))
TID = "t0123456789"


def honest_export(
    format: str = "duplicate",
    games: tuple[tuple[str, dict[str, Any] | None], ...] = (("golf", None),),
    entrants: int = 3,
    deals: int = 2,
    forfeits: frozenset[tuple[int, int]] = frozenset(),
) -> dict[str, Any]:
    """A finished tournament's export: at each slot, the k-th entrant seated plays the first legal
    move k + 1 times, then concedes; ``forfeits`` holds (slot, entrant) pairs who never sat."""
    spec = make_spec(format, games, deals, [Entrant(f"p{i}", f"player {i}", i % 2 == 0) for i in range(entrants)])
    races, results = [], {}
    for slot in schedule(spec):
        event = spec.events[slot.event]
        game = get_game(event.game)
        dealt = deal_seed(SEED, slot.event, event.game, slot.deal)
        seats, rows, recorded = [], [], []
        for k, i in enumerate(slot.entrants):
            if (slot.index, i) in forfeits:
                untouched = score_wire(game.score(game.deal(dealt, event.options)))
                recorded.append(Result(i, untouched, "conceded", 0.0, 0, forfeit=True))
                continue
            state, log = game.deal(dealt, event.options), []
            for _ in range(k + 1):
                moves = game.legal_moves(state)
                if state.ended is not None or not moves:
                    break
                state = game.apply(state, moves[0])
                log.append(list(moves[0].wire()))
            played = len(log)
            if state.ended is None:
                state = game.apply(state, CONCEDE)
                log.append(["concede"])
            player = spec.entrants[i]
            row = {"seat": len(seats), "player": player.player, "name": player.name}
            row |= {
                "score": score_wire(game.score(state)),
                "ended": state.ended.value,
                "time": 1.0 + k,
                "moves": played,
            }
            seats.append(
                {"seat": len(seats), "player": player.player, "name": player.name, "bot": player.bot, "log": log}
            )
            rows.append(row)
            recorded.append(Result(i, row["score"], row["ended"], row["time"], row["moves"]))
        ranked = [{**row, "place": place} for place, row in enumerate(ranked_results(rows, game.higher_is_better), 1)]
        race_id = f"{TID}-{slot.index}"
        replay = {
            "format": REPLAY_FORMAT,
            "race": race_id,
            "game": event.game,
            "options": dict(event.options),
            "seed": f"{dealt:x}",
            "salt": SALT.hex(),
            "commitment": commitment(dealt, SALT),
            "settings": {"game": event.game, "options": dict(event.options), "undo": False},
            "seats": seats,
            "results": ranked,
        }
        races.append({"slot": slot.index, "race": race_id, "replay": replay if seats else None})
        results[slot.index] = recorded
    summary = {
        "id": TID,
        "name": "test",
        **spec.to_map(),
        "people": 0,
        "rated": False,
        "time_limit": 600,
        "forfeit_after": 60.0,
        "public": True,
        "status": "finished",
        "races": len(schedule(spec)),
        "commitment": commitment(SEED, SALT),
        "seed": f"{SEED:x}",
        "salt": SALT.hex(),
        "done": len(results),
        "standings": [row.to_map() for row in standings(spec, results)],
    }
    return {
        "format": EXPORT_FORMAT,
        "tournament": summary,
        "spec": spec.to_map(),
        "results": {str(k): [r.to_map() for r in v] for k, v in results.items()},
        "races": races,
    }


@pytest.mark.parametrize(
    ("format", "games"),
    [
        ("duplicate", (("golf", None),)),
        ("mixed", (("golf", None), ("the-chance", {"sequence": "suit"}), ("gaps", None))),
        ("head-to-head", (("cheer", None),)),
    ],
)
def test_an_honest_export_passes_every_check(format: str, games: tuple[tuple[str, Any], ...]) -> None:
    export = honest_export(format, games, entrants=3)
    verdict = verify_export(export)
    assert verdict.problems == []
    assert verdict.honest and len(verdict.checks) == 5
    assert is_export(export) and not is_export({"format": REPLAY_FORMAT})


def test_forfeits_check_out_and_a_race_every_entrant_forfeited_has_no_replay() -> None:
    export = honest_export(entrants=2, forfeits=frozenset({(0, 1), (1, 0), (1, 1)}))
    assert export["races"][1]["replay"] is None
    assert verify_export(export).problems == []


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change of one value, at a path like ``tournament.standings.0.percentage``."""

    def change(export: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = export
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value

    return change


def _recorded_score(export: dict[str, Any]) -> None:
    export["results"]["0"][0]["score"] += 1


def _replayed_and_recorded_score(export: dict[str, Any]) -> None:
    """A forger who changes a score everywhere it is written (but cannot change what the log gives)."""
    replay = export["races"][0]["replay"]
    player = replay["results"][0]["player"]
    replay["results"][0]["score"] -= 1
    entrant = next(i for i, e in enumerate(export["spec"]["entrants"]) if e["player"] == player)
    next(r for r in export["results"]["0"] if r["entrant"] == entrant)["score"] -= 1


def _move(export: dict[str, Any]) -> None:
    log = export["races"][0]["replay"]["seats"][1]["log"]
    log[0] = ["play", "p9"]  # golf has seven piles


def _missing(export: dict[str, Any]) -> None:
    del export["races"][1]
    del export["results"]["1"]


def _extra(export: dict[str, Any]) -> None:
    export["races"].append({**copy.deepcopy(export["races"][0]), "slot": 99})


def _twice(export: dict[str, Any]) -> None:
    export["races"].append(copy.deepcopy(export["races"][0]))


def _other_seed(export: dict[str, Any]) -> None:
    """Another tournament seed, committed to properly: the races were not dealt from it."""
    export["tournament"]["seed"] = f"{SEED + 1:x}"
    export["tournament"]["commitment"] = commitment(SEED + 1, SALT)


def _stranger(export: dict[str, Any]) -> None:
    export["races"][0]["replay"]["seats"][0]["player"] = "p-stranger"


def _forfeit_scored(export: dict[str, Any]) -> None:
    export["results"]["0"][1]["score"] = 0


TAMPERING = {
    "a recorded score": (_recorded_score, "player 0's recorded score is"),
    "a score changed everywhere": (_replayed_and_recorded_score, "the result says score"),
    "a move": (_move, "seat 1: entry 0 ['play', 'p9'] is refused"),
    "a missing race": (_missing, "slot 1 (round 1, event 0 deal 1, table 0) has no race: missing"),
    "an extra race": (_extra, "(slot 99) is not in the schedule: extra"),
    "a race twice": (_twice, "slot 0 has two races"),
    "a race's id": (_set("races.0.race", "t999-0"), "slot 0's race is 't999-0'"),
    "a standing": (_set("tournament.standings.0.percentage", 12.5), "standings row 1 (player "),
    "the salt": (_set("tournament.salt", "ff" * 16), "do not match the commitment"),
    "the seed": (_other_seed, "the race was dealt from seed"),
    "a seat": (_stranger, "the player p-stranger sat in the race"),
    "the entrants": (_set("tournament.entrants.0.name", "mallory"), "the summary's entrants"),
    "a deal count": (_set("spec.deals", 3), "slot 2 (round 2, event 0 deal 2, table 0) has no race"),
}


@pytest.mark.parametrize("change", TAMPERING, ids=list(TAMPERING))
def test_tampering_is_caught_and_named(change: str) -> None:
    tamper, reason = TAMPERING[change]
    export = honest_export(entrants=2)
    tamper(export)
    verdict = verify_export(export)
    assert not verdict.honest
    assert any(reason in problem for problem in verdict.problems), verdict.problems


def test_a_forfeit_scored_other_than_the_untouched_deal_is_caught() -> None:
    export = honest_export(entrants=2, forfeits=frozenset({(0, 1)}))
    _forfeit_scored(export)
    problems = verify_export(export).problems
    assert any("player 1's forfeit is recorded as score 0" in p for p in problems), problems


def test_a_tournament_not_finished_or_malformed_is_a_problem_not_an_exception() -> None:
    export = honest_export(entrants=2)
    del export["tournament"]["seed"]
    assert "the seed and salt are not revealed" in verify_export(export).problems
    assert verify_export({"format": EXPORT_FORMAT}).problems == [
        "the export is malformed: the field 'tournament' is missing"
    ]
    broken = honest_export(entrants=2)
    broken["races"] = 5
    assert verify_export(broken).problems[0].startswith("the export is malformed: TypeError")
    assert verify_export({"format": REPLAY_FORMAT}).problems == [
        f"not a tournament export in the format {EXPORT_FORMAT!r}"
    ]
