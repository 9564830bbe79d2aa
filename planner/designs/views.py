"""Pages of the app shell (home, health, API token) and of designs.

Design views parse the request, call one selector or service and render; who may see or change
a design is decided in :mod:`planner.designs.selectors`, and summaries are formatted by
:mod:`planner.presentation`.
"""

import json

import yaml
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import F
from django.db.models.functions import Lower
from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from inventory.permissions import (
    price_books_for,
)
from inventory.services import SEED_PRICE_BOOK
from planner import presentation
from planner.designs import failures as expected_failures
from planner.designs import figures, resilience, selectors, services, transport
from planner.designs.bom import OutputError, revision_bom_diff
from planner.designs.cache import cached, price_fingerprint, revision_ref
from planner.designs.filtersets import DESIGN_SORTS, DesignFilterSet
from planner.designs.forms import (
    DesignEditForm,
    DesignShareForm,
    DesignWizardForm,
    initial_from_spec,
    network_placeholders,
    wizard_presets,
)
from planner.domain.presets import preset_get
from planner.teams.selectors import teams_for, user_can_view_prices

# --- Designs ------------------------------------------------------------------------------------


@require_GET
def design_list(request):
    """Designs the user may open (their own and those shared with their teams): search by
    name, owner or team, sortable columns, power and, with the price right, cost."""
    filterset = DesignFilterSet(
        request.GET or None, queryset=selectors.design_list_for(request.user)
    )
    sort = request.GET.get("sort", "-updated")
    if sort.removeprefix("-") not in DESIGN_SORTS:
        sort = "-updated"
    key = sort.removeprefix("-")
    order = Lower(DESIGN_SORTS[key]) if key in {"name", "owner"} else F(DESIGN_SORTS[key])
    order = order.desc(nulls_last=True) if sort.startswith("-") else order.asc(nulls_last=True)
    valid = not filterset.is_bound or filterset.is_valid()
    designs = filterset.qs if valid else filterset.queryset.none()
    page = Paginator(designs.order_by(order, "-pk"), 50).get_page(request.GET.get("page"))
    book = figures.cost_book(request.user)
    numbers = figures.design_figures(page, book=book)
    rows = [
        {
            "design": design,
            "gpus": presentation.number(design.gpus),
            "switches": presentation.number((design.latest_summary or {}).get("switches_total")),
            **numbers.get(design.pk, {}),
        }
        for design in page
    ]
    columns = [
        ("Name", "name", False),
        ("Owner", "owner", False),
        ("Shared", None, False),
        ("GPUs", "gpus", True),
        ("Switches", None, True),
        ("Power", None, True),
        *([("Cost", None, True)] if book else []),
        ("Revision", None, True),
        ("Updated", "updated", False),
    ]
    headers = [_sort_header(label, key_, sort, numeric) for label, key_, numeric in columns]
    context = {
        "rows": rows,
        "page": page,
        "filterset": filterset,
        "filtered": any(v for k, v in request.GET.items() if k not in {"sort", "page"}),
        "sort": sort,
        "sorted_by": next(h for h in headers if h["state"]),
        "headers": headers,
        "cost_book": book,
        "team_names": list(teams_for(request.user).values_list("name", flat=True)),
    }
    return render(request, "designs/design_list.html", context)


def _sort_header(label: str, key: str | None, current: str, numeric: bool) -> dict:
    """A column header: its link sorts by it (again: the other way), ``state`` is its
    ``aria-sort`` when the list is sorted by it."""
    state = None
    if key and current.removeprefix("-") == key:
        state = "descending" if current.startswith("-") else "ascending"
    first = f"-{key}" if key in {"gpus", "updated"} else key  # biggest, newest first
    again = (f"-{key}" if state == "ascending" else key) if state else first
    words = {
        "name": ("A to Z", "Z to A"),
        "owner": ("A to Z", "Z to A"),
        "gpus": ("fewest first", "most first"),
        "updated": ("oldest first", "newest first"),
    }.get(key, ("", ""))
    return {
        "label": label,
        "sort": again if key else None,
        "state": state,
        "numeric": numeric,
        "direction": words[state == "descending"] if state else "",
    }


@require_http_methods(["GET", "POST"])
def design_new(request):
    """The design wizard: spec fields or YAML/JSON, presets, and a live summary."""
    preset = preset_get(request.GET.get("preset", ""))
    initial = initial_from_spec(preset.spec) if preset else {}
    form = DesignWizardForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            design = services.design_create(
                owner=request.user,
                spec_document=form.spec_document(),
                team=form.cleaned_data["team"],
                sharing=form.cleaned_data["sharing"],
            )
        except services.DesignError as exc:
            form.add_problems(exc.problems)
        except ValidationError as exc:
            _add_model_errors(form, exc)
        else:
            messages.success(request, f"Saved design “{design.name}”.")
            return redirect(design)
    context = {
        "form": form,
        "presets": wizard_presets(),
        "network_placeholders": network_placeholders(),
    }
    return render(request, "designs/design_wizard.html", context)


def _add_model_errors(form, exc):
    for field, errors in exc.message_dict.items():
        for message in errors:
            form.add_error(field if field in form.fields else None, message)


@require_GET
def design_detail(request, pk):
    """A design's summary (latest revision, or ``?revision=n``), revisions and actions."""
    return _design_detail(request, selectors.design_get_for(request.user, pk))


def _design_detail(request, design, *, share_form=None, status=200):
    revisions = list(selectors.revision_list(design))
    latest = revisions[0] if revisions else None
    shown = latest
    if request.GET.get("revision"):
        shown = selectors.revision_get(design, request.GET["revision"])
    context = {
        "design": design,
        "revisions": revisions,
        "latest": latest,
        "shown": shown,
        "revision_sections": _revision_sections(request, design, shown, latest),
        "can_write": selectors.design_can_write(request.user, design),
        "can_manage": selectors.design_can_manage(request.user, design),
    }
    if context["can_manage"]:
        context["share_form"] = share_form or DesignShareForm(
            owner=design.owner,
            initial={"team": design.team.slug if design.team else None, "sharing": design.sharing},
        )
    return render(request, "designs/design_detail.html", context, status=status)


@require_POST
def design_share(request, pk):
    """Share the design with one of the owner's teams, or make it private (owner only)."""
    design = selectors.design_get_for(request.user, pk, manage=True)
    form = DesignShareForm(request.POST, owner=design.owner)
    if form.is_valid():
        try:
            services.design_update(
                design=design,
                actor=request.user,
                team=form.cleaned_data["team"],
                sharing=form.cleaned_data["sharing"],
            )
        except ValidationError as exc:
            _add_model_errors(form, exc)
        else:
            if design.team is None:
                messages.success(request, f"“{design.name}” is private: only you see it.")
            else:
                messages.success(
                    request,
                    f"Shared “{design.name}” with {design.team.name} "
                    f"({design.get_sharing_display().lower()}).",
                )
            return redirect(design)
    design.refresh_from_db()
    return _design_detail(request, design, share_form=form, status=400)


#: The query parameters the revision's sections read (the expected failures' inputs).
SECTION_PARAMETERS = ("job_gpus", "lead_time_days", "level", "revision")


def _revision_sections(request, design, shown, latest) -> str:
    """The design page's sections of the shown revision (summary, optical budget, latency,
    graph measurements, transport, expected failures) as HTML.

    Kept in the cache (:mod:`planner.designs.cache`) by revision, catalog, the failures'
    inputs and, for a user with the price right (checked here on every request), the price
    book and its prices: users without it share the unpriced sections.
    """
    book = figures.cost_book(request.user)

    def render_sections() -> str:
        context = {
            "design": design,
            "latest": latest,
            "shown": shown,
            "summary": presentation.summary_context(shown.summary if shown else {}),
            "transport": transport.page_context(request.user, shown),
            "resilience": resilience.page_context(shown),
            "failures": expected_failures.page_context(request, design, shown),
        }
        return render_to_string("designs/_revision_sections.html", context, request=request)

    if shown is None:
        return mark_safe(render_sections())  # noqa: S308 (rendered by the template engine)
    parts = [
        revision_ref(shown),
        design.pk,
        design.name,
        shown.number == latest.number,
        price_fingerprint(book) if book is not None else None,
        {name: request.GET.get(name, "") for name in SECTION_PARAMETERS},
    ]
    html = cached("design-page-sections", parts, render_sections)
    return mark_safe(html)  # noqa: S308 (rendered by the template engine)


def _spec_yaml(spec: dict) -> str:
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True)


@require_http_methods(["GET", "POST"])
def design_edit(request, pk):
    """Edit the spec as text; saving makes a new revision based on the one edited.

    If someone saved a revision in between, the page says so, shows what changed, and offers
    to reload the latest or to save this text on top of it.
    """
    design = selectors.design_get_for(request.user, pk, write=True)
    latest = design.latest_revision
    conflict = None
    if request.method == "POST":
        form = DesignEditForm(request.POST)
        if form.is_valid():
            try:
                revision = services.design_revise(
                    design=design,
                    user=request.user,
                    spec_document=form.cleaned_data["spec_text"],
                    base_revision=form.cleaned_data["base_revision"],
                    message=form.cleaned_data["message"],
                )
            except services.RevisionConflict as exc:
                summary_rows, detail_rows = presentation.split_diff_rows(exc.changes["summary"])
                conflict = {
                    "message": str(exc),
                    "latest": exc.latest,
                    "summary_rows": summary_rows,
                    "detail_rows": detail_rows,
                    "spec_rows": presentation.diff_rows(exc.changes["spec"]),
                }
                # "Keep mine": the same text, now based on the latest revision.
                data = request.POST.copy()
                data["base_revision"] = str(exc.latest)
                form = DesignEditForm(data)
            except services.DesignError as exc:
                form.add_problems(exc.problems)
            else:
                messages.success(request, f"Saved revision {revision.number}.")
                return redirect(design)
    else:
        form = DesignEditForm(
            initial={"spec_text": _spec_yaml(latest.spec), "base_revision": latest.number}
        )
    context = {"design": design, "form": form, "latest": latest, "conflict": conflict}
    return render(request, "designs/design_edit.html", context, status=409 if conflict else 200)


@require_POST
def design_restore(request, pk, number):
    """Make revision ``number`` current again (as a new revision)."""
    design = selectors.design_get_for(request.user, pk, write=True)
    selectors.revision_get(design, number)
    revision = services.design_restore(design=design, user=request.user, number=number)
    messages.success(request, f"Restored revision {number} as revision {revision.number}.")
    return redirect(design)


@require_GET
def design_spec_download(request, pk, number, fmt):
    """A revision's spec as a YAML or JSON file."""
    if fmt not in ("yaml", "json"):
        raise Http404("Use .yaml or .json.")
    design = selectors.design_get_for(request.user, pk)
    revision = selectors.revision_get(design, number)
    if fmt == "yaml":
        body, content_type = _spec_yaml(revision.spec), "application/yaml"
    else:
        body, content_type = json.dumps(revision.spec, indent=2) + "\n", "application/json"
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    filename = f"design-{design.pk}-r{revision.number}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def design_diff(request, pk):
    """What changed between two revisions (``?from=a&to=b``): spec, summary, parts, power
    and (for users who may see prices) cost at ``?price_book=``."""
    design = selectors.design_get_for(request.user, pk)
    old = selectors.revision_get(design, request.GET.get("from"))
    new = selectors.revision_get(design, request.GET.get("to"))
    changes = services.revision_changes(old, new)
    summary_rows, detail_rows = presentation.split_diff_rows(changes["summary"])
    context = {
        "design": design,
        "old": old,
        "new": new,
        "summary_rows": summary_rows,
        "detail_rows": detail_rows,
        "network_rows": presentation.network_diff_rows(changes["networks"]),
        "old_label": f"Revision {old.number}",
        "new_label": f"Revision {new.number}",
        "spec_rows": presentation.diff_rows(changes["spec"]),
        "topology_changed": changes["topology_changed"],
        "fabric": changes["fabric"],
        "stale_old": changes["stale_parameters"]["old"],
        "stale_new": [presentation.stale_text(item) for item in changes["stale_parameters"]["new"]],
        **diff_context(request, old, new),
    }
    return render(request, "designs/design_diff.html", context)


@require_http_methods(["GET", "POST"])
def design_delete(request, pk):
    """GET asks for confirmation; POST deletes the design and its revisions (owner only)."""
    design = selectors.design_get_for(request.user, pk, manage=True)
    if request.method == "POST":
        services.design_delete(design=design, actor=request.user)
        messages.success(request, f"Deleted design “{design.name}”.")
        return redirect(reverse("planner:design-list"))
    return render(request, "designs/design_confirm_delete.html", {"design": design})


# --- Canvas ---------------------------------------------------------------------------------


def _canvas_page(request, design=None):
    """The canvas page; after this first paint, everything goes through the REST API."""
    summary = (design.latest_summary or {}) if design else {}
    config = {
        "design": design.pk if design else None,
        "name": design.name if design else "",
        "revision": design.latest_number if design else None,
        "can_write": selectors.design_can_write(request.user, design) if design else True,
        "summary": {key: summary.get(key) for key in ("servers", "switches_total", "links")},
        "csrf_token": get_token(request),
        "urls": {
            "list": reverse("planner:design-list"),
            "detail": design.get_absolute_url() if design else None,
            "canvas": reverse("planner:design-canvas", args=[0]).replace("/0/", "/{id}/"),
            "design": reverse("planner:design-detail", args=[0]).replace("/0/", "/{id}/"),
        },
    }
    return render(request, "designs/design_canvas.html", {"design": design, "config": config})


@require_GET
def design_canvas(request, pk):
    """A design on the canvas: overview of large fabrics, every device of small ones."""
    return _canvas_page(request, selectors.design_get_for(request.user, pk))


@require_GET
def design_canvas_new(request):
    """A blank canvas: draw a fabric by hand; the first save creates the design."""
    return _canvas_page(request)


def diff_context(request, old, new) -> dict:
    """What the revision diff page shows about parts: added, removed and changed (from the
    bills of materials), the power delta, and the cost delta at a price book (``?price_book=``,
    default the seed book) for users who may see prices."""

    may_view_prices = user_can_view_prices(request.user)
    books = list(price_books_for(request.user)) if may_view_prices else []
    book = None
    if may_view_prices:
        wanted = request.GET.get("price_book") or SEED_PRICE_BOOK
        book = next((b for b in books if b.slug == wanted), None)
    try:
        diff = revision_bom_diff(old, new, price_book=book)
    except OutputError as exc:
        return {"bom_error": exc.message, "may_view_prices": may_view_prices}
    rows = [
        {
            "row": row,
            "unit_price": presentation.money_text(row.unit_price),
            "cost_delta": presentation.money_text(row.cost_delta),
        }
        for row in diff.rows
    ]
    return {
        "bom_diff": diff,
        "bom_rows": rows,
        "cost_delta": presentation.money_text(diff.cost_delta),
        "price_books": books,
        "price_book": book,
        "may_view_prices": may_view_prices,
    }
