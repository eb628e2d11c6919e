"""An example third-party bot for Parlour: ``eager`` plays a card to a foundation whenever it can."""

from parlour.bots import Bot, Turn
from parlour.games import Move


class EagerBot(Bot):
    name = "eager"
    summary = "Plays a card to a foundation whenever it can, else a random move (an example bot)."
    games = None  # every game; or a frozenset of game names

    def choose(self, turn: Turn) -> Move:
        # turn.moves are the legal moves of turn.view, what a racer sees; self.rng is seeded.
        to_foundation = [move for move in turn.moves if move.dst == "f"]
        return self.rng.choice(to_foundation or turn.moves)
