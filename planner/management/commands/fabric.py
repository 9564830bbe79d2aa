"""``python manage.py fabric``: designs from the command line.

Examples::

    python manage.py fabric summary planner/domain/examples/h100-superpod-4su.yaml
    python manage.py fabric generate my-spec.yaml                 # prints the summary only
    python manage.py fabric generate my-spec.yaml --save --owner alice   # prints the design id

An invalid or infeasible spec, or an unreadable file, exits with status 1 and the problems (each
naming its spec field) on standard error.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from planner.domain.spec import SpecError, load_spec_text
from planner.services import DesignError, design_build, design_create


def _problem_lines(problems: list[dict]) -> str:
    return "\n".join(
        f"  {p['field']}: {p['message']}" if p["field"] else f"  {p['message']}" for p in problems
    )


class Command(BaseCommand):
    help = "Summarize or generate designs from YAML/JSON spec files."

    def add_arguments(self, parser):
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

    def handle(self, *args, action, spec_file, **options):
        document = self._read(Path(spec_file))
        try:
            if action == "summary" or not options["save"]:
                _, _, summary = design_build(spec_document=document)
                self.stdout.write(json.dumps(summary, indent=2))
                return
            owner = self._owner(options.get("owner"))
            design = design_create(owner=owner, spec_document=document)
        except DesignError as exc:
            raise CommandError(
                f"{spec_file}: the spec cannot be built:\n{_problem_lines(exc.problems)}"
            ) from exc
        self.stdout.write(str(design.pk))

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
