"""The guard against kombu 5.7.0's Redis transport bug (planner.project.celery): a channel used
after its connection detached the transport fails with a connection error the worker recovers
from, not with the AttributeError that stopped workers on every Redis outage (issue 34)."""

from __future__ import annotations

import pytest
from kombu import Connection, Exchange, Producer, Queue

from tests.conftest import service_missing
from tests.redis_server import free_port, redis_server_missing, start_redis, stop_redis


@pytest.fixture
def redis_port():
    if redis_server_missing():
        service_missing(redis_server_missing())
    port = free_port()
    proc = start_redis(port)
    yield port
    stop_redis(proc)


def _channel_with_an_unacked_message(port: int):
    conn = Connection(f"redis://127.0.0.1:{port}/0")
    channel = conn.channel()
    queue = Queue("guard", Exchange("guard"), "guard")(channel)
    queue.declare()
    Producer(channel).publish({"n": 1}, exchange="guard", routing_key="guard")
    assert queue.get(no_ack=False) is not None  # delivered, not acknowledged
    return conn, channel


def test_restoring_on_a_detached_channel_is_a_connection_error(redis_port):
    import planner.project.celery  # noqa: F401 - applies the guard

    conn, channel = _channel_with_an_unacked_message(redis_port)
    # What a collect of the connection leaves when Redis is down: pools dropped by the close
    # of another channel, and the transport detached from the connection.
    channel._disconnect_pools()
    conn._do_close_transport()
    with pytest.raises(conn.connection_errors) as caught:
        channel.qos.restore_unacked()
    assert not isinstance(caught.value, AttributeError)
    assert "connection of this Redis channel is closed" in str(caught.value)
    channel.qos._delivered.clear()  # nothing left for the exit-time restore


def test_the_guard_is_applied_once_and_leaves_open_channels_alone(redis_port):
    from kombu.transport import redis as kombu_redis

    from planner.project.celery import guard_closed_redis_channels

    patched = kombu_redis.Channel._connparams
    guard_closed_redis_channels()
    assert kombu_redis.Channel._connparams is patched and patched.guards_closed_channel
    conn, channel = _channel_with_an_unacked_message(redis_port)
    channel.qos.restore_unacked()  # an open channel restores as before
    import redis

    assert redis.Redis(port=redis_port).llen("guard") == 1
    conn.release()
