"""The Redis Cluster that tests start (tests/redis_cluster.py) is a real one: three primaries that split the
slots, answer a cluster client's commands for keys in every slot, and leave nothing behind once stopped."""

from __future__ import annotations

import socket

import pytest
import redis

from tests.redis_cluster import ValkeyCluster, slot_ranges


def test_slots_split_evenly_into_contiguous_ranges() -> None:
    assert slot_ranges(3) == [(0, 5460), (5461, 10922), (10923, 16383)]
    assert slot_ranges(1) == [(0, 16383)]


def test_three_primaries_share_the_keys_of_every_slot(valkey_cluster: ValkeyCluster) -> None:
    owner = dict(zip(slot_ranges(3), valkey_cluster.ports, strict=True))  # slot range -> port of its primary
    cluster = redis.RedisCluster.from_url(valkey_cluster.url, decode_responses=True)
    try:
        shards = cluster.execute_command("CLUSTER SHARDS", target_nodes=redis.RedisCluster.RANDOM)
        assert {(s["slots"][0], s["slots"][1]): s["nodes"][0]["port"] for s in shards} == owner
        keys = [f"key:{{{n}}}" for n in range(300)]  # 300 hash tags: their slots spread over the three ranges
        for n, key in enumerate(keys):
            cluster.set(key, n)
        assert [int(cluster.get(key)) for key in keys] == list(range(300))
        for key in keys:  # each key sits on the primary that owns its slot
            slot = cluster.keyslot(key)
            port = next(port for (first, last), port in owner.items() if first <= slot <= last)
            assert redis.Redis(port=port).exists(key), (key, slot, port)
        per_node = [redis.Redis(port=port).dbsize() for port in valkey_cluster.ports]
        assert sum(per_node) == 300 and min(per_node) > 50, per_node
    finally:
        cluster.close()


def test_stop_ends_every_node_and_removes_its_directory() -> None:
    cluster = ValkeyCluster(primaries=3)
    cluster.start()
    base_dir, ports = cluster.base_dir, list(cluster.ports)
    assert base_dir is not None and base_dir.is_dir()
    cluster.stop()
    assert not base_dir.exists()
    for port in ports:  # nothing listens any more
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    cluster.stop()  # twice is harmless
