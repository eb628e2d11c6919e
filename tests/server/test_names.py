"""Display names on a real server: nothing a terminal would act on reaches other players."""

from __future__ import annotations

import pytest

from tests.conftest import ServerProcess
from tests.server.test_bad_input import Raw, assert_serving

pytestmark = pytest.mark.asyncio

TERMINAL_TRICKS = ["\x1b[2J\x1b[H", "\x07", "\x00", "evil\u202etxt", "\u2066x", "a\u2028b", "zero\u200bwidth", "\ue000"]


async def test_names_with_terminal_escapes_are_refused_with_bad_name(server: ServerProcess) -> None:
    peer = await Raw.connect(server.url, None)
    for name in [*TERMINAL_TRICKS, " ada", "ada ", "   "]:
        reply = await peer.call({"type": "hello", "name": name})
        assert (reply["type"], reply.get("code"), reply.get("id")) == ("error", "bad_name", peer.next_id), name
    assert (await peer.call({"type": "lobby"}))["code"] == "not_identified"  # no identity was made
    welcome = await peer.call({"type": "hello", "name": "Zoë 🂡"})
    assert welcome["type"] == "welcome" and welcome["name"] == "Zoë 🂡"

    # Coming back with a token cannot rename the identity to an escape either.
    again = await Raw.connect(server.url, None)
    reply = await again.call({"type": "hello", "name": "\x1b]0;pwned\x07", "token": welcome["token"]})
    assert reply["code"] == "bad_name"
    back = await again.call({"type": "hello", "name": "Zoë 🂡", "token": welcome["token"]})
    assert back["type"] == "welcome" and back["player"] == welcome["player"]

    # What others see of this player (a race summary) holds the accepted name only.
    race = (await again.call({"type": "create", "game": "golf"}))["race"]
    assert [p["name"] for p in race["players"]] == ["Zoë 🂡"]
    await assert_serving(server.url)
