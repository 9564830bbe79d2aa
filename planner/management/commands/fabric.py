"""``python manage.py fabric``: designs from the command line.

Examples::

    python manage.py fabric summary planner/domain/examples/h100-superpod-4su.yaml
    python manage.py fabric generate my-spec.yaml                 # prints the summary only
    python manage.py fabric generate my-spec.yaml --save --owner alice   # prints the design id
    python manage.py fabric validate my-spec.yaml --json          # link problems as JSON
    python manage.py fabric power my-spec.yaml --json --pue 1.3   # power and heat budget
    python manage.py fabric simulate my-spec.yaml --traffic all-reduce --routing ecmp --json
    python manage.py fabric simulate my-spec.yaml --routing rail --dump-flows flows.json
    python manage.py fabric export my-spec.yaml --format bom-csv   # BOM CSV on standard output
    python manage.py fabric export 12 --format cabling-csv --revision 3 --out plan.csv
    python manage.py fabric export 12 --format netbox --out nb.zip  # the NetBox bundle, a zip
    python manage.py fabric config my-spec.yaml --format nvue      # day-0 NVUE commands, stdout
    python manage.py fabric config 12 --format sonic --out cfg.json  # SONiC config_db per switch
    python manage.py fabric explore needs.yaml --format csv --out front.csv  # the Pareto front

An invalid or infeasible spec, or an unreadable file, exits with status 1 and the problems (each
naming its spec field) on standard error. ``validate`` exits 0 when it finds problems in the
fabric: they are its output. ``validate``, ``power`` and ``simulate`` run the code of the jobs
of the same names (:func:`simulation.services.fabric_validate`,
:func:`~simulation.services.fabric_power`, :func:`~simulation.services.fabric_simulate`),
synchronously. ``simulate --routing`` is rail, ecmp, flowlet (``--flowlets K``), spraying
(``adaptive``, its old name), ib-ar or opensm (the real OpenSM's forwarding tables, run on
ibsim over the design's topology with ``--opensm-engine``, default updn; where Debian's opensm
and ibsim are installed); without it the design's transport settings choose. The
printed congestion line (hot ports, the links a PFC pause reaches) assumes ``--pfc-mode`` or the
design's flow control. ``simulate --dump-flows FILE`` writes the directed links and every
flow's path and finish time (single-path routing only: rail, ecmp or opensm). ``export`` writes a
spec file's fabric, or a saved design's latest revision (``--revision N`` for another), in
one of the formats of :mod:`planner.domain.outputs` (see ``fabric export --help``); ``config``
writes the day-0 switch configuration the same way (:mod:`planner.domain.outputs.config`, see
``fabric config --help``); ``explore`` evaluates every candidate a requirements document
allows, in this process, and prints the Pareto front (:mod:`simulation.explore_cli`); a file
given with ``--out`` is written whole or not at all.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from inventory.management.base import DatabaseCommand
from planner.analyses.flow import FLOWLETS_MAX, ROUTING_ALIASES, ROUTINGS
from planner.analyses.opensm import ENGINES as OPENSM_ENGINES
from planner.analyses.opensm import missing_tools
from planner.analyses.opensm import report_line as opensm_report_line
from planner.analyses.reports import fabric_power, fabric_simulate, fabric_validate
from planner.analyses.resilience import measure_graph
from planner.analyses.scenario import PLACEMENTS, TRAFFICS, flow_dump
from planner.designs.adapters import catalog_facts
from planner.designs.bom import OutputError, revision_fabric_or_error
from planner.designs.models import Design
from planner.designs.services import DesignError, design_build, design_create
from planner.domain.outputs import EXPORT_FORMATS, BomError, clean_spares_pct
from planner.domain.outputs.avd import avd_yaml_model_refusal
from planner.domain.outputs.config import CONFIG_FORMATS, ConfigError, config_chunks
from planner.domain.outputs.exports import DEFAULT_SITE
from planner.domain.outputs.netbox_bundle import netbox_bundle, netbox_bundle_zip
from planner.domain.outputs.telemetry import TelemetryError
from planner.domain.spec import SpecError, load_spec_text
from planner.outputs.services import (
    SUBNET_DOWNLOADS,
    export_chunks,
    export_refusals,
    manufacturer_names,
)
from simulation.explore_cli import ExploreCommandError, explore_file, front_text


def _graph_figures(fabric) -> dict:
    """The bisection measured by max-flow beside the summary's formula, and the leaves' edge
    connectivity (:func:`planner.analyses.resilience.measure_graph`)."""
    graph = measure_graph(fabric).as_dict()
    bisection = graph["bisection"]
    return {
        "bisection_measured_gbps": bisection["measured_gbps"],
        "bisection_nonblocking_gbps": bisection["nonblocking_gbps"],
        "bisection_halves": bisection["halves"],
        "edge_connectivity": graph["edge_connectivity"],
        "max_hops_measured": graph["max_hops"]["measured"],
    }


def _problem_lines(problems: list[dict]) -> str:
    return "\n".join(
        f"  {p['field']}: {p['message']}" if p["field"] else f"  {p['message']}" for p in problems
    )


def _validation_text(report: dict) -> str:
    problems = report.get("problems") or []
    if not problems:
        return "No problems."
    lines = [f"{len(problems)} problem(s):"]
    for p in problems:
        ids = p.get("element_ids") or []
        where = f" [{', '.join(ids[:5])}{', ...' if len(ids) > 5 else ''}]" if ids else ""
        lines.append(f"  {p.get('severity', '?')}: {p.get('code')}: {p.get('message')}{where}")
        if p.get("suggestion"):
            lines.append(f"    suggestion: {p['suggestion']}")
    return "\n".join(lines)


def _kw(watts) -> str:
    return f"{(watts or 0) / 1000:,.1f} kW"


def _power_text(report: dict) -> str:
    kw = _kw
    lines = [f"Total {kw(report['total_w'])} ({report['btu_h']:,.0f} BTU/h)"]
    lines += [f"  {name:<13}{kw(watts):>14}" for name, watts in report["by_category"].items()]
    lines.append(
        f"Network {kw(report['network_w'])}: {report['network_w_per_gpu'] or 0:g} W per GPU, "
        f"optics {100 * (report['optics_share'] or 0):.1f} %"
    )
    if report.get("facility_w") is not None:
        lines.append(f"Facility at PUE {report['pue']:g}: {kw(report['facility_w'])}")
    lines.append(
        "Figures: "
        + ", ".join(
            f"{grade} {100 * share:.1f} %" for grade, share in report["confidence"].items() if share
        )
    )
    over = [r for r in report["racks"] if r["limit_w"] and r["power_w"] > r["limit_w"]]
    lines.append(f"{len(report['racks'])} racks, {len(over)} over their limit")
    lines += [f"  {p['severity']}: {p['message']}" for p in report.get("problems") or []]
    return "\n".join(lines)


class Command(DatabaseCommand):
    help = (
        "Summarize, generate, validate, budget the power of, simulate, export or write the "
        "day-0 switch configuration of designs from spec files (export and config also from "
        "saved designs)."
    )

    def add_arguments(self, parser):
        """The command's sub-commands and their options.

        Long because: one add_parser or add_argument call per sub-command and option, each with
        its help text.
        """
        sub = parser.add_subparsers(dest="action", required=True)
        summary = sub.add_parser("summary", help="Print the summary of a spec as JSON.")
        summary.add_argument("spec_file", help="YAML or JSON design spec.")
        generate = sub.add_parser(
            "generate", help="Generate a spec's fabric; with --save, store it as a design."
        )
        generate.add_argument("spec_file", help="YAML or JSON design spec.")
        generate.add_argument(
            "--save", action="store_true", help="Store the design and print its id."
        )
        generate.add_argument(
            "--owner", help="Username of the design's owner (default: the first superuser)."
        )
        validate = sub.add_parser(
            "validate", help="Check every link of a spec's fabric; print the problems."
        )
        validate.add_argument("spec_file", help="YAML or JSON design spec.")
        validate.add_argument("--json", action="store_true", help="Print the report as JSON.")
        power = sub.add_parser("power", help="Power and heat budget of a spec's fabric.")
        power.add_argument("spec_file", help="YAML or JSON design spec.")
        power.add_argument("--json", action="store_true", help="Print the budget as JSON.")
        power.add_argument("--pue", type=float, help="Power usage effectiveness (>= 1).")

        simulate = sub.add_parser("simulate", help="Flow simulation of a spec's fabric.")
        simulate.add_argument("spec_file", help="YAML or JSON design spec.")
        simulate.add_argument("--traffic", choices=TRAFFICS, default="all-reduce")
        simulate.add_argument(
            "--routing",
            choices=ROUTINGS + tuple(ROUTING_ALIASES),
            default=None,
            help="Load balancing (default: the design's transport settings; ecmp without).",
        )
        simulate.add_argument(
            "--flowlets",
            type=int,
            default=None,
            help=f"Flowlets per flow for --routing flowlet (1-{FLOWLETS_MAX}; default 1).",
        )
        simulate.add_argument(
            "--opensm-engine",
            choices=OPENSM_ENGINES,
            default=None,
            help="OpenSM routing engine for --routing opensm (default updn).",
        )
        simulate.add_argument(
            "--pfc-mode",
            choices=("lossless", "semi-lossless", "lossy"),
            default=None,
            help="Flow control the congestion report assumes (default: the design's).",
        )
        simulate.add_argument("--seed", type=int, default=0)
        simulate.add_argument("--size-bytes", type=float, default=1e9)
        simulate.add_argument("--fail-links", type=int, default=0)
        simulate.add_argument("--placement", choices=PLACEMENTS, default="contiguous")
        simulate.add_argument("--json", action="store_true", help="Print the result as JSON.")
        simulate.add_argument(
            "--dump-flows",
            metavar="FILE",
            help="Write links and flows (rail, ecmp or opensm only).",
        )

        export = sub.add_parser(
            "export",
            help="Write a BOM, cabling plan or export of a spec file or a saved design.",
            description="Formats: bom-csv (columns part, part_number, name, manufacturer, "
            "category, tier, length_m, base_quantity, spares, quantity, counted_per, "
            "length_rule), "
            "cabling-csv (one row per cable and breakout leg), netbox (NetBox bulk-import "
            "device and cable CSVs), p2p (NVIDIA cable validation point-to-point sheet), avd "
            "(Arista AVD topology CSV), avd-yaml (Arista AVD eos_designs inputs, one Ansible YAML "
            "inventory; Arista compute switches only), json (spec, summary, topology and BOM), "
            "telemetry-prometheus (Prometheus alerting rules of the telemetry plan, YAML), "
            "telemetry-gnmic (gNMIc subscriptions, YAML; not for InfiniBand). netbox writes "
            "the NetBox bundle, every object an empty NetBox needs in import order "
            "(01-manufacturers.csv ... 08-cables.csv): with --out FILE.zip a zip of them; with "
            "--out DIR those files in the directory DIR; on standard output each file after a "
            "comment line '# netbox 01-manufacturers.csv'.",
        )
        export.add_argument(
            "spec_file",
            metavar="SPEC_FILE_OR_DESIGN_ID",
            help="YAML or JSON design spec, or the id of a saved design.",
        )
        export.add_argument(
            "--format",
            required=True,
            choices=[
                *EXPORT_FORMATS,
                *SUBNET_DOWNLOADS,
                "avd-yaml",
                "telemetry-prometheus",
                "telemetry-gnmic",
            ],
            dest="fmt",
        )
        export.add_argument("--out", metavar="FILE", help="Write here instead of stdout.")
        export.add_argument(
            "--revision", type=int, help="Revision of a saved design (default: the latest)."
        )
        export.add_argument(
            "--spares",
            action="append",
            default=[],
            metavar="CATEGORY=PCT",
            help="Spares percent for a BOM category (repeatable), e.g. transceiver=2.",
        )
        export.add_argument("--site", default="", help="NetBox site name (netbox).")

        config = sub.add_parser(
            "config",
            help="Write the day-0 switch configuration of a spec file or a saved design.",
            description="Per switch of the compute fabric, the QoS/RoCE settings the design "
            "needs (InfiniBand: the subnet manager's). Formats: intent-yaml, intent-json (the "
            "settings as data, with their sources), nvue (NVIDIA Cumulus nv set commands, one "
            "section per switch), sonic (SONiC config_db.json, one object per switch), eos "
            "(Arista EOS, one section per switch), opensm (opensm.conf fragment). A format "
            "that cannot describe the design (nvue of an InfiniBand design, say) exits with "
            "status 1 saying what to use instead.",
        )
        config.add_argument(
            "spec_file",
            metavar="SPEC_FILE_OR_DESIGN_ID",
            help="YAML or JSON design spec, or the id of a saved design.",
        )
        config.add_argument("--format", required=True, choices=CONFIG_FORMATS, dest="fmt")
        config.add_argument("--out", metavar="FILE", help="Write here instead of stdout.")
        config.add_argument(
            "--revision", type=int, help="Revision of a saved design (default: the latest)."
        )
        explore = sub.add_parser(
            "explore",
            help="Explore the designs a requirements document allows; print the Pareto front.",
            description="Enumerates the candidates the requirements allow, builds, validates, "
            "costs and simulates each one in this process, and prints the front (--all: every "
            "candidate, with why it is dominated, infeasible or crashed). -v 2 prints progress "
            "on standard error.",
        )
        explore.add_argument(
            "spec_file", metavar="REQUIREMENTS", help="YAML or JSON requirements document."
        )
        explore.add_argument("--format", choices=("json", "csv"), default="json", dest="fmt")
        explore.add_argument("--out", metavar="FILE", help="Write here instead of stdout.")
        explore.add_argument(
            "--all", action="store_true", help="Every candidate, not only the front."
        )

    def handle(self, *args, action, spec_file, **options):
        if action == "explore":
            self._explore(spec_file, options)
            return
        if action == "export":
            self._export(spec_file, options)
            return
        if action == "config":
            self._config(spec_file, options)
            return
        if (
            action == "simulate"
            and options.get("dump_flows")
            and options.get("routing") not in (None, "rail", "ecmp", "opensm")
        ):
            raise CommandError("--dump-flows needs single-path routing (rail, ecmp or opensm)")
        if action == "simulate" and options.get("routing") == "opensm" and missing_tools():
            raise CommandError(f"--routing opensm: {missing_tools()}")
        if (
            action == "simulate"
            and options.get("opensm_engine")
            and options.get("routing") != "opensm"
        ):
            raise CommandError("--opensm-engine is for --routing opensm")
        if action == "simulate" and options.get("flowlets") is not None:
            if not 1 <= options["flowlets"] <= FLOWLETS_MAX:
                raise CommandError(f"--flowlets: 1 to {FLOWLETS_MAX}")
            if options.get("routing") != "flowlet":
                raise CommandError("--flowlets is for --routing flowlet")
        document = self._read(Path(spec_file))
        if action == "simulate":
            self._simulate(spec_file, document, options)
            return
        if action in ("validate", "power"):
            self._analyse(action, spec_file, document, options)
            return
        try:
            if action == "summary" or not options["save"]:
                _, fabric, summary = design_build(spec_document=document)
                self.stdout.write(json.dumps({**summary, **_graph_figures(fabric)}, indent=2))
                return
            owner = self._owner(options.get("owner"))
            design = design_create(owner=owner, spec_document=document)
        except DesignError as exc:
            raise CommandError(
                f"{spec_file}: the spec cannot be built:\n{_problem_lines(exc.problems)}"
            ) from exc
        self.stdout.write(str(design.pk))

    def _analyse(self, action: str, spec_file: str, document: dict, options: dict) -> None:
        pue = options.get("pue")
        if pue is not None and not pue >= 1:
            raise CommandError(f"--pue: must be at least 1.0 (got {pue:g})")
        try:
            _, fabric, _ = design_build(spec_document=document)
        except DesignError as exc:
            raise CommandError(
                f"{spec_file}: the spec cannot be built:\n{_problem_lines(exc.problems)}"
            ) from exc
        facts = catalog_facts()
        if action == "validate":
            report = fabric_validate(fabric=fabric, facts=facts)
        else:
            report = fabric_power(fabric=fabric, facts=facts, pue=pue)
        if options.get("json"):
            self.stdout.write(json.dumps(report, indent=2))
        elif action == "validate":
            self.stdout.write(_validation_text(report))
        else:
            self.stdout.write(_power_text(report))

    def _simulate(self, spec_file: str, document: dict, options: dict) -> None:
        """Build a spec and run a simulation of it, printing the result or a CommandError.

        Long because: one check per option combination, each with its own CommandError, then the
        run.
        """
        try:
            _, fabric, _ = design_build(spec_document=document)
        except DesignError as exc:
            raise CommandError(
                f"{spec_file}: the spec cannot be built:\n{_problem_lines(exc.problems)}"
            ) from exc
        if options["size_bytes"] <= 0 or options["fail_links"] < 0:
            raise CommandError("--size-bytes must be positive and --fail-links at least 0")
        storage = options["traffic"] == "storage-read"
        if storage and options.get("dump_flows"):
            raise CommandError(
                "--dump-flows is for the compute fabric's traffics, not storage-read"
            )
        facts = None
        if storage:
            facts = catalog_facts()
        keep: dict = {}
        try:
            result = fabric_simulate(
                fabric=fabric,
                traffic=options["traffic"],
                routing=options["routing"],
                seed=options["seed"],
                size_bytes=options["size_bytes"],
                fail_links=options["fail_links"],
                placement=options["placement"],
                keep=keep,
                facts=facts,
                flowlets=options.get("flowlets"),
                pfc_mode=options.get("pfc_mode"),
                **({"opensm_engine": e} if (e := options.get("opensm_engine")) else {}),
            )
        except ValueError as exc:
            raise CommandError(f"cannot simulate: {exc}") from exc
        if options.get("dump_flows"):
            try:
                dump = flow_dump(
                    keep["net"],
                    keep["flows"],
                    keep["result"],
                    result["routing"],
                    seed=options["seed"],
                )
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            try:
                Path(options["dump_flows"]).write_text(json.dumps(dump))
            except OSError as exc:
                raise CommandError(f"cannot write {options['dump_flows']}: {exc}") from exc
        if options.get("json"):
            self.stdout.write(json.dumps(result, indent=2))
            return
        if storage:
            read = result["storage_read"]
            rate = read["read_gbytes_per_node"]
            self.stdout.write(
                f"storage-read on the {read['network']} network, {read['readers']:,} nodes "
                f"reading at once, {result['routing']} routing: {rate['min']:,.2f} GB/s per "
                f"node (min; mean {rate['mean']:,.2f}, max {rate['max']:,.2f}), limited by "
                f"{' and '.join(read['bottleneck_tiers']) or 'nothing'}"
            )
            return
        self.stdout.write(
            f"{result['traffic']} over {result['ranks']:,} GPUs, {result['routing']} routing: "
            f"{result['completion_time_s'] * 1e3:,.3f} ms, algbw {result['algbw_gbps']:,.1f} "
            f"Gb/s, busbw {result['busbw_gbps']:,.1f} of {result['bound_busbw_gbps']:,.1f} Gb/s"
            f", max link utilization {result['max_link_utilization']:.1%}"
        )
        if result.get("opensm"):
            self.stdout.write(opensm_report_line(result["opensm"]))
        congestion = result.get("congestion") or {}
        if congestion.get("hot_port_count"):
            hot = congestion["hot_ports"][0]
            spread = (
                f"pause reaches {congestion['paused_links']:,} links upstream"
                if congestion["spreads"]
                else "ECN marks, no pause spreads"
            )
            self.stdout.write(
                f"{congestion['hot_port_count']:,} hot ports ({congestion['flow_control']}; "
                f"{spread}); the worst, {hot['from']} -> {hot['to']}, offered "
                f"{hot['offered']:,.2f} x its capacity"
            )

    def _export(self, source: str, options: dict) -> None:
        spares: dict[str, str] = {}
        for item in options["spares"]:
            category, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--spares: write CATEGORY=PCT, not {item!r}")
            spares[category.strip()] = value.strip()
        try:
            spares_pct = clean_spares_pct(spares)
        except BomError as exc:
            raise CommandError(f"--spares: {exc}") from exc
        fabric, context = self._source(source, options)
        fmt = options["fmt"]
        if fmt == "netbox":
            self._netbox(fabric, options)
            return
        formats = [fmt]
        if fmt.startswith("telemetry-"):
            try:
                body = export_chunks(fmt, fabric=fabric, facts=catalog_facts(), **context)
            except TelemetryError as exc:
                raise CommandError(exc.message) from exc
            if options.get("out"):
                self._write(Path(options["out"]), body)
            else:
                for chunk in body:
                    self.stdout.write(chunk, ending="")
            return
        facts = catalog_facts()
        makers: dict[str, str] = {}
        if fmt in SUBNET_DOWNLOADS and (refused := export_refusals(fabric, facts).get(fmt)):
            raise CommandError(refused.message)
        if fmt in ("avd", "avd-yaml") and (refusal := avd_yaml_model_refusal(fabric, facts)):
            raise CommandError(f"{refusal}. Use --format cabling-csv, p2p or netbox.")
        bodies = [
            export_chunks(
                name,
                fabric=fabric,
                facts=facts,
                spares_pct=spares_pct,
                site=options.get("site", ""),
                makers=makers,
                **context,
            )
            for name in formats
        ]
        out = options.get("out")
        if not out:
            for body in bodies:
                for chunk in body:
                    self.stdout.write(chunk, ending="")
            return
        self._write(Path(out), bodies[0])

    def _netbox(self, fabric, options: dict) -> None:
        """The NetBox bundle: a zip (``--out X.zip``), a directory of its files (``--out
        DIR``) or each file on standard output after a comment line naming it."""
        bundle = netbox_bundle(
            fabric,
            catalog_facts(),
            site=options.get("site") or DEFAULT_SITE,
            manufacturer_names=manufacturer_names(),
        )
        out = options.get("out")
        if not out:
            for name, text in bundle.files.items():
                self.stdout.write(f"# netbox {name}")
                self.stdout.write(text, ending="")
            return
        target = Path(out)
        if out.lower().endswith(".zip"):
            self._write_bytes(target, netbox_bundle_zip(bundle))
            return
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"cannot write {target}: {exc}") from exc
        for name, text in bundle.files.items():
            self._write(target / name, [text])

    def _write_bytes(self, target: Path, data: bytes) -> None:
        partial = target.with_name(target.name + ".partial")
        try:
            partial.write_bytes(data)
            os.replace(partial, target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"cannot write {target}: {exc}") from exc
        self.stderr.write(f"wrote {target}")

    def _source(self, source: str, options: dict):
        """The fabric of a spec file or a saved design, and its name, revision, spec, summary."""
        path = Path(source)
        if source.isdigit() and not path.exists():
            return self._saved_design(int(source), options.get("revision"))
        if options.get("revision"):
            raise CommandError("--revision applies to a saved design, not a spec file")
        document = self._read(path)
        try:
            spec, fabric, summary = design_build(spec_document=document)
        except DesignError as exc:
            raise CommandError(
                f"{source}: the spec cannot be built:\n{_problem_lines(exc.problems)}"
            ) from exc
        context = {
            "name": spec.name or path.stem,
            "revision": None,
            "spec": spec.as_dict(),
            "summary": summary,
        }
        return fabric, context

    def _explore(self, path: str, options: dict) -> None:
        def progress(text: str) -> None:
            if options.get("verbosity", 1) > 1:
                self.stderr.write(text)

        try:
            result = explore_file(Path(path), on_progress=progress)
        except ExploreCommandError as exc:
            raise CommandError(str(exc)) from exc
        text = front_text(result, options["fmt"], every=options.get("all", False))
        if options.get("out"):
            self._write(Path(options["out"]), [text])
            return
        self.stdout.write(text, ending="")

    def _write(self, target: Path, body) -> None:
        """Write ``body`` (text chunks) to ``target`` whole or not at all."""
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8", newline="") as handle:
                for chunk in body:
                    handle.write(chunk)
            os.replace(partial, target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"cannot write {target}: {exc}") from exc
        self.stderr.write(f"wrote {target}")

    def _config(self, source: str, options: dict) -> None:
        fabric, context = self._source(source, options)
        try:
            body = config_chunks(
                options["fmt"],
                fabric,
                catalog_facts(),
                name=context["name"],
                revision=context["revision"],
            )
        except ConfigError as exc:
            raise CommandError(exc.message) from exc
        if options.get("out"):
            self._write(Path(options["out"]), body)
            return
        for chunk in body:
            self.stdout.write(chunk, ending="")

    def _saved_design(self, pk: int, number: int | None):
        design = Design.objects.filter(pk=pk).first()
        if design is None:
            raise CommandError(f"no design {pk} (and no spec file of that name)")
        revision = (
            design.revisions.filter(number=number).first()
            if number
            else design.revisions.order_by("-number").first()
        )
        if revision is None:
            raise CommandError(f"design {pk} has no revision {number or ''}".rstrip())
        try:
            fabric = revision_fabric_or_error(revision)
        except OutputError as exc:
            raise CommandError(exc.message) from exc
        context = {
            "name": design.name,
            "revision": revision.number,
            "spec": revision.spec,
            "summary": revision.summary,
        }
        return fabric, context

    def _read(self, path: Path) -> dict:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        try:
            return load_spec_text(text, name=str(path))
        except SpecError as exc:
            problems = [{"field": f, "message": m} for f, m in exc.problems]
            raise CommandError(f"{path}: not a spec:\n{_problem_lines(problems)}") from exc

    def _owner(self, username: str | None):
        users = get_user_model()
        if username:
            owner = users.objects.filter(username=username).first()
            if owner is None:
                raise CommandError(f"--owner: no user {username!r}")
            return owner
        owner = users.objects.filter(is_superuser=True).order_by("pk").first()
        if owner is None:
            raise CommandError(
                "no superuser to own the design: pass --owner USERNAME "
                "(or run `python manage.py ensure_admin`)"
            )
        return owner
