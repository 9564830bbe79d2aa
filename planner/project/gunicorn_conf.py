"""gunicorn's settings in production (``gunicorn -c python:planner.project.gunicorn_conf``):
the Docker image and the load bench (``tests/bench_load.py``) start it so.

Threads in a few processes: a request spends part of its time waiting on PostgreSQL, Redis or
the client, which a thread of the same process fills, while the processes share the cores
(Python runs one thread at a time per process). One process per core plus one, of
``WEB_THREADS`` (4) threads: on 2 cores, 3 x 4 = 12 requests at a time. With 2 sync workers
(gunicorn's default class) 50 users on the design list, a 4 SU design page, the live summary
and the cabling CSV queued behind each other: median 1.5 s, p99 3.0 s (issue 34); see the
docs/benchmarks-history.md (load bench) for the figures with these settings.
"""

import os

bind = os.environ.get("WEB_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS") or (os.cpu_count() or 1) + 1)
threads = int(os.environ.get("WEB_THREADS", "4"))
#: A request running longer than this is a bug; the worker is killed and restarted.
timeout = int(os.environ.get("WEB_TIMEOUT_S", "30"))
graceful_timeout = 10
#: Kept-alive connections (a reverse proxy's) are served by the same threads.
keepalive = 5
accesslog = os.environ.get("WEB_ACCESS_LOG", "-") or None
#: The product is imported once, before the workers fork (they share its pages of memory and
#: none pays the import); connections to PostgreSQL and Redis open in each worker, later.
preload_app = True
#: No control socket (gunicorn 27's ``gunicornc``): several servers on one machine (the bench,
#: ``make run``) would share its one default path.
control_socket_disable = True
