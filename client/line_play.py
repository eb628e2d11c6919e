"""Playing a game by typed lines: the board printed from the view, moves read as text.

Used by ``parlour play-local`` and by the line-mode race client (``parlour race``): it only
needs a game, a view and a way to send a move, never the hidden state.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TextIO

from parlour.games import CONCEDE, Game, GameError, IllegalMove, Move

HELP = """\
Type a move (its text form, e.g. as listed by '?'), or:
  ?         list the legal moves, numbered #1, #2, ...
  #N        play move N of that list (a bare number is read as a move, e.g. a pile, never as #N)
  undo      take your last move back (in a race, if it allows undo)
  board     show the board again
  time      the time left (in a race)
  concede   give up: the game ends and is scored as it stands
  quit      the same as concede, after asking
  help      this text
A move whose count can only be one number may leave the count out ('move c2 c5')."""


class Command(Enum):
    """What a typed line asks of the caller beyond a move: take one back, or tell the time."""

    UNDO = "undo"
    TIME = "time"


@dataclass
class Typing:
    """What earlier lines left for the next: the listed moves (``#N`` picks one), and whether
    ``quit`` waits for its yes or no."""

    hints: list[Move] = field(default_factory=list)
    quitting: bool = False


def describe_error(code: str, message: str) -> str:
    """How a refused move is shown, the same locally and in a race: ``illegal_move: pile 5 is empty``."""
    return f"{code}: {message}"


def describe_game_error(error: GameError) -> str:
    """A refusal from the rules engine, worded as the server words the same refusal."""
    if isinstance(error, IllegalMove):
        return describe_error("illegal_move", error.reason)
    return describe_error("bad_move", str(error))


def describe_end(game: Game[Any], view: dict[str, Any]) -> str:
    """One line saying how the game ended and its score."""
    direction = "higher is better" if game.higher_is_better else "lower is better"
    return f"Game over: {view['ended']}. Score: {view['score']} ({direction})."


def read_line(game: Game[Any], text: str, view: dict[str, Any], typing: Typing) -> Move | Command | str | None:
    """What a typed line asks for: a move to send, a :class:`Command`, text to print, or ``None``.

    Raises :class:`GameError` for a line that is no move. ``quit`` asks first: the next line
    says yes (:data:`CONCEDE` is returned) or no.
    """
    text = text.strip()
    word = text.lower()
    if typing.quitting:
        typing.quitting = False
        if word in ("y", "yes"):
            return CONCEDE
        if word in ("", "n", "no"):
            return "Not conceded: play on."
    if not text:
        return None
    if word in ("help", "h"):
        return HELP
    if word == "board":
        return game.render(view)
    if word in ("?", "hint", "moves"):
        typing.hints[:] = [Move.from_wire(m) for m in view.get("moves", [])]
        return "\n".join(f"{f'#{i}':>4} {m.text()}" for i, m in enumerate(typing.hints, 1)) or "No legal move."
    if word == "concede":
        return CONCEDE
    if word in ("quit", "exit", "q"):
        typing.quitting = True
        return "Quitting concedes your game: it ends and is scored as it stands. Concede? [y/N]"
    if word == "undo":
        return Command.UNDO
    if word in ("time", "clock"):
        return Command.TIME
    if word.startswith("#"):
        number = word[1:].strip()
        if not number.isdigit() or not 1 <= int(number) <= len(typing.hints):
            listed = f"#1 to #{len(typing.hints)}" if typing.hints else "none yet: type '?' first"
            raise GameError(f"no move {text} in the list ({listed})")
        return typing.hints[int(number) - 1]
    return with_count(game.parse_move(text), view)


def with_count(move: Move, view: dict[str, Any]) -> Move:
    """``move`` with its count filled in when it gives none and only one count is legal."""
    if move.count or not move.dst:
        return move
    legal = [Move.from_wire(m) for m in view.get("moves", [])]
    if move in legal:
        return move
    counted = [m for m in legal if (m.kind, m.src, m.dst) == (move.kind, move.src, move.dst) and m.count]
    return counted[0] if len(counted) == 1 else move


def play_lines(
    game: Game[Any],
    view: dict[str, Any],
    send: Callable[[Move], dict[str, Any]],
    stdin: TextIO,
    stdout: TextIO,
    undo: Callable[[], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run the prompt loop until the game ends or input runs out; return the last view.

    ``send`` applies a move and returns the new player view; it raises
    :class:`GameError` (e.g. ``IllegalMove``) to refuse it, and the loop says why.
    ``undo`` takes the last move back and returns the view (or raises :class:`GameError`).
    """

    def say(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    typing = Typing()
    read = line_reader(stdin, stdout)
    say(game.render(view))
    while view["ended"] is None:
        line = read("move> ")
        if not line:
            say("")
            view = send(CONCEDE)
            break
        try:
            wanted = read_line(game, line, view, typing)
            if wanted is Command.UNDO:
                if undo is None:
                    raise GameError("undo is not available here")
                view = undo()
                typing.hints.clear()
                wanted = game.render(view)
            elif wanted is Command.TIME:
                wanted = "No clock: a game played alone has no time limit."
            elif isinstance(wanted, Move):
                view = send(wanted)
                typing.hints.clear()
                wanted = game.render(view)
        except GameError as error:
            wanted = describe_game_error(error)
        if wanted is not None:
            say(wanted)
    say(describe_end(game, view))
    return view


def line_reader(stdin: TextIO, stdout: TextIO) -> Callable[[str], str]:
    """A function that shows a prompt and returns the next line ("" once input ends): on a terminal
    with line editing and history (the standard ``readline``), else read plainly."""
    if stdin is sys.stdin and stdout is sys.stdout and stdin.isatty() and stdout.isatty():
        import readline  # noqa: F401  (importing it gives input() line editing and history)

        def read_terminal(prompt: str) -> str:
            try:
                return input(prompt) + "\n"
            except EOFError:
                return ""

        return read_terminal

    def read(prompt: str) -> str:
        stdout.write(prompt)
        stdout.flush()
        return stdin.readline()

    return read


def play_local(game: Game[Any], state: Any, stdin: TextIO, stdout: TextIO) -> Any:
    """Play ``state`` of ``game`` in the terminal (``undo`` takes moves back); return the final state."""
    states = [state]

    def send(move: Move) -> dict[str, Any]:
        states.append(game.apply(states[-1], move))
        return game.view(states[-1], "player")

    def undo() -> dict[str, Any]:
        if len(states) == 1:
            raise IllegalMove("there is no move to undo")
        states.pop()
        return game.view(states[-1], "player")

    play_lines(game, game.view(state, "player"), send, stdin, stdout, undo)
    return states[-1]
