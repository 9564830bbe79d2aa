"""The Redis cache backend turns an unreachable Redis into misses (planner.project.cache)."""

from __future__ import annotations

import socket

from planner.project.cache import TolerantRedisCache


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the block ends: nothing listens


def test_an_unreachable_redis_is_a_miss_not_an_error():
    cache = TolerantRedisCache(
        f"redis://127.0.0.1:{_closed_port()}/0",
        {"OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}},
    )
    cache.set("key", "value")
    assert cache.get("key") is None
    assert cache.get("key", "default") == "default"
    assert cache.get_many(["key"]) == {}
    assert cache.add("key", "value") is False
    assert cache.has_key("key") is False
    assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]
    assert cache.delete("key") is False
