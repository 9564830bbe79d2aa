"""The "As built" page of a revision: upload what the built fabric reports (LLDP table,
``ibnetdiscover`` output, NetBox cable CSV), see every difference from the design by label,
rack and RU, and download them as the installer's CSV.

Views parse the request and call one function of :mod:`planner.asbuilt.services`; who may read
or change a design is decided in :mod:`planner.designs.selectors`.
"""

from __future__ import annotations

from collections import Counter

from django import forms
from django.contrib import messages
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from planner.asbuilt.models import FieldImportFormatChoices
from planner.asbuilt.services import (
    CABLING_FORMATS,
    MAX_FILE_CHARS,
    CablingRejected,
    cabling_import_dict,
    cabling_import_get,
    cabling_report_csv,
    revision_cabling_imports,
    revision_import_cabling,
)
from planner.designs import selectors
from planner.domain.asbuilt.cabling import FINDING_KINDS

KIND_TITLES = {
    "missing": "Missing",
    "unexpected": "Unexpected",
    "swapped-ports": "Swapped ports",
    "wrong-rail": "Wrong rail",
    "wrong-plane": "Wrong plane",
    "wrong-speed": "Wrong speed",
}
#: Findings shown on the page (the CSV has them all).
PAGE_FINDINGS = 500


class AsBuiltUploadForm(forms.Form):
    source_format = forms.ChoiceField(
        label="Format",
        choices=[(f, FieldImportFormatChoices(f).label) for f in CABLING_FORMATS],
    )
    file = forms.FileField(label="File from the built fabric")
    device = forms.CharField(
        label="Switch (LLDP of one switch)",
        required=False,
        max_length=200,
        help_text="Only for a file of one switch that does not name it (lldpctl -f json, an "
        "NVUE table without a host column).",
    )


def _problem_text(problem: dict) -> str:
    return problem["message"]


def _page(request, design, revision, *, form=None, problems=None, status=200):
    can_write = selectors.design_can_write(request.user, design)
    imports = [
        cabling_import_dict(r, with_report=False) for r in revision_cabling_imports(revision)[:50]
    ]
    chosen = None
    wanted = request.GET.get("import")
    if wanted and wanted.isdigit():
        chosen = cabling_import_dict(cabling_import_get(revision, int(wanted)), with_report=True)
    elif imports:
        chosen = cabling_import_dict(
            cabling_import_get(revision, imports[0]["id"]), with_report=True
        )
    counts = []
    if chosen:
        stored = Counter(f["kind"] for f in chosen["findings"])
        totals = chosen["summary"].get("counts") or stored
        counts = [
            {"kind": kind, "title": KIND_TITLES[kind], "count": totals.get(kind, 0)}
            for kind in FINDING_KINDS
        ]
        for finding in chosen["findings"]:
            finding["title"] = KIND_TITLES.get(finding["kind"], finding["kind"])
    context = {
        "design": design,
        "revision": revision,
        "can_write": can_write,
        "form": form or AsBuiltUploadForm(),
        "problems": problems or [],
        "imports": imports,
        "chosen": chosen,
        "counts": counts,
        "findings": (chosen or {}).get("findings", [])[:PAGE_FINDINGS],
        "page_findings": PAGE_FINDINGS,
    }
    return render(request, "asbuilt/revision_asbuilt.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def revision_asbuilt(request, pk, number):
    """GET: the newest (or ``?import=<id>``) as-built check of the revision. POST: check an
    uploaded file (design editors)."""
    design = selectors.design_get_for(request.user, pk, write=request.method == "POST")
    revision = selectors.revision_get(design, number)
    if request.method != "POST":
        return _page(request, design, revision)
    form = AsBuiltUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, design, revision, form=form, status=400)
    upload = form.cleaned_data["file"]
    problems = []
    if upload.size > MAX_FILE_CHARS:
        problems = ["The file is over 10 MiB."]
    else:
        try:
            text = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            problems = ["The file is not UTF-8 text; save it as UTF-8."]
    if not problems:
        try:
            record = revision_import_cabling(
                user=request.user,
                design=design,
                revision=revision,
                text=text,
                fmt=form.cleaned_data["source_format"],
                file_name=upload.name,
                device=form.cleaned_data["device"],
            )
        except CablingRejected as exc:
            problems = [_problem_text(p) for p in exc.problems]
            if exc.more:
                problems.append(f"… and {exc.more:,} more problems.")
        else:
            total = record.summary.get("findings", 0)
            messages.success(
                request,
                f"Checked {upload.name} against revision {revision.number}: "
                f"{total:,} difference{'s' if total != 1 else ''} from the design.",
            )
            url = reverse("planner:revision-asbuilt", args=[design.pk, revision.number])
            return redirect(f"{url}?import={record.pk}")
    return _page(request, design, revision, form=form, problems=problems, status=400)


@require_GET
def revision_asbuilt_csv(request, pk, number, import_pk):
    """The findings of one check as the installer's CSV."""
    design = selectors.design_get_for(request.user, pk)
    revision = selectors.revision_get(design, number)
    record = cabling_import_get(revision, import_pk)
    response = StreamingHttpResponse(cabling_report_csv(record), content_type="text/csv")
    response["Content-Disposition"] = (
        f'attachment; filename="as-built-design{design.pk}-r{revision.number}-{record.pk}.csv"'
    )
    return response
