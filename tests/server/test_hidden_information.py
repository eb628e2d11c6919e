"""Every frame the server sends during races of all eight games: nothing hidden leaks.

Two racers play random legal moves while a spectator watches; every frame any of them
receives is recorded. After the race ends the seed is known, so the test rebuilds every
seat's state after every entry and proves, frame by frame, sent before the ``end``:

- a frame carrying a view (``start``, ``ack``, ``race_state``, ``watch``) shows no card
  that was face down in the state it describes (cards counted by their text, so two-deck
  games are checked too);
- every other frame shows no card at all;
- no frame holds the seed, the salt, or any state hash (all of which cover hidden cards).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from parlour.games import Move, game_names, get_game
from parlour.games.cards import TEXT
from tests.conftest import ServerProcess
from tests.server.test_bad_input import Raw

pytestmark = pytest.mark.asyncio
CARD = re.compile(r"^[A2-9TJQK][CDHS]$")
MOVES_PER_SEAT = 40


def strings(data: Any) -> list[str]:
    out: list[str] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return out


class Recorder(Raw):
    """A raw peer that keeps every frame it receives, decoded, in order."""

    def __init__(self, ws: Any) -> None:
        super().__init__(ws)
        self.frames: list[dict[str, Any]] = []

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        message = await super().recv(timeout)
        self.frames.append(message)
        return message


def visible_texts(game: Any, state: Any) -> Counter[str]:
    hidden = Counter(game.hidden_cards(state))
    return Counter(TEXT[c] for c in (Counter(game.cards(state)) - hidden).elements())


def shown_cards(data: Any) -> Counter[str]:
    return Counter(t for t in strings(data) if CARD.match(t))


@pytest.mark.parametrize("live_boards", [False, True])
@pytest.mark.parametrize("game_name", game_names())
async def test_no_frame_before_the_end_reveals_a_hidden_card_or_the_seed(
    server: ServerProcess, game_name: str, live_boards: bool
) -> None:
    game = get_game(game_name)
    peers = [await Recorder.connect(server.url, name) for name in ("ann", "bob", "sam")]
    a, b, watcher = peers
    create = {"type": "create", "game": game_name, "spectator_delay": 0, "live_boards": live_boards}
    race = (await a.call(create))["race"]["id"]
    await b.call({"type": "join", "race": race})
    await watcher.call({"type": "spectate", "race": race})
    await a.call({"type": "ready", "race": race})
    await b.call({"type": "ready", "race": race})
    chooser = random.Random(game_name)
    for peer in (a, b):
        start = await peer.until("start")
        view, seq = start["view"], 0
        for _ in range(MOVES_PER_SEAT):
            if not view["moves"]:
                break
            reply = await peer.call({"type": "move", "race": race, "seq": seq, "move": chooser.choice(view["moves"])})
            assert reply["type"] == "ack", reply
            view, seq = reply["view"], reply["seq"]
        await peer.call({"type": "snapshot", "race": race})
        if view["ended"] is None:
            await peer.call({"type": "concede", "race": race})
    for peer in peers:
        if not any(frame["type"] == "end" for frame in peer.frames):
            await peer.until("end")
    end = next(frame for frame in watcher.frames if frame["type"] == "end")
    replay = (await watcher.call({"type": "replay", "race": race}))["replay"]

    # Every seat's state after every entry, from the revealed seed.
    seed = int(replay["seed"], 16)
    states: dict[tuple[int, int], Any] = {}
    secrets_ = {replay["seed"], replay["salt"], f"{seed}"}
    for seat in replay["seats"]:
        stack = [game.deal(seed, replay["options"])]
        states[(seat["seat"], 0)] = stack[-1]
        for number, entry in enumerate(seat["log"], 1):
            stack.append(game.apply(stack[-1], Move.from_wire(entry)))
            states[(seat["seat"], number)] = stack[-1]
            secrets_.add(game.state_hash(stack[-1]))
        secrets_.add(game.state_hash(stack[0]))
    assert end["seed"] == replay["seed"]
    seat_of = {a.player: 0, b.player: 1}

    checked = 0
    for peer in peers:
        for frame in peer.frames:
            if frame["type"] == "end":
                break
            texts = strings(frame)
            leaked = secrets_.intersection(texts)
            assert not leaked, f"{frame['type']} frame holds a secret: {leaked}"
            assert not any(replay["seed"] in t for t in texts)
            kind = frame["type"]
            if kind in ("start", "ack", "race_state", "watch"):
                seat = frame["seat"] if "seat" in frame else seat_of[peer.player]
                state = states[(seat, frame["seq"])]
                leaked_cards = shown_cards(frame["view"]) - visible_texts(game, state)
                assert not leaked_cards, f"{kind} frame shows face-down cards {sorted(leaked_cards)}"
                checked += 1
            elif kind == "spectating":
                for board in frame["boards"]:
                    state = states[(board["seat"], board["seq"])]
                    assert not shown_cards(board["view"]) - visible_texts(game, state)
            else:
                cards = [t for t in texts if CARD.match(t)]
                assert not cards, f"{kind} frame names cards {cards}"
    # The views really were examined: at least one per log entry (its ack) and one per start, and
    # the spectator's boards: every entry's with live boards, else each seat's final one.
    watched = sum(1 for frame in watcher.frames if frame["type"] == "watch")
    assert checked >= sum(len(seat["log"]) for seat in replay["seats"]) + 2 + watched
    assert watched == (sum(len(seat["log"]) + 1 for seat in replay["seats"]) if live_boards else 2)
