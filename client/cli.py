"""The ``parlour`` command line.

parlour games                               list the games and their options
parlour deal GAME [--seed N] [-o K=V]       print a deal's full text layout
parlour play [--server URL]                 the terminal app: connect, the lobby, create or join races
parlour play --practice [GAME] [--bot NAME] the terminal app: practise any game (racing a bot here)
parlour play --race GAME --bot NAME         the terminal app: race a bot on the server at once
parlour play --replay FILE|RACE             the terminal app: step through a saved replay or a finished race
parlour play --web [--host H --port P]      serve the terminal app to browsers (each one a new player)
parlour play-local GAME [--seed N]          play a game in this terminal, by typed lines
parlour solve golf --seed N | --board FILE  is a Golf board winnable? how?
parlour arena GAME --bots a,b --deals N     play bots on the same deals here and compare them
parlour race create GAME [--bot NAME] | join CODE | resume [RACE]   race on a server (or a bot) here
parlour watch RACE                          print a race's boards as they change
parlour races / leave RACE / replay RACE    your races, the lobby, the bots; give up a seat; save a replay
parlour verify FILE                         check a saved replay or tournament export
parlour tournament create GAME --bots a,b | join | watch | standings | export | start | list   tournaments
parlour ratings GAME [--bots|--people]      a game's leaderboard, from rated tournaments
parlour bots                                list the installed bots
parlour bot run NAME                        connect a bot to a server; it takes invitations to races
parlour serve [--house-bots a,b]            run the race server (and bots beside it)

The client commands take --server URL (default $PARLOUR_SERVER, else ws://127.0.0.1:8765),
--password (default $PARLOUR_PASSWORD), --profile NAME, --identity FILE and --name NAME,
before or after the action.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import secrets
import socket
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from parlour.games import Game, GameError, engine_build, game_names, get_game
from parlour.games.shuffle import SEED_BITS, check_seed
from parlour.protocol.tournament import MAX_MOVES, MAX_MOVES_LIMIT
from parlour.server.logs import LOG_FORMATS

T = TypeVar("T")


class CommandError(Exception):
    """A user error the command reports in one line, exiting with status 2."""


def parse_seed(text: str) -> int:
    """A seed from the command line: decimal, or hex with ``0x``."""
    try:
        seed = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    try:
        return check_seed(seed)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def bounded(low: int, high: int) -> Any:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {value}")
        return value

    return read


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"an option is written NAME=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


def new_seed() -> int:
    """A fresh random seed of 128 bits."""
    return secrets.randbits(128)


def cmd_games(args: argparse.Namespace) -> int:
    for name in game_names():
        game = get_game(name)
        direction = "higher" if game.higher_is_better else "lower"
        low, high = game.score_range
        print(f"{name:<18} {game.title}: {game.summary}")
        print(f"{'':<18} score {low} to {high}, {direction} is better")
        for option in game.options_spec:
            values = "|".join(str(v).lower() if isinstance(v, bool) else str(v) for v in option.values)
            default = str(option.default).lower() if isinstance(option.default, bool) else option.default
            print(f"{'':<18} option {option.name}={values} (default {default}): {option.help}")
    return 0


def read_text_file(path: str) -> str:
    """The text of a file named on the command line; a :class:`CommandError` if it cannot be read or is
    not UTF-8."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise CommandError(f"cannot read {path}: it is not UTF-8 text") from None


def load_state(game: Game[Any], args: argparse.Namespace) -> tuple[Any, str]:
    """The state named by ``--layout FILE`` or ``--seed N`` (a fresh seed if neither)."""
    options = parse_options(args.option)
    if getattr(args, "layout", None):
        if args.seed is not None:
            raise CommandError("give --seed or --layout, not both: a layout is a whole deal already")
        return game.from_text(read_text_file(args.layout), options), f"layout {args.layout}"
    seed = new_seed() if args.seed is None else args.seed
    return game.deal(seed, options), f"seed {seed}"


def cmd_deal(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    state, origin = load_state(game, args)
    if args.view:
        print(game.render(game.view(state, "player")))
    else:
        print(f"# {game.title}, {origin}", file=sys.stderr)
        sys.stdout.write(game.to_text(state))
    return 0


def cmd_play_local(args: argparse.Namespace) -> int:
    from parlour.client.line_play import play_local

    game = get_game(args.game)
    state, origin = load_state(game, args)
    print(f"{game.title} ({origin}). Type 'help' for commands, '?' for the legal moves.")
    play_local(game, state, sys.stdin, sys.stdout)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    if args.web_session:
        from parlour.client.web import run_session

        return run_session(args.server)
    if args.race is None:
        if args.bot is not None and not args.practice:
            raise CommandError("--bot is for --race GAME (a bot online) or --practice (an installed bot)")
        if args.time_limit is not None or args.undo:
            raise CommandError("--time-limit and --undo are for --race GAME")
    if args.web:
        return play_web(args)
    if args.host is not None or args.port is not None or args.public_url is not None:
        raise CommandError("--host, --port and --public-url are for --web")
    if args.replay is not None:
        return play_replay(args)
    if args.race is not None:
        return play_race(args)
    if not args.practice:
        if args.game is not None or args.seed is not None or args.option:
            raise CommandError("GAME, --seed and -o are for practice: 'parlour play --practice GAME'")
        from parlour.client.tui.connect import LobbyApp

        who = account(args)
        who.keeper.check()  # a damaged identities file is refused before the screen is taken over
        LobbyApp(who).run()
        return 0
    options = check_practice(args)
    if args.bot is not None:  # an unknown bot's error, before the screen is taken over
        from parlour.bots import BotNotFound, load_bot

        try:
            bot = load_bot(args.bot)
        except BotNotFound as error:
            raise CommandError(str(error)) from None
        if args.game is not None and not bot.plays(args.game):
            raise CommandError(f"the bot {args.bot} does not play {args.game}")
    from parlour.client.tui.app import PlayApp

    PlayApp(args.game, args.seed, options, bot=args.bot).run()
    return 0


def check_practice(args: argparse.Namespace) -> dict[str, str]:
    """The options of ``--practice [GAME] [--seed N] [-o K=V]``, checked before any screen is taken over."""
    if args.game is not None:
        get_game(args.game)  # an unknown game's error
    options = parse_options(args.option)
    if args.game is None and (options or args.seed is not None):
        raise CommandError("--seed and -o need a GAME")
    if args.game is not None:
        get_game(args.game).resolve_options(options)
    return options


def play_web(args: argparse.Namespace) -> int:
    """``parlour play --web``: serve ``parlour play`` (or ``--practice``) to browsers; see
    :mod:`parlour.client.web` for what a browser session is."""
    from parlour.client.web import (
        DEFAULT_WEB_HOST,
        DEFAULT_WEB_PORT,
        WebUnavailable,
        public_url_for,
        serve,
        session_command,
    )

    if args.race is not None:
        raise CommandError("--web serves the lobby or --practice, not --race")
    if args.name is not None or args.identity is not None or args.profile != "default":
        raise CommandError("--web makes every browser a new player: it takes no --name, --profile or --identity")
    if args.password is not None and args.password != os.environ.get(PASSWORD_VARIABLE):
        raise CommandError("--web passes no password on: browser users type it on the connect screen")
    if args.practice:
        check_practice(args)
        session = ["play", "--practice"]
        session += [] if args.game is None else [args.game]
        session += [] if args.seed is None else ["--seed", str(args.seed)]
        for option in args.option:
            session += ["-o", option]
        session += [] if args.bot is None else ["--bot", args.bot]
    else:
        if args.game is not None or args.seed is not None or args.option:
            raise CommandError("GAME, --seed and -o are for practice: 'parlour play --web --practice GAME'")
        session = ["play", "--web-session", "--server", args.server]
    host = DEFAULT_WEB_HOST if args.host is None else args.host
    port = DEFAULT_WEB_PORT if args.port is None else args.port
    try:
        serve(session_command(session), host, port, args.public_url or public_url_for(host, port))
    except WebUnavailable as error:
        raise CommandError(str(error)) from None
    except OSError as error:  # asyncio words a bind error at length: the errno's own text is enough
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise CommandError(f"cannot serve on {host}:{port}: {reason}") from None
    return 0


def play_race(args: argparse.Namespace) -> int:
    """``parlour play --race GAME --bot NAME``: create a race on the server, invite the bot, play it in the app."""
    if args.practice or args.game is not None:
        raise CommandError("--race plays on a server: it takes no --practice and no GAME")
    if args.bot is None:
        raise CommandError("name the bot to race: --bot NAME (see 'parlour races' for the bots online)")
    get_game(args.race)
    from parlour.client.line_race import connect
    from parlour.client.tui.racing import RaceApp

    who = account(args)
    who.keeper.check()  # a damaged identities file is refused before the screen is taken over
    time_limit = DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit
    RaceApp(lambda: connect(who), args.race, args.bot, time_limit=time_limit, undo=args.undo).run()
    return 0


def play_replay(args: argparse.Namespace) -> int:
    """``parlour play --replay FILE|RACE``: a saved replay file (offline), else a finished race's, from the server."""
    if args.practice or args.game is not None or args.race is not None:
        raise CommandError("--replay shows a finished race: it takes no --practice, GAME or --race")
    from parlour.client.tui.replay import ReplayApp
    from parlour.client.tui.replaying import ReplayRefused
    from parlour.protocol.text import printable

    source: Any = args.replay
    if not Path(source).is_file():
        if "/" in source or source.endswith(".json"):
            raise CommandError(f"no replay file {source}")
        from parlour.client.line_race import fetch_replay

        who = account(args)
        source = run_client(who.server, fetch_replay(who, args.replay))
    try:
        app = ReplayApp(source)
    except ReplayRefused as error:
        raise CommandError(f"cannot show {args.replay}: {printable('; '.join(error.problems))}") from None
    app.run()
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    from parlour.games.golf_solver import solve
    from parlour.protocol.text import plural

    if args.game != "golf":
        raise CommandError(f"only golf has a solver so far, not {args.game!r}")
    game = get_game("golf")
    boards: list[tuple[str, Any]] = []
    for path in args.board:
        try:
            boards.append((path, game.from_text(read_text_file(path))))
        except GameError as error:
            raise CommandError(f"{path}: {error}") from None
    boards += [(str(seed), game.deal(seed)) for seed in args.seed]
    if not boards:
        raise CommandError("name a board: --seed N or --board FILE (either may repeat)")
    for label, state in boards:
        solution = solve(state)
        line = [move.text() for move in solution.line]
        if args.json:
            print(json.dumps({"board": label, "winnable": solution.winnable, "line": line}))
        elif solution.winnable:
            print(f"{label}: winnable in {plural(len(line), 'move')}: {', '.join(line)}")
        else:
            print(f"{label}: not winnable")
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from parlour.bots import BotNotFound
    from parlour.bots.arena import ArenaError, run_arena
    from parlour.bots.report import arena_records, arena_text

    bots = [name.strip() for name in args.bots.split(",") if name.strip()]
    if not bots:
        raise CommandError("name the bots to play: --bots random,greedy")
    if len(set(bots)) != len(bots):
        raise CommandError(f"a bot is named twice in --bots {args.bots}")
    if args.deals < 1 or (args.jobs is not None and args.jobs < 1):
        raise CommandError("--deals and --jobs are at least 1")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # so that --bots module:Class finds a module in this directory
    seed = new_seed() if args.seed is None else args.seed
    try:
        result = run_arena(
            get_game(args.game),
            bots,
            args.deals,
            seed=seed,
            options=parse_options(args.option),
            jobs=args.jobs,
            ceiling=args.ceiling,
            progress=sys.stderr if sys.stderr.isatty() else None,
        )
    except (BotNotFound, ArenaError) as error:
        raise CommandError(str(error)) from None
    if args.json:
        for record in arena_records(result):
            print(json.dumps(record))
    else:
        print(arena_text(result))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check each file (``-``: standard input): a race replay, or a tournament export (told apart by their
    ``format``)."""
    from parlour.protocol.replay import verify_replay
    from parlour.protocol.text import plural
    from parlour.protocol.tournament_verify import is_export

    if args.replay.count("-") > 1:
        raise CommandError("standard input is read once: give - once")
    status = 0
    for name in args.replay:
        path = "stdin" if name == "-" else name
        try:
            data = json.loads(sys.stdin.read() if name == "-" else Path(name).read_text())
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise CommandError(f"{path} is not JSON: {error}") from None
        if is_export(data):
            status = max(status, verify_tournament(path, data))
            continue
        problems = verify_replay(data) if isinstance(data, dict) else ["a replay is a JSON object"]
        if problems:
            status = 1
            print(f"{path}: REJECTED")
            for problem in problems:
                print(f"  - {problem}")
        else:
            seats = plural(len(data["seats"]), "seat")
            print(f"{path}: OK: {data['game']}, {seats}, commitment, every log and every score check out")
    return status


def verify_tournament(path: str, export: dict[str, Any]) -> int:
    """Check a tournament export and print each check and every problem: 0 if all hold, else 1."""
    from parlour.protocol.text import printable
    from parlour.protocol.tournament_verify import verify_export

    verdict = verify_export(export)
    tournament = export.get("tournament")
    name = printable(str(tournament.get("id", "?"))) if isinstance(tournament, dict) else "?"
    print(f"{path}: tournament {name}")
    for check in verdict.checks:
        print(f"  {'ok' if not check.problems else 'FAILED'}: {printable(check.what)}")
        for problem in check.problems:
            print(f"    - {printable(problem)}")
    if verdict.honest:
        print(f"{path}: OK: every check holds")
        return 0
    print(f"{path}: REJECTED: {len(verdict.problems)} problem{'s' if len(verdict.problems) != 1 else ''}")
    return 1


DEFAULT_SERVER = "ws://127.0.0.1:8765"
DEFAULT_TIME_LIMIT = 600  # seconds a race created from the command line lasts


def server_url(text: str) -> str:
    """A server's URL: ``ws://`` is added to one without a scheme (``host:8765``). It names a host, and its
    port, if given, is a whole number from 1 to 65535."""
    from urllib.parse import urlsplit

    text = text.strip()
    if "://" not in text:
        text = "ws://" + text
    if not text.startswith(("ws://", "wss://")):
        raise argparse.ArgumentTypeError(f"a server's URL starts with ws:// or wss://, not {text!r}")
    try:
        parts = urlsplit(text)
    except ValueError as error:  # a bracketed IPv6 address left open
        raise argparse.ArgumentTypeError(f"{text!r} is not a URL: {error}") from None
    if not parts.hostname:
        raise argparse.ArgumentTypeError(f"a server's URL names its host, e.g. ws://HOST:8765, not {text!r}")
    try:
        port = parts.port
    except ValueError:  # not a number, or past 65535
        port = 0
    if port is not None and not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a server's port is a whole number from 1 to 65535, in {text!r}")
    return text


def public_url(text: str) -> str:
    """``--public-url``: the address browsers use, an http:// or https:// URL naming a host."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018  (raises ValueError for a port that is not 0 to 65535)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"the address browsers use is an http:// or https:// URL, not {text!r}")
    return text.strip()


def account(args: argparse.Namespace) -> Any:
    """The connection options of a client command."""
    from parlour.client.line_race import Account

    return Account(
        server=args.server,
        name=args.name,
        profile=args.profile,
        identity=Path(args.identity) if args.identity else None,
        password=args.password,
    )


def run_client(server: str, session: Coroutine[Any, Any, T]) -> T:
    """Run a client session, turning a refusal, an unreachable server or a file that cannot be written into
    one clear line (a :class:`CommandError`); a broken pipe on stdout is left to :func:`main`."""
    import asyncio

    from websockets.exceptions import InvalidHandshake, InvalidURI

    from parlour.client.connection import ClientError, unreachable_text
    from parlour.client.line_race import OutputError, RaceChoiceError
    from parlour.protocol.text import printable

    try:
        return asyncio.run(session)
    except ClientError as error:
        hint = " (give it with --password or $PARLOUR_PASSWORD)" if error.code == "bad_password" else ""
        raise CommandError(f"the server refused: {error.code}: {printable(error.message)}{hint}") from None
    except (RaceChoiceError, OutputError) as error:
        raise CommandError(str(error)) from None
    except InvalidURI as error:
        raise CommandError(f"{server} is not a server's URL: {error}") from None
    except BrokenPipeError:  # stdout's reader went away (parlour races | head): main() ends quietly
        raise
    except (OSError, InvalidHandshake, TimeoutError) as error:
        raise CommandError(f"cannot reach {server}: {unreachable_text(error)}") from None


def cmd_race(args: argparse.Namespace) -> int:
    from parlour.client.line_race import race

    settings: dict[str, Any] = {}
    bots: list[str] = []
    if args.action == "create":
        if args.delay is not None and not args.live_boards:
            raise CommandError("--delay is for --live-boards: without it spectators see the boards only at the end")
        bots = args.bot
        settings = {
            "options": parse_options(args.option),
            "seats": args.seats if args.seats is not None else 1 + len(bots) if bots else 2,
            "time_limit": args.time_limit,
            "public": not args.private,
            "undo": args.undo,
            "spectator_delay": args.delay or 0,
            "live_boards": args.live_boards,
        }
    who = account(args)
    session = race(
        who,
        args.action,
        args.target,
        settings,
        sys.stdin,
        sys.stdout,
        new=getattr(args, "new", False),
        save_replay=args.save_replay,
        bots=bots,
    )
    return run_client(who.server, session)


def cmd_watch(args: argparse.Namespace) -> int:
    from parlour.client.line_race import watch

    who = account(args)
    return run_client(who.server, watch(who, args.race, sys.stdout))


def cmd_races(args: argparse.Namespace) -> int:
    from parlour.client.line_race import list_races

    who = account(args)
    return run_client(who.server, list_races(who, sys.stdout))


def cmd_leave(args: argparse.Namespace) -> int:
    from parlour.client.line_race import leave

    who = account(args)
    return run_client(who.server, leave(who, args.race, sys.stdout))


def cmd_replay(args: argparse.Namespace) -> int:
    from parlour.client.line_race import replay_file, save_replay

    who = account(args)
    return run_client(who.server, save_replay(who, args.race, args.output or replay_file(args.race)))


def parse_games(games: Sequence[str], options: Sequence[str]) -> list[tuple[str, dict[str, Any] | None]]:
    """A tournament's games from the command line: each ``GAME`` or ``GAME:NAME=VALUE,...``;
    ``-o NAME=VALUE`` options go to the one game (a tournament of several takes them in the
    ``GAME:`` form). Each game and its options are checked here (``GameError`` says what is wrong)."""
    out: list[tuple[str, dict[str, Any] | None]] = []
    for text in games:
        name, _, rest = text.partition(":")
        pairs = [pair for pair in rest.split(",") if pair.strip()]
        game = get_game(name.strip())
        chosen = parse_options(pairs)
        game.resolve_options(chosen)
        out.append((game.name, chosen or None))
    if options:
        if len(out) != 1:
            raise CommandError("-o gives an option to a tournament of one game; for several, write GAME:NAME=VALUE")
        name, chosen = out[0]
        merged = {**(chosen or {}), **parse_options(options)}
        get_game(name).resolve_options(merged)
        out[0] = (name, merged)
    return out


def tournament_settings(args: argparse.Namespace) -> dict[str, Any]:
    """``parlour tournament create``'s arguments for :meth:`Client.tournament_create`."""
    if args.seed is not None and args.rated:
        raise CommandError("a rated tournament draws its own secret seed: --seed is for unrated ones only")
    bots = [name.strip() for group in args.bots for name in group.split(",") if name.strip()]
    if not bots and not args.people:
        raise CommandError("a tournament needs entrants: --bots NAME,NAME (online bots) and/or --people N")
    return {
        "games": parse_games(args.games, args.option),
        "format": args.format,
        "deals": args.deals,
        "bots": bots,
        "people": args.people,
        "table_size": args.table_size,
        "time_limit": args.time_limit,
        "forfeit_after": args.forfeit_after,
        "rated": args.rated,
        "timed": not args.untimed,
        "public": not args.private,
        "seed": args.seed,
        "name": args.title,
        "max_moves": args.max_moves,
    }


def cmd_tournament(args: argparse.Namespace) -> int:
    from parlour.client import tournament_cli as t

    who = account(args)
    action = args.action
    if action == "create":
        return run_client(who.server, t.create(who, tournament_settings(args), args.watch, sys.stdout))
    if action == "join":
        return run_client(who.server, t.join(who, args.tournament, sys.stdin, sys.stdout))
    if action == "watch":
        return run_client(who.server, t.watch(who, args.tournament, sys.stdout, args.standings))
    if action == "standings":
        return run_client(who.server, t.standings(who, args.tournament, sys.stdout, args.json))
    if action == "start":
        return run_client(who.server, t.start(who, args.tournament, sys.stdout))
    if action == "list":
        return run_client(who.server, t.list_tournaments(who, sys.stdout, args.limit))
    if args.races and args.format != "csv":
        raise CommandError("--races is for --format csv (JSON and Markdown hold every race already)")
    text = run_client(who.server, t.export(who, args.tournament, args.format, args.races))
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text)
    except OSError as error:
        raise CommandError(f"cannot write {args.output}: {error.strerror}") from None
    check = f"; check it with: parlour verify {args.output}" if args.format == "json" else ""
    print(f"Saved tournament {args.tournament} to {args.output}{check}", file=sys.stderr)
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from parlour.client.tournament_cli import ratings

    game = get_game(args.game)
    who = account(args)
    bots = True if args.bots else False if args.people else None
    return run_client(who.server, ratings(who, game.name, bots, args.limit, sys.stdout))


def client_options(parser: argparse.ArgumentParser, suppress: bool = False, bot: bool = False) -> None:
    """The options every client command takes. ``suppress``: for an action's parser, so that the
    option may follow the action too without the action's default hiding one given before it.
    ``bot``: for ``parlour bot run``, whose profile and name default to the bot's."""

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    parser.add_argument(
        "--server",
        default=default(os.environ.get("PARLOUR_SERVER") or DEFAULT_SERVER),
        metavar="URL",
        type=server_url,
        help=f"the server, e.g. ws://host:8765 (default: $PARLOUR_SERVER, else {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--password",
        default=default(os.environ.get(PASSWORD_VARIABLE)),
        help="the server's password, if it has one (default: $PARLOUR_PASSWORD)",
    )
    parser.add_argument(
        "--profile",
        default=default(None if bot else "default"),
        metavar="NAME",
        help="which of your identities to be: each profile is another player "
        + ("(default: bot-NAME, the bot's own)" if bot else "(default: default)"),
    )
    parser.add_argument("--identity", default=default(None), metavar="FILE", help="keep the identities in FILE instead")
    parser.add_argument(
        "--name",
        default=default(None),
        help="the bot's display name, which people invite it by (default: the bot's NAME)"
        if bot
        else "your display name; it stays for the profile's next runs (default: the last one, else your login)",
    )


PASSWORD_VARIABLE = "PARLOUR_PASSWORD"
MAX_PASSWORD = 128  # the longest password a hello can carry


def server_password(args: argparse.Namespace) -> str | None:
    """The server's password: ``--password``, else the first line of ``--password-file``, else
    ``$PARLOUR_PASSWORD``, else none (a server open to all). Giving both flags is an error."""
    if args.password is not None and args.password_file is not None:
        raise CommandError("give the password one way: --password or --password-file, not both")
    if args.password is not None:
        password = args.password
    elif args.password_file is not None:
        try:
            lines = Path(args.password_file).read_text().splitlines()
        except OSError as error:
            raise CommandError(f"cannot read the password file {args.password_file}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise CommandError(f"the password file {args.password_file} is not UTF-8 text") from None
        password = lines[0] if lines else ""
    elif PASSWORD_VARIABLE in os.environ:
        password = os.environ[PASSWORD_VARIABLE]
    else:
        return None
    if not password:
        raise CommandError("the password is empty")
    if len(password) > MAX_PASSWORD:
        raise CommandError(f"the password is longer than {MAX_PASSWORD} characters: no hello could carry it")
    return password


def log_format(text: str) -> str:
    """A log format; checked here as well as by ``choices``, which a default from the environment skips."""
    if text not in LOG_FORMATS:
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(LOG_FORMATS)})")
    return text


def node_name(text: str) -> str:
    """A server's node name: 1 to 64 letters, digits, dots, dashes and underscores (a host name fits)."""
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", text):
        raise argparse.ArgumentTypeError(f"a node name is 1 to 64 letters, digits, '.', '-' or '_', not {text!r}")
    return text


def trusted_networks(text: str) -> tuple[Any, ...]:
    """``--trusted-proxy``: addresses or networks, comma-separated."""
    from parlour.server.limits import parse_networks

    try:
        return parse_networks(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cmd_bots(args: argparse.Namespace) -> int:
    from parlour.bots import installed_bots

    for entry in installed_bots():
        if entry.bot is None:
            print(f"{entry.name:<18} BROKEN: {entry.error}")
            print(f"{'':<18} package {entry.package} ({entry.source})")
            continue
        games = "every game" if entry.bot.games is None else ", ".join(sorted(entry.bot.games))
        print(f"{entry.name:<18} {entry.bot.summary}")
        print(f"{'':<18} plays {games}; package {entry.package}")
    return 0


def cmd_bot_run(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from parlour.bots import BotNotFound, load_bot
    from parlour.bots.runner import MAX_GAMES, Settings, check_games, run_bot
    from parlour.client.identity import Identity

    try:
        bot = load_bot(args.bot)
    except BotNotFound as error:
        raise CommandError(str(error)) from None
    try:
        games = check_games(bot, args.games.split(",")) if args.games else ()
    except ValueError as error:
        raise CommandError(str(error)) from None
    if not games and not any(bot.plays(game) for game in game_names()):
        raise CommandError(f"{bot.name} plays none of the games here")
    if len(games) > MAX_GAMES:
        raise CommandError(f"a bot offers at most {MAX_GAMES} games at once")
    name = args.name or bot.name
    profile = args.profile or f"bot-{bot.name}"
    identity = Identity(args.server, profile, Path(args.identity) if args.identity else None)
    identity.check()
    logging.basicConfig(level=logging.INFO, format=f"parlour bot {name}: %(message)s", stream=sys.stderr)
    settings = Settings(
        server=args.server,
        name=name,
        games=games,
        max_races=args.max_races,
        races=args.races,
        password=args.password,
        identity=identity,
        parent=args.parent,
        stop_grace=args.stop_grace,
    )
    try:
        return asyncio.run(run_bot(bot, settings))
    except KeyboardInterrupt:  # a second Ctrl-C while stopping
        return 130


def finite_number(low: float, *, above: bool = False) -> Any:
    """An argparse type: a finite number of ``low`` or more (more than ``low`` with ``above``)."""

    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
        if value < low or (above and value == low):
            raise argparse.ArgumentTypeError(f"must be {'more than' if above else 'at least'} {low:g}, not {text}")
        return value

    return read


def house_bots(text: str) -> tuple[str, ...]:
    """``--house-bots``: installed bots' names, comma-separated."""
    from parlour.bots import BotNotFound, load_bot

    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    for name in names:
        try:
            load_bot(name)
        except BotNotFound as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return names


def cmd_serve(args: argparse.Namespace) -> int:
    from parlour.server.config import Config
    from parlour.server.embedded_redis import EmbeddedRedisError
    from parlour.server.main import BadRedisUrl, run

    config = Config(
        host=args.host,
        port=args.port,
        redis_url=args.redis_url,
        redis_prefix=args.redis_prefix,
        redis_cluster=args.redis_cluster,
        data_dir=args.data_dir,
        password=server_password(args),
        grace=args.grace,
        idle_timeout=args.idle_timeout,
        max_frame=args.max_frame,
        max_backlog=args.max_backlog,
        max_connections=args.max_connections,
        countdown=args.countdown,
        rate=args.rate,
        burst=args.burst,
        max_races=args.max_races,
        keep_finished=args.keep_finished,
        open_timeout=args.open_timeout,
        abandoned_timeout=args.abandoned_timeout,
        identity_rate=args.identity_rate,
        identity_burst=args.identity_burst,
        race_rate=args.race_rate,
        race_burst=args.race_burst,
        invite_timeout=args.invite_timeout,
        node=args.node,
        log_format=args.log_format,
        trusted_proxies=args.trusted_proxy,
    )
    beside = None
    if args.house_bots:
        from parlour.bots.house import bot_url, keep_house_bots

        names, password = args.house_bots, config.password

        def beside(host: str, port: int) -> Coroutine[None, None, None]:
            return keep_house_bots(names, bot_url(host, port), password)

    try:
        return run(config, beside)
    except (BadRedisUrl, EmbeddedRedisError) as error:
        raise CommandError(str(error)) from None


class DefaultsShown(argparse.HelpFormatter):
    """Help that ends each option with its default, where it has one its text does not already give
    (never a password's: it may come from the environment)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = action.option_strings and "password" not in action.dest and "default" not in text
        if shown and action.default not in (None, False, argparse.SUPPRESS):
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parlour", description="Parlour: solitaire races.")
    parser.add_argument(
        "--version", action="version", version=f"parlour {package_version()} (engine: {engine_build()})"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    games = commands.add_parser("games", help="list the games and their options")
    games.set_defaults(run=cmd_games)

    def game_args(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("game", metavar="GAME", help="a game name (see 'parlour games')")
        sub.add_argument("--seed", type=parse_seed, help=f"the deal's seed, 0 to 2**{SEED_BITS}-1 (default: random)")
        sub.add_argument("--layout", metavar="FILE", help="set the game up from a text layout instead")
        sub.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")

    deal = commands.add_parser("deal", help="print a deal's full text layout (hidden cards included)")
    game_args(deal)
    deal.add_argument("--view", action="store_true", help="print the player's board instead")
    deal.set_defaults(run=cmd_deal)

    play = commands.add_parser("play-local", help="play a game in this terminal")
    game_args(play)
    play.set_defaults(run=cmd_play_local)

    app = commands.add_parser("play", help="the terminal app: the lobby, races, practice")
    app.add_argument("--practice", action="store_true", help="play offline against the local engine")
    app.add_argument("game", metavar="GAME", nargs="?", help="the game to practise (default: choose in the app)")
    app.add_argument("--seed", type=parse_seed, help=f"the deal's seed, 0 to 2**{SEED_BITS}-1 (default: random)")
    app.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    app.add_argument("--race", metavar="GAME", help="create a race of GAME on the server and race --bot in it")
    app.add_argument(
        "--bot",
        metavar="NAME",
        help="with --race: the bot invited (a name from 'parlour races'); with --practice: an installed bot "
        "(see 'parlour bots') racing you in this process on the same deal",
    )
    app.add_argument(
        "--time-limit", type=int, metavar="SECONDS", help=f"with --race: its time limit (default {DEFAULT_TIME_LIMIT})"
    )
    app.add_argument("--undo", action="store_true", help="with --race: allow undo in it")
    app.add_argument(
        "--replay", metavar="FILE|RACE", help="step through a saved replay file, or a finished race's from the server"
    )
    app.add_argument(
        "--web",
        action="store_true",
        help="serve the app to browsers (textual-serve, the extra 'web'): each browser is a new player on --server, "
        "with a name of its own and no saved identity; with --practice, the practice app",
    )
    app.add_argument("--host", help="with --web: the address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    app.add_argument("--port", type=bounded(1, 65535), help="with --web: the port to listen on (default 8766)")
    app.add_argument(
        "--public-url",
        type=public_url,
        metavar="URL",
        help="with --web: the address browsers use, e.g. https://host/play behind a proxy (default http://HOST:PORT)",
    )
    app.add_argument("--web-session", action="store_true", help=argparse.SUPPRESS)  # one browser's app (--web)
    client_options(app)
    app.set_defaults(run=cmd_play)

    solve = commands.add_parser("solve", help="solve a Golf board with full knowledge of the deal")
    solve.add_argument("game", metavar="GAME", help="the game (golf)")
    solve.add_argument("--seed", type=parse_seed, action="append", default=[], help="a seed to deal (repeatable)")
    solve.add_argument("--board", nargs="+", action="extend", default=[], metavar="FILE", help="board files")
    solve.add_argument("--json", action="store_true", help="one JSON object per board")
    solve.set_defaults(run=cmd_solve)

    arena = commands.add_parser("arena", help="play bots on the same deals in this machine and compare them")
    arena.add_argument("game", metavar="GAME", help="a game name (see 'parlour games')")
    arena.add_argument(
        "--bots", required=True, help="bots, comma-separated: installed names (see 'parlour bots') or module:Class"
    )
    arena.add_argument("--deals", type=int, default=100, help="deals every bot plays (default 100)")
    arena.add_argument("--seed", type=parse_seed, help="the seed the deals follow from (default: random, printed)")
    arena.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    arena.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
    arena.add_argument("--ceiling", action="store_true", help="also the best score a player seeing every card reaches")
    arena.add_argument("--json", action="store_true", help="one JSON object per bot")
    arena.set_defaults(run=cmd_arena)

    racing = commands.add_parser("race", help="race on a server from this terminal")
    client_options(racing)
    race_actions = racing.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, help: str) -> argparse.ArgumentParser:
        sub = race_actions.add_parser(name, help=help)
        client_options(sub, suppress=True)
        sub.add_argument(
            "--save-replay", metavar="FILE", help="save the replay to FILE at the end (else asked on a terminal)"
        )
        return sub

    create = action("create", "create a race and wait for the others (resumes yours of that game, if any)")
    create.add_argument("target", metavar="GAME", help="a game name (see 'parlour games')")
    create.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    create.add_argument(
        "--seats", type=int, default=None, help="racers, you included (default 2; with --bot, you and the bots)"
    )
    create.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME",
        help="invite this bot to race you: a name 'parlour races' lists, or '*' for any bot that plays GAME "
        "(repeatable)",
    )
    create.add_argument(
        "--time-limit", type=int, default=DEFAULT_TIME_LIMIT, help=f"seconds (default {DEFAULT_TIME_LIMIT})"
    )
    create.add_argument("--private", action="store_true", help="not listed: others join with the code")
    create.add_argument("--undo", action="store_true", help="allow undo")
    create.add_argument(
        "--delay", type=int, help="with --live-boards: seconds spectators see the boards late (default 0)"
    )
    create.add_argument(
        "--live-boards",
        action="store_true",
        help="show spectators the boards while the race runs (for friends: a racer could watch the others)",
    )
    create.add_argument("--new", action="store_true", help="create a new race even if you have one of GAME")
    join = action("join", "take a seat in a race (or come back to yours)")
    join.add_argument("target", metavar="CODE", help="the race's join code (or its id)")
    resume = action("resume", "come back to a race you have a seat in")
    resume.add_argument("target", metavar="RACE", nargs="?", help="the race id (default: your one unfinished race)")
    racing.set_defaults(run=cmd_race)

    watching = commands.add_parser("watch", help="watch a race's boards from this terminal")
    client_options(watching)
    watching.add_argument("race", metavar="RACE", help="the race id")
    watching.set_defaults(run=cmd_watch)

    races = commands.add_parser("races", help="list your unfinished races, the lobby and the bots online")
    client_options(races)
    races.set_defaults(run=cmd_races)

    leaving = commands.add_parser("leave", help="give up your seat in a race that has not started")
    client_options(leaving)
    leaving.add_argument("race", metavar="RACE", help="the race id")
    leaving.set_defaults(run=cmd_leave)

    replaying = commands.add_parser("replay", help="save a finished race's replay (for 'parlour verify')")
    client_options(replaying)
    replaying.add_argument("race", metavar="RACE", help="the race id")
    replaying.add_argument(
        "-o", "--output", metavar="FILE", help="where to save it; - for stdout (default: RACE.replay.json)"
    )
    replaying.set_defaults(run=cmd_replay)

    verify = commands.add_parser(
        "verify",
        help="check a race replay or a tournament export: the commitment, every deal, every log, every score, "
        "and a tournament's schedule and standings",
    )
    verify.add_argument(
        "replay",
        nargs="+",
        metavar="FILE",
        help="replay files (parlour replay) or tournament exports (parlour tournament export --format json); "
        "- reads standard input",
    )
    verify.set_defaults(run=cmd_verify)

    tournament = commands.add_parser(
        "tournament",
        help="create, enter, watch and export tournaments on a server",
        description="Tournaments run on the server: every entrant plays the same deals, the server's director "
        "seats them race after race, and a finished tournament reveals its seed so that anyone can check it "
        "(parlour verify). Bots enter when created; people with 'join'.",
    )
    client_options(tournament)
    tournament_actions = tournament.add_subparsers(dest="action", required=True, metavar="ACTION")

    def t_action(name: str, help: str, tournament_id: bool = True) -> argparse.ArgumentParser:
        sub = tournament_actions.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")
        client_options(sub, suppress=True)
        if tournament_id:
            sub.add_argument("tournament", metavar="ID", help="the tournament's id")
        return sub

    t_create = t_action("create", "create a tournament of online bots and seats for people", tournament_id=False)
    t_create.add_argument(
        "games",
        nargs="*",
        metavar="GAME",
        help="the game, or for --format mixed the games (default: all eight); options as GAME:NAME=VALUE,...",
    )
    t_create.add_argument(
        "-f",
        "--format",
        choices=("duplicate", "mixed", "head-to-head"),
        default="duplicate",
        help="duplicate: everyone plays the same deals of one game; mixed: of several games; head-to-head: every "
        "pair of entrants plays the same deals in two-seat races (default duplicate)",
    )
    t_create.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    t_create.add_argument("--deals", type=bounded(1, 1000), default=10, help="deals per game (default 10)")
    t_create.add_argument(
        "--bots", action="append", default=[], metavar="A,B", help="online bots to enter, by name ('parlour races')"
    )
    t_create.add_argument(
        "--people", type=bounded(0, 64), default=0, help="seats for people, who enter with 'join' (default 0)"
    )
    t_create.add_argument(
        "--table-size",
        type=bounded(2, 8),
        default=8,
        help="seats per race at most; more entrants play at several tables on the same deal (default 8)",
    )
    t_create.add_argument("--time-limit", type=bounded(10, 86_400), default=600, help="seconds a race (default 600)")
    t_create.add_argument(
        "--forfeit-after",
        type=bounded(5, 3600),
        default=60,
        metavar="SECONDS",
        help="how long an entrant has to take a race's seat before forfeiting that deal (default 60)",
    )
    t_create.add_argument("--rated", action="store_true", help="its races change the players' ratings")
    t_create.add_argument(
        "--untimed",
        action="store_true",
        help="rank by the score alone: neither finish times nor move counts break ties (play, not speed)",
    )
    t_create.add_argument(
        "--max-moves",
        type=bounded(1, MAX_MOVES_LIMIT),
        default=MAX_MOVES,
        metavar="N",
        help=f"a game still going after N moves is conceded: some games let a bot cycle for ever (default {MAX_MOVES})",
    )
    t_create.add_argument("--private", action="store_true", help="not listed in the lobby")
    t_create.add_argument(
        "--seed",
        type=parse_seed,
        help="the tournament's seed, which makes it reproducible (unrated only; default: a secret random one)",
    )
    t_create.add_argument("--title", metavar="TEXT", help="the tournament's name (default: its format and games)")
    t_create.add_argument(
        "--watch", action="store_true", help="follow it to its end with a progress bar, then print the standings"
    )
    t_action("join", "enter a tournament as a person and play its races as they come (run again to come back)")
    t_watch = t_action("watch", "follow a tournament to its end: progress, the races being played, the standings")
    t_watch.add_argument("--standings", action="store_true", help="print the standings each time a race is done")
    t_standings = t_action("standings", "print a tournament's standings as they are now")
    t_standings.add_argument("--json", action="store_true", help="print its whole summary as JSON")
    t_export = t_action("export", "save a finished tournament: JSON for 'parlour verify', CSV or Markdown")
    t_export.add_argument("--format", choices=("json", "csv", "md"), default="json", help="(default json)")
    t_export.add_argument("--races", action="store_true", help="csv: every race's results instead of the standings")
    t_export.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write it (default: stdout)")
    t_action("start", "start your open tournament now, with the people entered so far")
    t_list = t_action("list", "list the newest tournaments", tournament_id=False)
    t_list.add_argument("--limit", type=bounded(1, 100), default=20, help="how many (default 20)")
    tournament.set_defaults(run=cmd_tournament)

    rating = commands.add_parser("ratings", help="a game's leaderboard: ratings from rated tournaments")
    client_options(rating)
    rating.add_argument("game", metavar="GAME", help="a game name (see 'parlour games')")
    only = rating.add_mutually_exclusive_group()
    only.add_argument("--bots", action="store_true", help="bots only")
    only.add_argument("--people", action="store_true", help="people only")
    rating.add_argument("--limit", type=bounded(1, 1000), default=100, help="rows at most (default 100)")
    rating.set_defaults(run=cmd_ratings)

    bots = commands.add_parser("bots", help="list the installed bots: the games each plays, its package")
    bots.set_defaults(run=cmd_bots)

    bot = commands.add_parser("bot", help="run a bot on a server")
    bot_actions = bot.add_subparsers(dest="action", required=True, metavar="ACTION")
    bot_run = bot_actions.add_parser(
        "run",
        help="connect a bot to a server and play the races it is invited to, until SIGTERM or Ctrl-C",
        description="Connect a bot to a server as a long-lived client: it announces the games it plays, "
        "accepts invitations (people invite it by its name: parlour race create GAME --bot NAME), plays "
        "each race within its time limit, reconnects and resumes its races when the connection or the "
        "server goes down, and stops cleanly on SIGTERM or Ctrl-C (races not started are left; running "
        "ones get --stop-grace seconds to finish, then are conceded). Its identity is kept like a "
        "person's (--identity), under the profile bot-NAME, so a restarted bot takes its seats back.",
    )
    bot_run.add_argument("bot", metavar="NAME", help="an installed bot (see 'parlour bots')")
    client_options(bot_run, bot=True)
    bot_run.add_argument("--games", metavar="G1,G2", help="offer only these games (default: every game the bot plays)")
    bot_run.add_argument(
        "--max-races", type=bounded(1, 64), default=1, metavar="N", help="races played at once, 1 to 64 (default 1)"
    )
    bot_run.add_argument(
        "--races", type=bounded(1, 10**9), metavar="N", help="stop once N races were taken and are over"
    )
    bot_run.add_argument(
        "--stop-grace",
        type=finite_number(0),
        default=5.0,
        metavar="SECONDS",
        help="after SIGTERM, how long running races may go on before they are conceded (default 5; 0: at once)",
    )
    bot_run.add_argument(
        "--parent",
        type=int,
        metavar="PID",
        help="stop, as on SIGTERM, once its parent process PID is gone ('parlour serve --house-bots' gives its own)",
    )
    bot_run.set_defaults(run=cmd_bot_run)

    server = commands.add_parser(
        "serve", help="run the race server (with an embedded Redis by default)", formatter_class=DefaultsShown
    )
    server.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    server.add_argument(
        "--port", type=bounded(0, 65535), default=8765, help="port, 0 to 65535 (default 8765; 0 picks a free one)"
    )
    server.add_argument(
        "--redis-url", help="use this Redis (redis://..., rediss://..., unix://...) instead of the embedded one"
    )
    server.add_argument(
        "--redis-prefix",
        default="parlour",
        help="start every key with this (instances sharing one Redis need different ones; default parlour)",
    )
    server.add_argument(
        "--redis-cluster",
        action="store_true",
        help="--redis-url (redis:// or rediss://) names a node of a Redis Cluster (redis-py's RedisCluster: the "
        "others are found from it)",
    )
    server.add_argument(
        "--data-dir",
        type=Path,
        help="the embedded Redis's data directory (default: $PARLOUR_DATA_DIR/redis, else "
        "$XDG_DATA_HOME/parlour/redis, else ~/.local/share/parlour/redis)",
    )
    server.add_argument(
        "--password", help=f"make the server private: every hello must give this password (or set ${PASSWORD_VARIABLE})"
    )
    server.add_argument("--password-file", metavar="FILE", help="read the password from the first line of FILE")
    server.add_argument(
        "--grace",
        type=finite_number(0),
        default=60.0,
        help="seconds a disconnected racer keeps the seat (0: conceded at once)",
    )
    server.add_argument(
        "--idle-timeout",
        type=finite_number(0),
        default=600.0,
        help="seconds before an idle connection closes (0: never)",
    )
    server.add_argument(
        "--max-frame", type=bounded(1, 2**31 - 1), default=16 * 1024, help="largest frame in bytes (default 16384)"
    )
    server.add_argument(
        "--max-backlog",
        type=bounded(1, 2**31 - 1),
        default=1024 * 1024,
        help="bytes waiting to be sent to a client that does not read before it is closed (default 1048576)",
    )
    server.add_argument(
        "--max-connections",
        type=bounded(0, 10**7),
        default=10_000,
        help="websocket connections open at once; more are answered 503 (default 10000; 0: no cap)",
    )
    server.add_argument(
        "--countdown", type=finite_number(0), default=3.0, help="seconds from all ready to the start (0: none)"
    )
    server.add_argument(
        "--rate",
        type=finite_number(0, above=True),
        default=50.0,
        help="messages per second a connection may average (more than 0)",
    )
    server.add_argument(
        "--burst", type=bounded(1, 10**9), default=200, help="messages a connection may send at once (1 or more)"
    )
    server.add_argument(
        "--max-races", type=bounded(1, 10**9), default=5, help="open and live races a player may be in (1 or more)"
    )
    server.add_argument(
        "--keep-finished",
        type=finite_number(0),
        default=60.0,
        help="seconds a finished race stays in memory (default 60; 0: dropped at once, replays come from Redis)",
    )
    server.add_argument(
        "--open-timeout",
        type=finite_number(0, above=True),
        default=1800.0,
        help="seconds an open race waits for a new player (default 1800; more than 0)",
    )
    server.add_argument(
        "--abandoned-timeout",
        type=finite_number(0),
        default=300.0,
        help="seconds an open race stays once none of its players is connected (default 300; 0: at once)",
    )
    server.add_argument(
        "--identity-rate",
        type=finite_number(0, above=True),
        default=0.2,
        help="new identities per second one address may average (more than 0)",
    )
    server.add_argument(
        "--identity-burst",
        type=bounded(1, 10**9),
        default=60,
        help="new identities one address may make at once (1 or more)",
    )
    server.add_argument(
        "--race-rate",
        type=finite_number(0, above=True),
        default=0.5,
        help="races per second one player may average (more than 0)",
    )
    server.add_argument(
        "--race-burst", type=bounded(1, 10**9), default=30, help="races one player may create at once (1 or more)"
    )
    server.add_argument(
        "--invite-timeout",
        type=finite_number(0, above=True),
        default=30.0,
        help="seconds an invited bot has to take its seat before the invitation lapses (default 30; more than 0)",
    )
    server.add_argument(
        "--trusted-proxy",
        type=trusted_networks,
        default=(),
        metavar="ADDRESSES",
        help="comma-separated addresses or networks of reverse proxies whose X-Forwarded-For header is "
        "believed, so that the limits per address count each client, not the proxy (default: none)",
    )
    server.add_argument(
        "--node",
        type=node_name,
        default=socket.gethostname(),
        metavar="NAME",
        help="this server's name, in the welcome, the log and /metrics (default: the host name)",
    )
    server.add_argument(
        "--log-format",
        type=log_format,
        choices=LOG_FORMATS,
        default="text",
        help="text: one 'parlour: LEVEL ...' line per event; json: one JSON object per line",
    )
    server.add_argument(
        "--house-bots",
        type=house_bots,
        default=(),
        metavar="NAMES",
        help="comma-separated installed bots (e.g. random,greedy,search) to run beside the server once it "
        "listens, one 'parlour bot run NAME' process each, taking up to 8 races at once; invite one with "
        "'parlour race create GAME --bot NAME'. They stop when the server stops; one that dies is started "
        "again (default: none)",
    )
    take_defaults_from_environment(server)
    server.set_defaults(run=cmd_serve)
    return parser


# Read elsewhere: $PARLOUR_DATA_DIR names the folder that holds the data directory, and
# $PARLOUR_PASSWORD is one of the password's sources (see server_password).
NOT_FROM_ENVIRONMENT = {"help", "data_dir", "password"}
SWITCH_VALUES = {
    "1": True,
    "true": True,
    "yes": True,
    "on": True,
    "0": False,
    "false": False,
    "no": False,
    "off": False,
    "": False,
}


def take_defaults_from_environment(parser: argparse.ArgumentParser) -> None:
    """Let each option of ``parser`` default to ``$PARLOUR_<OPTION>`` (``--max-races``:
    ``$PARLOUR_MAX_RACES``); a flag on the command line still wins. The value is read as the
    flag's would be, and a bad one is refused naming the flag, only when ``parser`` runs."""
    for action in parser._actions:
        if not action.option_strings or action.dest in NOT_FROM_ENVIRONMENT:
            continue
        variable = "PARLOUR_" + action.dest.upper()
        action.help = f"{action.help} [${variable}]"
        if variable not in os.environ:
            continue
        value = os.environ[variable]
        if isinstance(action, argparse._StoreTrueAction):  # a switch: 1/true/yes/on or 0/false/no/off
            if value.strip().lower() not in SWITCH_VALUES:
                parser.error(f"${variable} must be one of {', '.join(SWITCH_VALUES)}, not {value!r}")
            action.default = SWITCH_VALUES[value.strip().lower()]
        else:
            action.default = value  # a string default goes through the flag's type


def package_version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("parlour")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    from parlour.client.identity import IdentityFileError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except (CommandError, GameError, IdentityFileError) as error:
        print(f"parlour: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (parlour games | head): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
