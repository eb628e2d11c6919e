"""The server's log: one line per event, as text or as JSON, each line naming the node.

`configure` runs once at start (``parlour serve`` calls it before anything logs). Modules then log
through the standard `logging` module and attach the ids of what the event is about with ``extra``::

    log = logging.getLogger("parlour.server")
    log.info("race created", extra=Ids(race=race.id, player=player.id))
    log.info("connection opened from %s", address, extra=Ids(connection=conn.number))

`Ids` is a plain dict (``extra={"race": race.id}`` is the same thing), typed so that a misspelt id is
caught by the type checker. The ids are shown in both formats, so a message need not repeat them:

    text: parlour: INFO parlour.server [node-a]: race created race=5f0c2a9e41 player=p3b9e0c2d4f6a8b1c
    json: {"time": "2025-01-02T03:04:05.678Z", "level": "INFO", "logger": "parlour.server",
           "message": "race created", "node": "node-a", "race": "5f0c2a9e41", "player": "p3b9e0c2d4f6a8b1c"}

(the JSON object is one line). Log lines go to standard error: the server's records at INFO and above,
other libraries' at WARNING and above. A JSON record logged with an exception carries the traceback in
``exception``. The lines an operator waits for (``parlour: listening on ws://HOST:PORT``) are not events
of the log: `announce` writes them to standard output, and `announce_error` a fatal error to standard error,
as ``parlour: ...`` lines in the text format and as JSON records (logger ``parlour.serve``) in the JSON one.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import TextIO, TypedDict

LOG_FORMATS = ("text", "json")
ID_KEYS = ("race", "player", "connection")  # the ids a record may carry, in the order they are shown

_announcer = logging.getLogger("parlour.serve")


class Ids(TypedDict, total=False):
    """The ids an event is about, given as a log call's ``extra``."""

    race: str
    player: str
    connection: int


class NodeFilter(logging.Filter):
    """Stamps every record that a handler emits with the node's id (``record.node``)."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def filter(self, record: logging.LogRecord) -> bool:
        record.node = self.node
        return True


def _ids(record: logging.LogRecord) -> dict[str, object]:
    return {key: getattr(record, key) for key in ID_KEYS if getattr(record, key, None) is not None}


class TextFormatter(logging.Formatter):
    """``parlour: LEVEL LOGGER [NODE]: MESSAGE race=R player=P connection=C`` (the ids the record has)."""

    def __init__(self) -> None:
        super().__init__("parlour: %(levelname)s %(name)s [%(node)s]: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ids = "".join(f" {key}={_text_value(value)}" for key, value in _ids(record).items())
        if not ids:
            return line
        head, newline, traceback = line.partition("\n")  # the ids end the event's line, before a traceback
        return head + ids + newline + traceback


_QUOTE = re.compile(r'[\s"=]')  # a value holding any of these is quoted (\s: whatever str.isspace() is true of)


def _text_value(value: object) -> str:
    text = str(value)
    return json.dumps(text) if not text or _QUOTE.search(text) else text


def _utc(timestamp: float) -> str:
    """``timestamp`` in ISO 8601, UTC, to the millisecond: ``2025-01-02T03:04:05.678Z``."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: time (ISO 8601, UTC), level, logger, message, node, and
    the ids the record carries; ``exception`` holds the traceback of a record logged with one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": _utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "node": getattr(record, "node", None),
            **_ids(record),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # ASCII only: no character in the line that a reader could take for a line break (U+2028).
        return json.dumps(entry, default=str)


class _AnnouncementFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        error = "error: " if record.levelno >= logging.ERROR else ""
        return f"parlour: {error}{record.getMessage()}"


def _handler(stream: TextIO, formatter: logging.Formatter, node: NodeFilter) -> logging.StreamHandler[TextIO]:
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(node)
    return handler


def configure(log_format: str, node: str) -> None:
    """Log in ``log_format`` to standard error, every record naming ``node``. Calling it again (say,
    once the node's full id is known) replaces what the previous call set up."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"the log format is one of {', '.join(LOG_FORMATS)}, not {log_format!r}")
    stamp = NodeFilter(node)
    root = logging.getLogger()
    for handler in [*root.handlers, *_announcer.handlers]:
        handler.close()
    root.handlers.clear()
    _announcer.handlers.clear()
    root.setLevel(logging.WARNING)
    logging.getLogger("parlour").setLevel(logging.INFO)
    root.addHandler(_handler(sys.stderr, JsonFormatter() if log_format == "json" else TextFormatter(), stamp))
    announced = JsonFormatter() if log_format == "json" else _AnnouncementFormatter()
    to_stdout = _handler(sys.stdout, announced, stamp)
    to_stdout.addFilter(lambda record: record.levelno < logging.ERROR)
    to_stderr = _handler(sys.stderr, announced, stamp)
    to_stderr.setLevel(logging.ERROR)
    _announcer.addHandler(to_stdout)
    _announcer.addHandler(to_stderr)
    _announcer.propagate = False


def announce(message: str) -> None:
    """Tell the operator ``message`` on standard output (``parlour: MESSAGE`` in the text format)."""
    _announcer.info(message)


def announce_error(message: str) -> None:
    """Tell the operator a fatal error on standard error (``parlour: error: MESSAGE`` in the text format)."""
    _announcer.error(message)
