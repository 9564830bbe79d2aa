"""Design-space explorer (issue 39): from requirements to a Pareto front of buildable fabrics.

- :mod:`.requirements`: the requirements document, parsed and checked (:func:`parse_requirements`);
- :mod:`.candidates`: the candidates it allows, pruned by arithmetic (:func:`enumerate_candidates`);
- :mod:`.evaluate`: one candidate through the saved-design pipeline (:func:`evaluate_candidate`);
- :mod:`.front`: the Pareto front and why each other candidate is off it (:func:`explore_result`).

Pure (no Django); dataclasses in, JSON-safe dicts out; deterministic.
"""
