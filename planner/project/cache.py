"""Django's cache on Redis that a Redis outage turns into misses, not errors.

What the product keeps in the cache (a revision's outputs, :mod:`planner.outputs.cache`; BOMs,
transport comparisons, graph measurements) can always be computed again, so while Redis is
down every read is a miss and every write is dropped (one warning per outage in the log)
instead of a 500: pages and downloads are slower, never broken.
"""

from __future__ import annotations

import logging

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class TolerantRedisCache(RedisCache):
    """:class:`~django.core.cache.backends.redis.RedisCache` whose failures are misses."""

    _down = False

    def _tolerate(self, method: str, default, *args):
        try:
            result = getattr(super(), method)(*args)
        except (RedisError, OSError) as exc:
            if not TolerantRedisCache._down:
                logger.warning("The cache (Redis) is unreachable; computing without it: %s", exc)
            TolerantRedisCache._down = True
            return default
        TolerantRedisCache._down = False
        return result

    def get(self, key, default=None, version=None):
        return self._tolerate("get", default, key, default, version)

    def get_many(self, keys, version=None):
        return self._tolerate("get_many", {}, keys, version)

    def has_key(self, key, version=None):
        return self._tolerate("has_key", False, key, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._tolerate("set", None, key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._tolerate("set_many", list(data), data, timeout, version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._tolerate("add", False, key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._tolerate("touch", False, key, timeout, version)

    def delete(self, key, version=None):
        return self._tolerate("delete", False, key, version)
