"""The messages of racing a bot: the hello's offer, ``invite``, ``invitation`` and the lobby's ``bots``."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from parlour.protocol import ErrorCode, ProtocolError, decode, encode
from parlour.protocol.messages import MESSAGES, REQUESTS, Hello, Invitation, Invite, Races


def request(**fields: Any) -> bytes:
    return msgpack.packb(fields)


def test_a_bots_hello_carries_its_games_and_how_many_races_at_once() -> None:
    hello = decode(request(type="hello", id=1, name="greedy", bot=True, games=["golf", "gaps"], max_races=4), REQUESTS)
    assert hello == Hello(id=1, name="greedy", bot=True, games=["golf", "gaps"], max_races=4)
    assert decode(request(type="hello", id=1, name="ann"), REQUESTS) == Hello(id=1, name="ann")  # both optional
    assert "games" not in Hello(id=1, name="ann").to_wire() and "max_races" not in Hello(id=1, name="ann").to_wire()


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"games": []}, "from 1 to 16"),
        ({"games": ["golf"] * 17}, "from 1 to 16"),
        ({"games": "golf"}, "must be list"),
        ({"games": ["golf", 7]}, "each item of 'games' must be str, not int"),
        ({"games": [["golf"]]}, "each item of 'games' must be str, not list"),
        ({"games": ["golf"], "max_races": 0}, "from 1 to 64"),
        ({"games": ["golf"], "max_races": 65}, "from 1 to 64"),
        ({"games": ["golf"], "max_races": True}, "must be int"),
    ],
)
def test_a_malformed_offer_is_a_bad_message(fields: dict[str, Any], why: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode(request(type="hello", id=1, name="greedy", bot=True, **fields), REQUESTS)
    assert info.value.code is ErrorCode.BAD_MESSAGE and why in info.value.message


def test_invite_names_a_race_and_a_bot() -> None:
    assert decode(request(type="invite", id=3, race="5f0c2a9e41", bot="*"), REQUESTS) == Invite(
        id=3, race="5f0c2a9e41", bot="*"
    )
    for fields in ({"race": "5f0c2a9e41"}, {"bot": "greedy"}, {"race": "r", "bot": ""}, {"race": "r", "bot": 5}):
        with pytest.raises(ProtocolError) as info:
            decode(request(type="invite", id=3, **fields), REQUESTS)
        assert info.value.code is ErrorCode.BAD_MESSAGE


def test_the_server_side_messages_round_trip_and_are_no_requests() -> None:
    invitation = Invitation(race={"id": "5f0c2a9e41", "game": "golf"}, by="ann", expires_at=1763740030.0)
    assert decode(encode(invitation)) == invitation
    assert "invitation" in MESSAGES and "invitation" not in REQUESTS and "invite" in REQUESTS
    bots = [{"player": "p1", "name": "greedy", "games": ["golf"], "max_races": 4, "busy": 1}]
    assert decode(encode(Races(id=2, races=[], bots=bots))) == Races(id=2, races=[], bots=bots)
    assert "bots" not in Races(id=2, races=[]).to_wire()  # a later page: no bots
    with pytest.raises(ProtocolError) as info:
        decode(request(type="invitation", race={}, by="ann"), REQUESTS)
    assert info.value.code is ErrorCode.UNKNOWN_TYPE
