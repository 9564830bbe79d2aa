"""A private ``redis-server`` for tests that stop and start Redis (never the shared one)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_server_missing() -> str:
    """Why no private Redis can start here ("" when it can)."""
    return "" if shutil.which("redis-server") else "redis-server is not installed"


def start_redis(port: int) -> subprocess.Popen:
    """Start an empty redis-server without persistence on ``port``; returns once it answers."""
    import redis

    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
        + ["--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.RedisError):
            redis.Redis(port=port, socket_connect_timeout=0.2).ping()
            return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"redis-server did not start on port {port}")


def stop_redis(proc: subprocess.Popen) -> None:
    """Stop that redis-server (its data goes with it)."""
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
