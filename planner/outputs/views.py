"""Pages of a revision's outputs: the bill of materials (with spares), downloads of the cabling
plan, exports and day-0 switch configuration, and the upload of an edited cabling plan.

Views parse the request and call one function of :mod:`planner.outputs.services`; who may read or
change a design is decided in :mod:`planner.designs.selectors`.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from planner.designs import selectors, services
from planner.designs.adapters import catalog_facts
from planner.designs.bom import OutputError, revision_bom, revision_fabric_or_error
from planner.domain.outputs import CATEGORY_LABELS, SPARES_CATEGORIES, BomError
from planner.domain.outputs.telemetry import OS_TITLES, SOURCES, telemetry_plan
from planner.domain.outputs.telemetry_files import plan_rows
from planner.outputs import services as outputs
from simulation.overlays import revision_utilization


class SparesForm(forms.Form):
    """Spares per category, percent (blank = 0); field names ``spares_<category>``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for category in SPARES_CATEGORIES:
            self.fields[f"spares_{category}"] = forms.DecimalField(
                label=CATEGORY_LABELS[category],
                required=False,
                min_value=0,
                max_value=1000,
                decimal_places=2,
                widget=forms.NumberInput(attrs={"step": "any", "placeholder": "0"}),
            )

    def spares_pct(self) -> dict[str, float]:
        return {
            name.removeprefix("spares_"): float(value)
            for name, value in self.cleaned_data.items()
            if value
        }


class CablingUploadForm(forms.Form):
    file = forms.FileField(label="Edited cabling plan (CSV)")
    base_revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    message = forms.CharField(label="Message", required=False, max_length=300)
    allow_remove_all = forms.BooleanField(
        label="Allow removing every cable",
        required=False,
        help_text="Only for a file that is meant to list no cable of this revision.",
    )


def _grouped(bom) -> list[dict]:
    """BOM lines grouped by category, then by tier, for the table."""
    groups: list[dict] = []
    for line in bom.lines:
        if not groups or groups[-1]["category"] != line.category:
            groups.append(
                {
                    "category": line.category,
                    "label": CATEGORY_LABELS[line.category],
                    "tiers": [],
                    "quantity": 0,
                }
            )
        group = groups[-1]
        if not group["tiers"] or group["tiers"][-1]["tier"] != line.tier:
            group["tiers"].append({"tier": line.tier, "lines": []})
        group["tiers"][-1]["lines"].append(line)
        group["quantity"] += line.quantity
    return groups


def _telemetry(design, revision) -> dict | None:
    """The telemetry plan section of the outputs page (None when the fabric cannot be read)."""
    try:
        fabric = revision_fabric_or_error(revision)
    except OutputError:
        return None
    plan = telemetry_plan(
        fabric,
        catalog_facts(),
        name=design.name,
        revision=revision.number,
        utilization=revision_utilization(design, revision.number),
    )
    rows = plan_rows(plan)
    for row in rows:
        row["paths"] = [
            {
                "os": os_title,
                "text": text,
                "sources": [
                    {"key": key, "url": SOURCES[key]}
                    for key in source.split("; ")
                    if key in SOURCES and SOURCES[key].startswith("https://")
                ],
            }
            for os_title, text, source in row["paths"]
        ]
    return {
        "plan": plan,
        "rows": rows,
        "rx": plan.rx[:12],
        "rx_more": max(0, len(plan.rx) - 12),
        "gb_per_day": plan.bytes_per_day / 1e9,
        "storage_source": SOURCES["prometheus-storage"],
        "kp4_source": SOURCES["kp4-ber"],
        "os_titles": [(OS_TITLES[k], n) for k, n in sorted(plan.switches_by_os.items())],
    }


def _page(request, design, revision, *, upload_form=None, problems=None, status=200):
    spares_form = SparesForm(request.GET or None)
    spares = spares_form.spares_pct() if spares_form.is_valid() else {}
    context = {
        "design": design,
        "revision": revision,
        "latest": design.latest_revision,
        "can_write": selectors.design_can_write(request.user, design),
        "spares_form": spares_form,
        "query": request.GET.urlencode() if spares else "",
        "formats": [
            {"fmt": fmt, "title": title}
            for fmt, (_, _, title) in outputs.DOWNLOAD_FORMATS.items()
            if fmt not in outputs.CONFIG_DOWNLOADS
            and fmt not in outputs.TELEMETRY_DOWNLOADS
            and fmt not in outputs.SUBNET_DOWNLOADS
        ],
        "config_formats": [  # the InfiniBand topology beside the opensm.conf fragment
            {"fmt": fmt, "title": outputs.DOWNLOAD_FORMATS[fmt][2]}
            for fmt in (*outputs.CONFIG_DOWNLOADS, *outputs.SUBNET_DOWNLOADS)
        ],
        "telemetry_formats": [
            {"fmt": fmt, "title": outputs.DOWNLOAD_FORMATS[fmt][2]}
            for fmt in outputs.TELEMETRY_DOWNLOADS
        ],
        "upload_form": upload_form,
        "problems": problems or [],
        "error": None,
        "is_latest": False,
    }
    try:
        bom = revision_bom(revision, spares_pct=spares)
    except OutputError as exc:
        context["error"] = exc.message
        return render(request, "designs/outputs/revision_outputs.html", context, status=422)
    except BomError as exc:  # the form's limits match clean_spares_pct; kept for safety
        spares_form.add_error(None, str(exc))
        bom = revision_bom(revision)
    telemetry = _telemetry(design, revision)
    context.update({"bom": bom, "groups": _grouped(bom), "telemetry": telemetry})
    # A download that cannot apply is shown disabled with its reason, not as a link to a 422.
    refused = outputs.revision_export_refusals(revision)
    notes = outputs.revision_export_notes(revision)
    for item in (*context["formats"], *context["config_formats"]):
        item["refused"] = refused.get(item["fmt"], "")
        item["note"] = notes.get(item["fmt"], "")
    if telemetry and not set(telemetry["plan"].ports_by_os) - {"infiniband"}:
        # InfiniBand switches are no gNMI targets: that download would only refuse.
        context["telemetry_formats"] = [
            item for item in context["telemetry_formats"] if item["fmt"] != "telemetry-gnmic"
        ]
        context["telemetry_no_gnmi"] = True
    latest = context["latest"]
    context["is_latest"] = latest is not None and latest.number == revision.number
    if context["upload_form"] is None and context["is_latest"]:
        context["upload_form"] = CablingUploadForm(initial={"base_revision": revision.number})
    return render(request, "designs/outputs/revision_outputs.html", context, status=status)


@require_GET
def revision_outputs(request, pk, number):
    """The BOM of a revision (``?spares_<category>=pct``) and its cabling and export downloads."""
    design = selectors.design_get_for(request.user, pk)
    revision = selectors.revision_get(design, number)
    return _page(request, design, revision)


@require_GET
def revision_download(request, pk, number, fmt):
    """Download one format of a revision (streamed); a broken revision gets an error page."""
    design = selectors.design_get_for(request.user, pk)
    revision = selectors.revision_get(design, number)
    if fmt not in outputs.DOWNLOAD_FORMATS:
        raise Http404(f"Unknown format {fmt!r}.")
    spares_form = SparesForm(request.GET or None)
    spares = spares_form.spares_pct() if spares_form.is_valid() else {}
    try:
        export = outputs.revision_export(
            user=request.user,
            design=design,
            revision=revision,
            fmt=fmt,
            spares_pct=spares,
            site=request.GET.get("site", ""),
            utilization=(
                revision_utilization(design, revision.number)
                if fmt in outputs.TELEMETRY_DOWNLOADS
                else None
            ),
        )
    except OutputError as exc:
        context = {"design": design, "revision": revision, "message": exc.message}
        return render(request, "designs/outputs/export_error.html", context, status=422)
    response = StreamingHttpResponse(export.chunks, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


def _form_worded(problem: dict) -> dict:
    """A problem as the upload page words it (a checkbox instead of an API field)."""
    if problem.get("code") != "removes-all":
        return problem
    hint = "tick “Allow removing every cable”"
    return {**problem, "message": problem["message"].replace(outputs.REMOVE_ALL_HINT, hint)}


@require_POST
def cabling_import(request, pk):
    """Apply an uploaded cabling plan as a new revision, or show its row-numbered problems."""
    design = selectors.design_get_for(request.user, pk, write=True)
    form = CablingUploadForm(request.POST, request.FILES)
    latest = design.latest_revision
    if latest is None:
        raise Http404("This design has no revision.")
    shown = latest
    if form.is_valid():
        base = form.cleaned_data["base_revision"]
        shown = design.revisions.filter(number=base).first() or latest
        try:
            revision, edit = outputs.design_import_cabling(
                design=design,
                user=request.user,
                csv_file=form.cleaned_data["file"],
                base_revision=base,
                message=form.cleaned_data["message"],
                allow_remove_all=form.cleaned_data["allow_remove_all"],
            )
        except services.RevisionConflict as exc:
            form.add_error(
                None,
                f"{exc} The file was downloaded from revision {exc.base}; download the cabling "
                f"plan of revision {exc.latest}, make the changes again and upload it.",
            )
            return _page(request, design, latest, upload_form=form, status=409)
        except services.DesignError as exc:
            problems = [_form_worded(problem) for problem in exc.problems]
            return _page(request, design, shown, upload_form=form, problems=problems, status=400)
        else:
            messages.success(
                request,
                f"Imported the cabling plan as revision {revision.number}: "
                f"{len(edit.changed)} changed, {len(edit.added_rows)} added, "
                f"{len(edit.removed)} removed.",
            )
            return redirect(reverse("planner:revision-outputs", args=[design.pk, revision.number]))
    return _page(request, design, shown, upload_form=form, status=400)
