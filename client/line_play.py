"""Playing a game by typed lines: the board printed from the view, moves read as text.

Used by ``parlour play-local`` now and by the line-mode race client later: it only
needs a game, a view and a way to send a move, never the hidden state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from parlour.games import CONCEDE, Game, GameError, Move

HELP = """\
Type a move (its text form, e.g. as listed by '?'), or:
  ?         list the legal moves, numbered; then a number plays that move
  board     show the board again
  concede   give up: the game ends and is scored as it stands
  quit      leave (the same as concede)
  help      this text"""


def describe_end(game: Game[Any], view: dict[str, Any]) -> str:
    """One line saying how the game ended and its score."""
    direction = "higher is better" if game.higher_is_better else "lower is better"
    return f"Game over: {view['ended']}. Score: {view['score']} ({direction})."


def read_line(game: Game[Any], text: str, view: dict[str, Any], hints: list[Move]) -> Move | str | None:
    """What a typed line asks for: a move to send, text to print, or ``None`` for nothing.

    ``hints`` is filled when the player asks for the legal moves (``?``), so that a
    number then picks one of them. Raises :class:`GameError` for a line that is no move.
    """
    text = text.strip()
    word = text.lower()
    if not text:
        return None
    if word in ("help", "h"):
        return HELP
    if word == "board":
        return game.render(view)
    if word in ("?", "hint", "moves"):
        hints[:] = [Move.from_wire(m) for m in view.get("moves", [])]
        return "\n".join(f"{i:>3}. {m.text()}" for i, m in enumerate(hints, 1)) or "No legal move."
    if word in ("quit", "exit", "q"):
        return CONCEDE
    if text.isdigit() and hints and 1 <= int(text) <= len(hints):
        return hints[int(text) - 1]
    return game.parse_move(text)


def play_lines(
    game: Game[Any],
    view: dict[str, Any],
    send: Callable[[Move], dict[str, Any]],
    stdin: TextIO,
    stdout: TextIO,
) -> dict[str, Any]:
    """Run the prompt loop until the game ends or input runs out; return the last view.

    ``send`` applies a move and returns the new player view; it raises
    :class:`GameError` (e.g. ``IllegalMove``) to refuse it, and the loop says why.
    """

    def say(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    hints: list[Move] = []
    say(game.render(view))
    while view["ended"] is None:
        stdout.write("move> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            say("")
            view = send(CONCEDE)
            break
        try:
            wanted = read_line(game, line, view, hints)
            if isinstance(wanted, Move):
                view = send(wanted)
                hints.clear()
                wanted = game.render(view)
        except GameError as error:
            wanted = f"{type(error).__name__}: {error}"
        if wanted is not None:
            say(wanted)
    say(describe_end(game, view))
    return view


def play_local(game: Game[Any], state: Any, stdin: TextIO, stdout: TextIO) -> Any:
    """Play ``state`` of ``game`` in the terminal; return the final state."""
    current = [state]

    def send(move: Move) -> dict[str, Any]:
        current[0] = game.apply(current[0], move)
        return game.view(current[0], "player")

    play_lines(game, game.view(state, "player"), send, stdin, stdout)
    final = current[0]
    return final
