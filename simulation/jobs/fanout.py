"""Parts of a running job claimed on its row: how Monte Carlo seeds and sweep runs spread
over any number of worker processes without a result backend (STYLE.md §2.6).

A job whose work splits into parts (the seeds of a Monte Carlo simulate, the runs of a sweep)
keeps, while it runs, a section of its ``result``: ``{"claimed": {key: {"by", "at"}}, "done":
{key: summary}}``. The runner sends one subtask per part; every part is claimed under the job
row's lock by whoever reaches it first -- a subtask or the runner itself, which works through
the parts while it waits (:func:`collect_parts`), so one worker process suffices. Claims and
results are fenced by the attempt: a subtask of an earlier attempt writes nothing. A part is
done once: a second subtask for it (a redelivery, a duplicate) finds it claimed or done and
returns. A part whose claimant's process is gone is free at once; one claimed and not done
for ``JOBS_HEARTBEAT_TIMEOUT_S`` is taken over by the runner.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from django.db import connection, transaction

from simulation.jobs.config import heartbeat_timeout_s
from simulation.jobs.heartbeat import claimant_alive
from simulation.models import Job, JobStatusChoices


def _empty() -> dict:
    return {"claimed": {}, "done": {}}


def _locked_result(job_id, attempt: int):
    """The running job's result under its row lock (None if it is not running ``attempt``)."""
    job = (
        Job.objects.select_for_update()
        .filter(pk=job_id, status=JobStatusChoices.RUNNING, attempts=attempt)
        .only("result")
        .first()
    )
    if job is None:
        return None
    return job.result if isinstance(job.result, dict) else {}


def _in_place() -> bool:
    """Whether claims and summaries are written into the row's JSON in place (PostgreSQL's
    ``jsonb_set``): one key, without reading and rewriting the whole result from Python, whose
    cost grew with the parts done (about 250 ms a part at 1,000 explore candidates, 1.4 MB)."""
    return connection.vendor == "postgresql"


def _loaded(value):
    return json.loads(value) if isinstance(value, str | bytes) else value


def _locked_part(job_id, attempt: int, section: str, key: str):
    """Under the running job's row lock: ``(found, done, claim)`` of part ``key``; ``found``
    is False when the job is not running ``attempt``."""
    table = Job._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT result #> %s, result #> %s FROM {table} "  # noqa: S608 - the model's table
            "WHERE id = %s AND status = %s AND attempts = %s FOR UPDATE",
            [
                [section, "done", key],
                [section, "claimed", key],
                job_id,
                JobStatusChoices.RUNNING,
                attempt,
            ],
        )
        row = cursor.fetchone()
    if row is None:
        return False, None, None
    return True, _loaded(row[0]), _loaded(row[1])


def _set_part(job_id, section: str, where: str, key: str, value: dict) -> None:
    """``result[section][where][key] = value`` in place (the section made if missing)."""
    table = Job._meta.db_table
    empty = json.dumps(_empty())
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET result = jsonb_set("  # noqa: S608 - the model's table
            "jsonb_set(COALESCE(result, '{}'::jsonb), %s, "
            "COALESCE(result -> %s, %s::jsonb)), %s, %s::jsonb) WHERE id = %s",
            [[section], section, empty, [section, where, key], json.dumps(value), job_id],
        )


def claim_part(
    job_id, attempt: int, section: str, key, owner: str, *, steal_after: float | None = None
) -> bool:
    """Claim part ``key`` of the running job's ``section`` for ``owner``; False if it is done or
    claimed (or the job is not running this attempt). With ``steal_after``, also take a part
    claimed that long ago and still not done. A part whose claiming process is gone (see
    :func:`~simulation.jobs.heartbeat.process_identity`) is free at once."""
    key = str(key)
    with transaction.atomic():
        if _in_place():
            found, done, claim = _locked_part(job_id, attempt, section, key)
            if not found or done is not None:
                return False
        else:
            result = _locked_result(job_id, attempt)
            if result is None:
                return False
            state = result.setdefault(section, _empty())
            if key in state["done"]:
                return False
            claim = state["claimed"].get(key)
        if (
            claim is not None
            and (steal_after is None or time.time() - claim["at"] < steal_after)
            and claimant_alive(claim.get("by", "")) is not False
        ):
            return False
        mine = {"by": owner, "at": time.time()}
        if _in_place():
            _set_part(job_id, section, "claimed", key, mine)
        else:
            state["claimed"][key] = mine
            Job.objects.filter(pk=job_id).update(result=result)
    return True


def part_done(job_id, attempt: int, section: str, key, summary: dict) -> None:
    """Record the summary of part ``key`` (nothing if the attempt is over)."""
    with transaction.atomic():
        if _in_place():
            if _locked_part(job_id, attempt, section, str(key))[0]:
                _set_part(job_id, section, "done", str(key), summary)
            return
        result = _locked_result(job_id, attempt)
        if result is None:
            return
        result.setdefault(section, _empty())["done"][str(key)] = summary
        Job.objects.filter(pk=job_id).update(result=result)


def parts_state(job_id, section: str) -> dict:
    """``{"claimed": {key: {"by", "at"}}, "done": {key: summary}}`` of the job's ``section``."""
    result = Job.objects.filter(pk=job_id).values_list("result", flat=True).first()
    state = (result or {}).get(section) if isinstance(result, dict) else None
    return state or _empty()


def parts_restart(job_id, section: str, *, keep_done: bool) -> dict:
    """At the start of an attempt: the section without its claims, and without the parts
    done by earlier attempts unless ``keep_done`` (parts that depend on nothing but their key
    need not run again). Returns the section as it now is."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).only("result").first()
        if job is None:
            return _empty()
        old = (job.result or {}).get(section) if isinstance(job.result, dict) else None
        state = {"claimed": {}, "done": dict((old or {}).get("done") or {}) if keep_done else {}}
        Job.objects.filter(pk=job_id).update(result={section: state})
    return state


def collect_parts(
    job_id,
    attempt: int,
    section: str,
    keys: list[str],
    compute: Callable[[str], dict],
    report: Callable[[dict], None],
    *,
    owner: str,
    poll_s: float = 0.2,
) -> dict:
    """Wait until every part in ``keys`` is done, computing here each one nobody has claimed
    (in the order of ``keys``) and, after ``JOBS_HEARTBEAT_TIMEOUT_S`` without progress, each
    one claimed and not done. ``report(done)`` is called with the summaries done so far at
    every step (it may raise to stop). Returns the summaries by key."""
    waited_since = time.monotonic()
    while True:
        state = parts_state(job_id, section)
        done = state.get("done", {})
        report(done)
        pending = [k for k in keys if k not in done]
        if not pending:
            return {k: done[k] for k in keys}
        claimed = state.get("claimed", {})
        todo = [k for k in pending if k not in claimed]
        key = next((k for k in todo if claim_part(job_id, attempt, section, k, owner)), None)
        if key is None and time.monotonic() - waited_since > heartbeat_timeout_s():
            stale = [k for k in pending if k in claimed]
            limit = heartbeat_timeout_s()
            key = next(
                (
                    k
                    for k in stale
                    if claim_part(job_id, attempt, section, k, owner, steal_after=limit)
                ),
                None,
            )
        if key is None:
            time.sleep(poll_s)
            continue
        part_done(job_id, attempt, section, key, compute(key))
        waited_since = time.monotonic()
