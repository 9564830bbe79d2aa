"""Feed every switch of planner SONiC exports to SONiC's own validator, ``sonic_yang``.

Run with the Python that has SONiC's ``sonic_yang`` (sonic-yang-mgmt), ``libyang`` (libyang-python)
and the sonic-yang-models installed (see README.md; not the project's virtualenv)::

    python validate.py YANG_DIR export1.json [export2.json ...]

Per file it prints its sha256 (what tests/unit/test_sonic_config_db.py compares the current
export with), then one line per switch: ``OK`` after ``loadData`` (the config_db JSON translated
to the YANG data tree, libyang parsing it against every model) and ``validate_data_tree`` (the
whole tree: mandatory nodes, patterns, ranges, leafrefs, must/when), or ``FAIL`` with
sonic_yang's message. The closing ``_needs_platform_port_table`` entry of an export is not a
switch and is not fed.
"""

import hashlib
import json
import sys


def main(yang_dir: str, paths: list[str]) -> int:
    import sonic_yang  # SONiC's stack, not in the project's virtualenv (README.md)

    checker = sonic_yang.SonicYang(yang_dir, print_log_enabled=False)
    checker.loadYangModel()
    total = refused = 0
    for path in paths:
        with open(path, "rb") as handle:
            raw = handle.read()
        data = json.loads(raw)
        switches = [name for name in data if not name.startswith("_")]
        digest = hashlib.sha256(raw).hexdigest()
        print(f"# file {path.rsplit('/', 1)[-1]} sha256 {digest} switches {len(switches)}")
        for name in switches:
            fragment = data[name]
            total += 1
            try:
                checker.loadData(configdbJson=fragment)
                checker.validate_data_tree()
            except Exception as exc:  # sonic_yang raises its own and libyang's errors
                refused += 1
                print(f"{name}: FAIL {' '.join(str(exc).split())[:400]}")
                continue
            dropped = sorted(getattr(checker, "tablesWithOutYang", {}) or [])
            ports = len(fragment.get("PORT", {}))
            print(f"{name}: OK tables={len(fragment)} ports={ports} no-yang-tables={dropped}")
    print(f"# total {total} valid {total - refused} refused {refused}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
