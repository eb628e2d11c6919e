"""The wire between Parlour's server and its clients, sans I/O: bytes in, typed messages out.

Every websocket message is one binary frame holding one msgpack map with a ``type``.
:func:`decode` turns bytes into a typed message (or raises :class:`ProtocolError` with a
typed :class:`ErrorCode`); :func:`encode` turns a message into bytes. ``README.md`` beside
this file is the full specification.
"""

from parlour.protocol.codec import decode, encode
from parlour.protocol.errors import ErrorCode, ProtocolError
from parlour.protocol.messages import *  # noqa: F403
from parlour.protocol.messages import MESSAGES, PROTOCOL_VERSION, Event, Message, Reply, Request

__all__ = [
    "MESSAGES",
    "PROTOCOL_VERSION",
    "ErrorCode",
    "Event",
    "Message",
    "ProtocolError",
    "Reply",
    "Request",
    "decode",
    "encode",
]
