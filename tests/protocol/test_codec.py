"""The protocol codec: every message round-trips; bad bytes only ever give typed errors."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.protocol import MESSAGES, ErrorCode, ProtocolError, decode, encode
from parlour.protocol.messages import REQUESTS, Create, Hello, MakeMove, Message

scalars = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans())


def value_for(hint: Any, bounds: tuple[int, int] | None) -> st.SearchStrategy[Any]:
    lo, hi = bounds or (0, 8)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    kind = typing.get_origin(hint) or hint
    if args and kind not in (list, dict):  # a union: pick one of its members
        return st.one_of(*(value_for(a, bounds) for a in args))
    if kind is bool:
        return st.booleans()
    if kind is int:
        return st.integers(lo, min(hi, 2**40)) if bounds else st.integers(0, 1000)
    if kind is float:
        return st.floats(0, 1e9, allow_nan=False)
    if kind is str:
        return st.text(min_size=lo, max_size=min(hi, 40))
    if kind is list:  # items of the list's type where it names one (list[str]), else any scalars
        items = value_for(args[0], None) if args and args[0] is not Any else scalars
        return st.lists(items, min_size=lo, max_size=min(hi, 4))
    if kind is dict:
        return st.dictionaries(st.text(max_size=8), scalars, min_size=lo, max_size=min(hi, 4))
    raise AssertionError(hint)


def message_strategy(cls: type[Message]) -> st.SearchStrategy[Message]:
    """Messages of one class: every required field, any subset of the optional ones."""
    hints = typing.get_type_hints(cls)
    required, optional = {}, {}
    for f in dataclasses.fields(cls):
        strategy = value_for(hints[f.name], f.metadata.get("limits"))
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required[f.name] = strategy
        else:
            optional[f.name] = strategy
    return st.fixed_dictionaries(required, optional=optional).map(lambda fields: cls(**fields))


MESSAGE_STRATEGIES = st.one_of([message_strategy(cls) for cls in sorted(MESSAGES.values(), key=lambda c: c.TYPE)])


def messages() -> st.SearchStrategy[Message]:
    return MESSAGE_STRATEGIES


@given(messages())
def test_every_message_round_trips(message: Message) -> None:
    assert decode(encode(message)) == message


@settings(max_examples=300)
@given(st.binary(max_size=64))
def test_random_bytes_give_only_typed_errors(data: bytes) -> None:
    try:
        decode(data, REQUESTS)
    except ProtocolError as error:
        assert error.code in (ErrorCode.BAD_FRAME, ErrorCode.BAD_MESSAGE, ErrorCode.UNKNOWN_TYPE)


values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**63), 2**64 - 1),
        st.floats(),
        st.text(max_size=10),
        st.binary(max_size=10),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=300)
@given(
    st.sampled_from(sorted(REQUESTS)),
    st.dictionaries(
        st.sampled_from(
            ["id", "race", "seq", "move", "name", "game", "options", "seats", "token", "version", "bot", "code"]
        ),
        values,
        max_size=6,
    ),
)
def test_wrong_shapes_give_only_typed_errors(kind: str, fields: dict[str, Any]) -> None:
    try:
        message = decode(msgpack.packb({"type": kind, **fields}), REQUESTS)
    except ProtocolError as error:
        assert error.code is ErrorCode.BAD_MESSAGE
    else:
        assert kind == message.TYPE and message.id >= 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"\xc1", ErrorCode.BAD_FRAME),
        ("a text frame", ErrorCode.BAD_FRAME),
        (msgpack.packb([1, 2]), ErrorCode.BAD_MESSAGE),
        (msgpack.packb({"id": 1}), ErrorCode.BAD_MESSAGE),
        (msgpack.packb({"type": "teleport", "id": 1}), ErrorCode.UNKNOWN_TYPE),
        (msgpack.packb({"type": "welcome", "id": 1}), ErrorCode.UNKNOWN_TYPE),  # a reply is no request
        (msgpack.packb({"type": "create", "id": 1}), ErrorCode.BAD_MESSAGE),
        (msgpack.packb({"type": "hello", "id": 1, "name": "x" * 33}), ErrorCode.BAD_MESSAGE),
        (msgpack.packb({"type": "move", "id": 1, "race": "r", "seq": 0, "move": []}), ErrorCode.BAD_MESSAGE),
        (msgpack.packb({"type": "move", "id": 2**60, "race": "r", "seq": 0, "move": ["t"]}), ErrorCode.BAD_MESSAGE),
        (msgpack.packb({"type": "create", "id": 1, "game": "golf", "seats": True}), ErrorCode.BAD_MESSAGE),
    ],
)
def test_bad_frames_and_messages(data: object, code: ErrorCode) -> None:
    with pytest.raises(ProtocolError) as info:
        decode(data, REQUESTS)
    assert info.value.code is code


def test_defaults_and_unknown_fields() -> None:
    hello = decode(msgpack.packb({"type": "hello", "id": 7, "name": "ann", "future": 1}), REQUESTS)
    assert hello == Hello(id=7, name="ann")
    create = decode(encode(Create(id=1, game="golf")), REQUESTS)
    assert create == Create(id=1, game="golf", seats=2, time_limit=600, public=True, undo=False)
    move = MakeMove(id=2, race="r1", seq=4, move=["move", "c1", "c2", 3])
    assert msgpack.unpackb(encode(move)) == {"type": "move", "id": 2, "race": "r1", "seq": 4, "move": move.move}
