"""The Celery application (Celery's ``proj/celery.py`` pattern).

Configuration comes from Django settings under the ``CELERY_`` namespace, so the worker and
the web process always agree on the broker.

kombu 5.7.0 (the newest release; requirements.lock) has a Redis transport bug that stops a
worker on a Redis outage: :func:`guard_closed_redis_channels` patches it when this module is
imported, in the worker and in the web process alike.
"""

import functools
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.project.settings")


def guard_closed_redis_channels() -> None:
    """Make a Redis channel whose connection is closed fail with a *connection* error.

    On a lost connection Celery collects the broker connection: kombu closes its channels one
    by one, and each close puts the channel's unacknowledged messages back
    (``QoS.restore_unacked``). With Redis down the first restore fails, the remaining channels
    stay open, and the connection then detaches its transport (``transport.client = None``).
    Any later use of such a channel (its restore on collection or at exit, an acknowledgement
    of a task that finishes after the reconnect) builds a Redis pool from
    ``Channel._connparams``, which reads ``self.connection.client.hostname`` and raises
    ``AttributeError: 'NoneType' object has no attribute 'hostname'``. Celery treats an
    AttributeError as an unrecoverable error and the worker exits.

    The guard raises ``redis.ConnectionError`` there instead: one of the transport's
    connection errors, which kombu and Celery expect from a broker channel, log, and recover
    from (the worker reconnects). Messages not put back stay in Redis's unacknowledged set, and
    the jobs' recovery sweep sends lost jobs again (:mod:`simulation.jobs.recovery`).
    Idempotent.
    """
    from kombu.transport import redis as kombu_redis

    original = kombu_redis.Channel._connparams
    if getattr(original, "guards_closed_channel", False):
        return

    @functools.wraps(original)
    def _connparams(self, asynchronous=False):
        transport = self.connection
        if transport is None or transport.client is None:
            raise kombu_redis.redis.ConnectionError(
                "the broker connection of this Redis channel is closed"
            )
        return original(self, asynchronous=asynchronous)

    _connparams.guards_closed_channel = True
    kombu_redis.Channel._connparams = _connparams


guard_closed_redis_channels()

app = Celery("planner")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
