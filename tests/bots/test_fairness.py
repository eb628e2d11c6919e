"""No bot ever receives anything but what a racer receives.

A bot is handed a Turn built from a real player's view, then plays a few moves; nothing reachable
from the Turn or from the bot may be a game state, or hold the cards still hidden in their hidden
order (a run of them as card numbers or texts, either way round). "Reachable" walks what the objects
refer to (``gc.get_referents``: instance dicts, slots, containers, closures), but not classes,
modules or a function's globals, which every object reaches and which hold nothing of one deal.
"""

from __future__ import annotations

import dataclasses
import gc
import random
import types
from collections.abc import Iterator
from typing import Any

import pytest

from parlour.bots import Bot, Turn, installed_bots
from parlour.bots.arena import play, run_arena
from parlour.games import Ending, Game, get_game
from parlour.games.cards import TEXT
from tests.bots.tiny_bots import Spy, plain_data

HIDDEN_GAMES = ["golf", "german-patience", "the-chance", "carpet", "gate", "chris-cross-pairs"]
SEEDS = [1, 2]
# This many hidden cards in a row, in their hidden order, give the order away. Long enough that a bot's own
# drawn orders never match by chance (for Golf's 16 hidden cards: about 3 in 10 million per drawn order).
RUN = 8
LIMIT = 500_000  # objects walked at most: a bot holding more than this is a bug of its own
MOVES = 3  # moves each bot plays, searched after each
BUDGET = 0.1  # seconds a move may take: this is about what bots see, not how well they play

OPAQUE = (type, types.ModuleType, types.CodeType, types.BuiltinFunctionType, types.FrameType)


def reachable(*roots: object) -> Iterator[object]:
    """Every object reachable from ``roots`` (each once), bounded as the module docstring says."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        assert len(seen) <= LIMIT, "the walk went on too long"
        yield obj
        if isinstance(obj, OPAQUE):
            continue
        if isinstance(obj, types.FunctionType):
            stack += [cell.cell_contents for cell in obj.__closure__ or () if cell.cell_contents is not None]
            stack += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
            continue
        stack += gc.get_referents(obj)


def is_state(obj: object) -> bool:
    """Whether ``obj`` is a game state: a dataclass of ``parlour.games`` with ``options`` and ``ended``."""
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return False
    names = {f.name for f in dataclasses.fields(obj)}
    return type(obj).__module__.startswith("parlour.games") and {"options", "ended"} <= names


def hidden_runs(game: Game[Any], state: Any) -> set[tuple[object, ...]]:
    """Every run of RUN cards of the hidden order, as ints, as ints of one deck, and as texts, both ways."""
    cards = game.hidden_cards(state)
    runs: set[tuple[object, ...]] = set()
    for form in (list(cards), [c % 52 for c in cards], [TEXT[c] for c in cards]):
        for seq in (form, form[::-1]):
            runs.update(tuple(seq[i : i + RUN]) for i in range(len(seq) - RUN + 1))
    return runs


def leaks(game: Game[Any], state: Any, *roots: object, states_allowed: bool) -> list[str]:
    """What of the real ``state``'s secrets is reachable from ``roots``: states (any, unless
    ``states_allowed``, as a bot's own drawn states are: then only the real one) and hidden runs."""
    runs = hidden_runs(game, state)
    texts = {" ".join(str(c) for c in run) for run in runs if isinstance(run[0], str)}
    texts |= {"".join(str(c) for c in run) for run in runs if isinstance(run[0], str)}
    found = []
    for obj in reachable(*roots):
        if is_state(obj) and (not states_allowed or obj is state or obj == state):
            found.append(f"a game state: {obj!r:.120}")
        elif isinstance(obj, tuple | list) and len(obj) >= RUN:
            items = tuple(x if isinstance(x, int | str) else None for x in obj)  # None matches no card
            if any(items[i : i + RUN] in runs for i in range(len(items) - RUN + 1)):
                found.append(f"hidden cards in order: {items!r:.120}")
        elif isinstance(obj, str) and len(obj) >= 2 * RUN and any(t in obj for t in texts):
            found.append(f"hidden cards in order in a text: {obj!r:.120}")
    return found


def bot_classes() -> list[Any]:
    return [pytest.param(entry.bot, id=entry.name) for entry in installed_bots() if entry.bot is not None]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", HIDDEN_GAMES)
def test_a_turn_holds_no_state_and_no_hidden_order(name: str, seed: int) -> None:
    game = get_game(name)
    state = game.deal(seed)
    assert len(game.hidden_cards(state)) > RUN  # else this game hides nothing to look for
    turn = Turn.of(game.view(state, "player"), 0)
    assert leaks(game, state, turn, states_allowed=False) == []
    assert plain_data(turn.view)


@pytest.mark.parametrize("bot", bot_classes())
@pytest.mark.parametrize("name", HIDDEN_GAMES)
def test_a_bot_playing_holds_no_real_state_and_no_hidden_order(name: str, bot: type[Bot]) -> None:
    game = get_game(name)
    if not bot.plays(name):
        pytest.skip(f"{bot.name} does not play {name}")
    state = game.deal(SEEDS[0])
    player = bot(5)
    turn = Turn.of(game.view(state, "player"), 0, budget=BUDGET)
    player.start(turn)
    for seq in range(MOVES):
        move = player.choose(turn)
        assert leaks(game, state, player, turn, states_allowed=True) == []
        state = game.apply(state, move)
        if state.ended is not None:
            break
        turn = Turn.of(game.view(state, "player"), seq + 1, budget=BUDGET)


class Cheat(Bot):
    """What the test must catch: a bot that somehow got hold of the state, or of the stock's order."""

    name = "cheat"
    summary = "Holds what it must not."

    def __init__(self, seed: int, secret: object) -> None:
        super().__init__(seed)
        self.notes = {"later": [secret]}

    def choose(self, turn: Turn) -> Any:
        return turn.moves[0]


@pytest.mark.parametrize("name", HIDDEN_GAMES)
def test_the_search_finds_a_state_or_the_hidden_order_when_a_bot_holds_one(name: str) -> None:
    game = get_game(name)
    state = game.deal(SEEDS[0])
    hidden = game.hidden_cards(state)
    secrets: list[object] = [
        state,
        tuple(hidden),
        [TEXT[c] for c in hidden[2 : 2 + RUN]],
        " ".join(TEXT[c] for c in reversed(hidden)),
        game.to_text(state),
    ]
    for secret in secrets:
        assert leaks(game, state, Cheat(0, secret), states_allowed=True), f"missed {secret!r:.80}"
    closure = lambda: hidden  # noqa: E731 - a closure over the hidden cards
    assert leaks(game, state, Cheat(0, closure), states_allowed=True)
    drawn = drawn_state(game, state)
    if drawn is not None and drawn != state:  # a drawn state is the bot's own, unless it is the real one
        assert not any("state" in leak for leak in leaks(game, state, Cheat(0, drawn), states_allowed=True))
        assert leaks(game, state, Cheat(0, drawn), states_allowed=False)


def drawn_state(game: Game[Any], state: Any) -> Any | None:
    """A state drawn from the player's view of ``state``, or None if the game cannot draw yet."""
    try:
        return game.draw(game.view(state, "player"), random.Random(1))
    except NotImplementedError:
        return None


@pytest.mark.parametrize("name", HIDDEN_GAMES)
def test_in_process_play_hands_the_bot_the_players_views_and_nothing_else(name: str) -> None:
    game = get_game(name)
    spy = Spy(3)
    played = play(spy, game, SEEDS[1], max_moves=60)
    assert len(spy.turns) == len(spy.moves) == played.moves > 0
    state = game.deal(SEEDS[1])
    for seq, (turn, move) in enumerate(zip(spy.turns, spy.moves, strict=True)):
        assert turn.seq == seq
        assert turn.view == game.view(state, "player")
        assert leaks(game, state, turn, states_allowed=False) == []
        state = game.apply(state, move)
    if state.ended is None:
        state = game.end(state, Ending.OUT_OF_TIME)
    assert spy.finished == game.view(state, "player")


def test_the_arena_hands_its_bots_nothing_but_turns_of_plain_data_in_every_worker() -> None:
    # The spy raises at once on anything else, which the arena reports as an ArenaError.
    for name in HIDDEN_GAMES:
        run_arena(name, ["tests.bots.tiny_bots:Spy"], 2, seed=1, jobs=1)
    run_arena("golf", ["tests.bots.tiny_bots:Spy"], 4, seed=1, jobs=2)


def test_the_spy_objects_to_a_turn_carrying_more_than_a_view() -> None:
    game = get_game("golf")
    state = game.deal(1)
    turn = Turn.of(game.view(state, "player"), 0)
    Spy(0).choose(turn)
    with pytest.raises(AssertionError, match="more than a view"):
        Spy(0).choose(dataclasses.replace(turn, view={**turn.view, "stock": state.stock}))
