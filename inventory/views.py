"""Catalog pages: part lists, details, edits, CSV and NetBox transfer, price books.

Views parse the request, call a selector or service and render; how values are displayed
lives in :mod:`inventory.presentation`.
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from inventory import presentation, selectors, services
from inventory.filtersets import FILTERSETS
from inventory.forms import (
    CatalogUploadForm,
    ExchangeRateForm,
    NetboxUploadForm,
    PriceBookApplyForm,
    PriceBookUploadForm,
    PriceForm,
    add_model_errors,
    part_form_class,
)
from inventory.hooks import catalog_hooks
from inventory.library.schema import CATEGORY_LABELS
from inventory.models import CATEGORY_MODELS, CatalogPart, ExchangeRate, Price
from inventory.models.prices import pricing_offer
from inventory.permissions import (
    CATALOG_EDITOR_NEEDED,
    PRICE_BOOK_EDITOR_NEEDED,
    price_books_for,
    user_can_edit_catalog,
    user_can_edit_price_book,
    user_can_view_prices,
)

PRICES_HIDDEN = (
    "Prices are shown to staff and to team members with the price right (can_view_prices); "
    "ask a team owner or an administrator."
)


def _require_prices(request) -> None:
    """403 for a user who may not see prices (price books and their CSVs hold nothing else)."""
    if not user_can_view_prices(request.user):
        raise PermissionDenied(PRICES_HIDDEN)


def _forbidden(request, message: str, *, title: str = "Catalog editors only"):
    """A 403 page that says which right is missing."""
    context = {"title": title, "message": message}
    return _render(request, "inventory/forbidden.html", context, current="", status=403)


def catalog_editor_required(view):
    """Pages that change the catalog: 403 with the reason for users who are not editors."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not user_can_edit_catalog(request.user):
            return _forbidden(request, CATALOG_EDITOR_NEEDED)
        return view(request, *args, **kwargs)

    return wrapper


PAGE_SIZE = 50

# --- Views ---------------------------------------------------------------------------------------


@require_GET
def index(request):
    """The catalog's front page: the switch list, with tabs to every other category."""
    return _part_list(request, "switch", template="inventory/index.html")


@require_GET
def part_list(request, category):
    """Parts of one category: filter bar, sortable columns, 50 per page."""
    return _part_list(request, category)


def _part_list(request, category, template="inventory/part_list.html"):
    model = _model_or_404(category)
    queryset = model.objects.select_related("manufacturer")
    filterset = FILTERSETS[category](request.GET or None, queryset=queryset)
    columns = presentation.COLUMNS[category]
    sort = request.GET.get("sort", "")
    key = sort.removeprefix("-")
    if key not in {c.sort for c in columns if c.sort}:
        sort = key = ""
    ordering = presentation.ordering(key, descending=sort.startswith("-"))
    page = Paginator(filterset.qs.order_by(*ordering), PAGE_SIZE).get_page(request.GET.get("page"))
    presentation.filter_hints(filterset.form)
    context = {
        "category": category,
        "label": CATEGORY_LABELS[category],
        "noun": model._meta.verbose_name,
        "filterset": filterset,
        "filtered": any(v for k, v in request.GET.items() if k not in {"sort", "page"}),
        "sort": sort,
        "headers": [column.header(sort) for column in columns],
        "rows": [(part, [column.cell(part) for column in columns]) for part in page],
        "page": page,
        "datalists": presentation.datalists(model),
    }
    return _render(request, template, context, current=category)


@require_GET
def part_detail(request, category, slug):
    """Every identity and spec value of a part with its provenance, prices and fits."""
    part = _part_or_404(category, slug)
    may_view_prices = user_can_view_prices(request.user)
    books = list(price_books_for(request.user)) if may_view_prices else []
    offers = selectors.part_prices(part, books=books) if may_view_prices else []
    context = {
        "category": category,
        "label": CATEGORY_LABELS[category],
        "part": part,
        "identity": presentation.identity_rows(part),
        "specs": [presentation.spec_row(part, name) for name in part.SPEC_FIELDS],
        "sources": presentation.source_rows(part),
        "may_view_prices": may_view_prices,
        "prices": [(book, [o for o in offers if o.book_id == book.pk]) for book in books],
        "works_with": selectors.works_with(part).sections,
    }
    return _render(request, "inventory/part_detail.html", context, current=category)


@require_http_methods(["GET", "POST"])
@catalog_editor_required
def part_create(request, category):
    model = _model_or_404(category)
    form = part_form_class(category)(request.POST or None)
    return _part_form(request, category, form, title=f"New {model._meta.verbose_name}")


@require_http_methods(["GET", "POST"])
@catalog_editor_required
def part_edit(request, category, slug):
    part = _part_or_404(category, slug)
    form = part_form_class(category)(request.POST or None, instance=part)
    return _part_form(request, category, form, title=f"Edit {part.slug}")


def _part_form(request, category, form, *, title):
    if request.method == "POST" and form.is_valid():
        try:
            part = services.part_save(part=form.instance, actor=request.user)
        except ValidationError as exc:
            add_model_errors(form, exc)
        else:
            messages.success(request, f"Saved {part.slug}.")
            return redirect(part)
    context = {
        "category": category,
        "label": CATEGORY_LABELS[category],
        "form": form,
        "title": title,
    }
    return _render(request, "inventory/part_form.html", context, current=category)


@require_http_methods(["GET", "POST"])
@catalog_editor_required
def part_delete(request, category, slug):
    """GET asks for confirmation; POST deletes the part and its prices. A part that design
    revisions use is not deleted: the page says how many and offers to archive it (409)."""
    part = _part_or_404(category, slug)
    usage = services.part_usage(part)
    if request.method == "POST" and not usage:
        try:
            services.part_delete(part=part, actor=request.user)
        except services.CatalogConflict:
            usage = services.part_usage(part)  # used since the check: show the counts
        else:
            messages.success(request, f"Deleted {slug}.")
            return redirect("inventory:part-list", category=category)
    price_count = len(selectors.part_prices(part, include_archived=True))
    context = {
        "category": category,
        "label": CATEGORY_LABELS[category],
        "part": part,
        "price_count": price_count,
        "usage": usage,
    }
    status = 409 if request.method == "POST" and usage else 200
    return _render(
        request, "inventory/part_confirm_delete.html", context, current=category, status=status
    )


@require_POST
@catalog_editor_required
def part_archive(request, category, slug):
    """Archive a part (hidden from pickers and new designs; old revisions keep it)."""
    return _set_archived(request, category, slug, archived=True)


@require_POST
@catalog_editor_required
def part_unarchive(request, category, slug):
    """Make an archived part available to new designs again."""
    return _set_archived(request, category, slug, archived=False)


def _set_archived(request, category, slug, *, archived: bool):
    part = services.part_archive(
        part=_part_or_404(category, slug), actor=request.user, archived=archived
    )
    if archived:
        messages.success(
            request,
            f"Archived {part.slug}: hidden from pickers and new designs; the designs that use "
            "it still read, export and price.",
        )
    else:
        messages.success(request, f"{part.slug} is available to new designs again.")
    return redirect(part)


@require_GET
def part_history(request, category, slug):
    """Who created, changed or archived the part, when, and each field's old and new value."""
    part = _part_or_404(category, slug)
    events = catalog_hooks().part_history(request.user, part)
    page = Paginator(events, PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [(event, presentation.history_changes(event)) for event in page]
    context = {
        "category": category,
        "label": CATEGORY_LABELS[category],
        "part": part,
        "page": page,
        "rows": rows,
    }
    return _render(request, "inventory/part_history.html", context, current=category)


@require_GET
def export_csv(request, category):
    """Every part of a category as a CSV download (the format the upload reads)."""
    _model_or_404(category)
    response = HttpResponse(
        services.catalog_export_csv(category), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="catalog-{category}.csv"'
    return response


@require_http_methods(["GET", "POST"])
def transfer(request):
    """CSV download and upload per category, and NetBox device-type import."""
    if request.method == "POST" and not user_can_edit_catalog(request.user):
        return _forbidden(request, CATALOG_EDITOR_NEEDED)
    csv_form = CatalogUploadForm(prefix="csv")
    netbox_form = NetboxUploadForm(prefix="netbox")
    problems = problems_for = None
    if request.method == "POST" and request.POST.get("form") == "csv":
        csv_form = CatalogUploadForm(request.POST, request.FILES, prefix="csv")
        if csv_form.is_valid():
            data = csv_form.cleaned_data
            try:
                report = services.catalog_import_csv(
                    category=data["category"],
                    text=data["text"],
                    origin=data["name"],
                    actor=request.user,
                )
            except services.CatalogImportError as exc:
                problems, problems_for = exc.problems, data["name"]
            else:
                messages.success(request, _report_text(data["name"], report))
                return redirect("inventory:transfer")
    elif request.method == "POST" and request.POST.get("form") == "netbox":
        netbox_form = NetboxUploadForm(request.POST, request.FILES, prefix="netbox")
        if netbox_form.is_valid():
            data = netbox_form.cleaned_data
            import_text = _netbox_importer()
            if import_text is None:
                netbox_form.add_error(None, "NetBox import is not available on this server yet.")
            else:
                options = {"replace_existing": True} if data["replace_existing"] else {}
                try:
                    report = import_text(
                        name=data["name"],
                        text=data["text"],
                        category=data["category"] or None,
                        actor=request.user,
                        **options,
                    )
                except services.CatalogImportError as exc:
                    problems, problems_for = exc.problems, data["name"]
                except ValidationError as exc:
                    netbox_form.add_error(None, exc)
                else:
                    messages.success(request, _report_text(data["name"], report))
                    return redirect("inventory:transfer")
    elif request.method == "POST":
        messages.error(request, "Unknown form.")
    context = {
        "categories": [(c, CATEGORY_LABELS[c]) for c in CATEGORY_MODELS],
        "csv_form": csv_form,
        "netbox_form": netbox_form,
        "problems": problems,
        "problems_for": problems_for,
        "max_bytes": _max_bytes(),
    }
    return _render(request, "inventory/transfer.html", context, current="transfer")


@require_GET
def price_book_list(request):
    _require_prices(request)
    # offers that price things, as the book page counts them (archived ones apart)
    books = price_books_for(request.user).annotate(
        price_count=Count("prices", filter=pricing_offer("prices__"))
    )
    return _render(
        request, "inventory/price_book_list.html", {"books": books}, current="price-books"
    )


def _price_book_editable(request, slug):
    """The book (404 unless the user may read it) and whether the user may change it."""
    _require_prices(request)
    book = get_object_or_404(price_books_for(request.user), slug=slug)
    return book, user_can_edit_price_book(request.user, book)


def _price_book_page(request, book, *, may_edit, status=200, **context):
    rows = book.prices.select_related("archived_by").order_by("part_slug")
    prices, archived = [], []
    for price in rows:
        url = presentation.part_url(price.part_category, price.part_slug)
        (archived if price.is_archived else prices).append((price, url))
    context = {
        "book": book,
        "prices": prices,
        "archived_prices": archived,
        "may_edit_book": may_edit,
        "form": PriceBookUploadForm(),
        "max_bytes": _max_bytes(),
        **context,
    }
    return _render(
        request, "inventory/price_book_detail.html", context, current="price-books", status=status
    )


def _applied_text(book, preview, offers: int) -> str:
    return (
        f"Applied {preview.origin} to {book.name}: {len(preview.added):,} added, "
        f"{len(preview.changed):,} changed, {len(preview.removed):,} removed; the book now holds "
        f"{offers:,} offer{'s' if offers != 1 else ''}."
    )


@require_http_methods(["GET", "POST"])
def price_book_detail(request, slug):
    """A book's offers. Those who may change the book upload a CSV in two steps: the file
    (``step=preview``) shows what it adds, changes and removes, nothing written; the previewed
    file sent back (``step=apply``, with ``confirm_removals`` when it removes many offers)
    replaces the offers."""
    book, may_edit = _price_book_editable(request, slug)
    if request.method == "GET":
        return _price_book_page(request, book, may_edit=may_edit)
    if not may_edit:
        return _forbidden(request, PRICE_BOOK_EDITOR_NEEDED, title="Price book editors only")
    if request.POST.get("step") == "apply":
        apply_form = PriceBookApplyForm(request.POST)
        if not apply_form.is_valid():
            return _price_book_page(
                request, book, may_edit=may_edit, status=400, apply_errors=apply_form.errors
            )
        data = apply_form.cleaned_data
        try:
            preview = services.price_book_import_preview(
                book=book, text=data["text"], origin=data["name"]
            )
            offers = services.price_book_import_csv(
                book=book,
                text=data["text"],
                origin=data["name"],
                actor=request.user,
                confirm_removals=data["confirm_removals"],
            )
        except services.RemovalsNotConfirmed as exc:
            apply_form.add_error("confirm_removals", exc.preview.removals_text())
            return _price_book_page(
                request, book, may_edit=may_edit, preview=exc.preview, apply_form=apply_form
            )
        except services.CatalogImportError as exc:
            return _price_book_page(
                request, book, may_edit=may_edit, problems=exc.problems, problems_for=data["name"]
            )
        messages.success(request, _applied_text(book, preview, offers))
        return redirect("inventory:price-book-detail", slug=book.slug)
    form = PriceBookUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _price_book_page(request, book, may_edit=may_edit, form=form)
    name = form.cleaned_data["name"]
    try:
        preview = services.price_book_import_preview(
            book=book, text=form.cleaned_data["text"], origin=name
        )
    except services.CatalogImportError as exc:
        return _price_book_page(
            request, book, may_edit=may_edit, form=form, problems=exc.problems, problems_for=name
        )
    apply_form = PriceBookApplyForm(initial={"text": form.cleaned_data["text"], "name": name})
    return _price_book_page(
        request, book, may_edit=may_edit, preview=preview, apply_form=apply_form
    )


@require_http_methods(["GET", "POST"])
def price_edit(request, slug, pk=None):
    """Add one offer to a book (no ``pk``) or change one; for those who may change the book.
    The change is audited old -> new (:func:`inventory.services.price_save`)."""
    book, may_edit = _price_book_editable(request, slug)
    if not may_edit:
        return _forbidden(request, PRICE_BOOK_EDITOR_NEEDED, title="Price book editors only")
    price = get_object_or_404(book.prices, pk=pk) if pk else Price(book=book)
    form = PriceForm(request.POST or None, instance=price)
    if request.method == "POST" and form.is_valid():
        try:
            saved = services.price_save(price=form.instance, actor=request.user)
        except ValidationError as exc:
            add_model_errors(form, exc)
        else:
            verb = "Changed" if pk else "Added"
            messages.success(
                request,
                f"{verb} the offer for {saved.part_slug}: {saved.price:,.2f} {saved.currency}.",
            )
            return redirect("inventory:price-book-detail", slug=book.slug)
    context = {"book": book, "form": form, "price": price if pk else None}
    return _render(request, "inventory/price_form.html", context, current="price-books")


@require_POST
def price_remove(request, slug, pk):
    """Remove one offer from a book; audited with its old values
    (:func:`inventory.services.price_delete`)."""
    book, may_edit = _price_book_editable(request, slug)
    if not may_edit:
        return _forbidden(request, PRICE_BOOK_EDITOR_NEEDED, title="Price book editors only")
    price = get_object_or_404(book.prices, pk=pk)
    text = f"{price.part_slug}: {price.price:,.2f} {price.currency}"
    services.price_delete(price=price, actor=request.user)
    messages.success(request, f"Removed the offer {text} from {book.name}.")
    return redirect("inventory:price-book-detail", slug=book.slug)


@require_POST
def price_archive(request, slug, pk, archived):
    """Archive one offer of a book (kept, prices nothing) or restore it; for those who may
    change the book, audited old -> new (:func:`inventory.services.price_archive`)."""
    book, may_edit = _price_book_editable(request, slug)
    if not may_edit:
        return _forbidden(request, PRICE_BOOK_EDITOR_NEEDED, title="Price book editors only")
    price = get_object_or_404(book.prices, pk=pk)
    change = services.price_archive if archived else services.price_restore
    change(price=price, actor=request.user)
    text = f"{price.part_slug}: {price.price:,.2f} {price.currency}"
    if archived:
        messages.success(request, f"Archived the offer {text}: it no longer prices anything.")
    else:
        messages.success(request, f"Restored the offer {text}.")
    return redirect("inventory:price-book-detail", slug=book.slug)


@require_GET
def price_book_export(request, slug):
    _require_prices(request)
    book = get_object_or_404(price_books_for(request.user), slug=slug)
    response = HttpResponse(
        services.price_book_export_csv(book), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="prices-{book.slug}.csv"'
    return response


@require_http_methods(["GET", "POST"])
def exchange_rate_list(request):
    """The exchange rates, by pair, newest first; catalog editors add a rate (POST), others
    read them. A quote converts offers with the pair's rate valid on the quote's date."""
    may_edit = user_can_edit_catalog(request.user)
    if request.method == "POST" and not may_edit:
        return _forbidden(request, CATALOG_EDITOR_NEEDED)
    form = ExchangeRateForm(request.POST or None) if may_edit else None
    if request.method == "POST" and form.is_valid():
        try:
            rate = services.exchange_rate_save(rate=form.instance, actor=request.user)
        except ValidationError as exc:
            add_model_errors(form, exc)
        else:
            messages.success(request, f"Added the rate {rate}.")
            return redirect("inventory:exchange-rate-list")
    context = {"rates": ExchangeRate.objects.all(), "form": form, "may_edit_rates": may_edit}
    status = 400 if request.method == "POST" else 200
    return _render(
        request, "inventory/exchange_rates.html", context, current="exchange-rates", status=status
    )


@require_http_methods(["GET", "POST"])
@catalog_editor_required
def exchange_rate_edit(request, pk):
    """Change one exchange rate (catalog editors)."""
    rate = get_object_or_404(ExchangeRate, pk=pk)
    form = ExchangeRateForm(request.POST or None, instance=rate)
    if request.method == "POST" and form.is_valid():
        try:
            services.exchange_rate_save(rate=form.instance, actor=request.user)
        except ValidationError as exc:
            add_model_errors(form, exc)
        else:
            messages.success(request, f"Saved the rate {form.instance}.")
            return redirect("inventory:exchange-rate-list")
    context = {"rate": rate, "form": form}
    return _render(request, "inventory/exchange_rate_form.html", context, current="exchange-rates")


@require_POST
@catalog_editor_required
def exchange_rate_delete(request, pk):
    """Delete one exchange rate (catalog editors); sent quotes keep the rate they used."""
    rate = get_object_or_404(ExchangeRate, pk=pk)
    text = str(rate)
    services.exchange_rate_delete(rate=rate, actor=request.user)
    messages.success(request, f"Deleted the rate {text}.")
    return redirect("inventory:exchange-rate-list")


# --- Helpers: lookups and the shared page frame --------------------------------------------------


def _model_or_404(category) -> type[CatalogPart]:
    model = CATEGORY_MODELS.get(category)
    if model is None:
        raise Http404(f"No catalog category {category!r}.")
    return model


def _part_or_404(category, slug) -> CatalogPart:
    model = _model_or_404(category)
    return get_object_or_404(model.objects.select_related("manufacturer"), slug=slug)


def _render(request, template, context, *, current, status=200):
    tabs = [
        {
            "label": CATEGORY_LABELS[category],
            "count": model.objects.count(),
            "url": reverse("inventory:part-list", args=[category]),
            "current": category == current,
        }
        for category, model in CATEGORY_MODELS.items()
    ]
    if user_can_view_prices(request.user):
        tabs.append(
            {
                "label": "Price books",
                "url": reverse("inventory:price-book-list"),
                "current": current == "price-books",
            }
        )
    tabs.append(
        {
            "label": "Exchange rates",
            "url": reverse("inventory:exchange-rate-list"),
            "current": current == "exchange-rates",
        }
    )
    tabs.append(
        {
            "label": "Import / export",
            "url": reverse("inventory:transfer"),
            "current": current == "transfer",
        }
    )
    context = {**context, "catalog_tabs": tabs}
    context.setdefault("may_view_prices", user_can_view_prices(request.user))
    context.setdefault("may_edit_catalog", user_can_edit_catalog(request.user))
    return render(request, template, context, status=status)


def _max_bytes():
    return settings.CATALOG_IMPORT_MAX_BYTES


def _netbox_importer():
    """``netbox_import_text`` if the NetBox importer is installed, else None."""
    try:
        from inventory.netbox_import import netbox_import_text
    except ModuleNotFoundError as exc:
        if exc.name != "inventory.netbox_import":
            raise
        return None
    return netbox_import_text


def _report_text(name, report) -> str:
    if all(hasattr(report, key) for key in ("created", "updated", "unchanged")):
        text = (
            f"Imported {name}: {report.created} created, {report.updated} updated, "
            f"{report.unchanged} unchanged."
        )
        warnings = getattr(report, "warnings", None) or []
        return text + "".join(f" Warning: {w}" for w in warnings)
    return f"Imported {name}."
