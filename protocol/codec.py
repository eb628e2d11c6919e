"""Bytes to messages and back: msgpack with limits, then the message's own checks."""

from __future__ import annotations

from typing import Any

import msgpack

from parlour.protocol.errors import ErrorCode, ProtocolError
from parlour.protocol.messages import MESSAGES, Message

MAX_FRAME = 64 * 1024  # the largest frame a peer should send; servers may set less


def encode(message: Message) -> bytes:
    """The msgpack bytes of ``message``."""
    return msgpack.packb(message.to_wire(), use_bin_type=True)


def _string_keys(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    # strict_map_key lets bin keys through, beside str: refuse them too, in maps at every depth.
    for key, _ in pairs:
        if type(key) is not str:
            raise ValueError(f"map keys must be str, not {type(key).__name__}")
    return dict(pairs)


def decode_map(data: object) -> dict[str, Any]:
    """The msgpack map in ``data``, or a ``bad_frame`` / ``bad_message`` error.

    A map anywhere in the frame with a key that is not a string (``bin`` included) is a ``bad_frame``.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError(ErrorCode.BAD_FRAME, "send binary frames holding msgpack, not text frames")
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, timestamp=0, object_pairs_hook=_string_keys)
    except Exception as error:  # msgpack raises several unrelated types on bad input
        reason = str(error) or type(error).__name__
        raise ProtocolError(ErrorCode.BAD_FRAME, f"the frame is not one msgpack value: {reason}") from None
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"a message is a msgpack map, not {type(value).__name__}")
    return value


def decode(data: object, allowed: dict[str, type[Message]] = MESSAGES) -> Message:
    """The typed message in ``data``. ``allowed`` limits the types (a server passes the requests).

    Raises :class:`ProtocolError` with ``bad_frame``, ``bad_message`` or ``unknown_type``.
    """
    return message_from_map(decode_map(data), allowed)


def message_from_map(value: dict[str, Any], allowed: dict[str, type[Message]] = MESSAGES) -> Message:
    """The typed message a decoded map holds; ``bad_message`` or ``unknown_type`` if none."""
    kind = value.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a string 'type'")
    cls = allowed.get(kind)
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}")
    return cls.from_wire(value)
