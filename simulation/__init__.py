"""Jobs: every background run of the product, whatever its kind, and the pages that read them.

The package keeps its first name, ``simulation`` (app label ``simulation``: its tables, its
migrations, the ``/api/simulation/`` routes and the Celery task names ``simulation.*`` all
carry it), but it holds the jobs, not the flow simulation alone, and Django calls it "Jobs":

- the ``Job`` row and its kinds (:mod:`simulation.models`): validation, power, flow simulation,
  sweeps, size sweeps, what-if, exploration, diagnostics; the lifecycle, the runs claimed on
  the row, heartbeat, recovery and dispatch by task name (:mod:`simulation.jobs`), the thin
  Celery tasks (:mod:`simulation.tasks`) and the one door to start or cancel a job
  (:mod:`simulation.services`);
- how each kind's result reads, on the job's page and on the design page's jobs panel (it owns
  the results, so it owns their pages): :mod:`simulation.presentation` (validation, power,
  simulation), :mod:`simulation.sweep_chart`, :mod:`simulation.size_sweep_chart`,
  :mod:`simulation.whatif_page`, :mod:`simulation.explore_page` and
  :mod:`simulation.explore_chart`; the canvas overlays of a revision's results
  (:mod:`simulation.overlays`);
- the jobs' pages and API (``/jobs/``, ``/explore/``, ``/api/simulation/``).

The analyses themselves are pure and live in :mod:`planner.analyses`; the answers a design page
computes at once from a revision (failures, latency, resilience, optical budget, the canvas's
what-if) belong to the designs (:mod:`planner.designs`), not to a job.
"""
