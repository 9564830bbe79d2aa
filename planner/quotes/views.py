"""Quote pages of a design: list, create and edit form, printable quote, PDF and XLSX.

Views parse the request and call one service of :mod:`planner.quotes.services`. Who reads the design
reads its quotes and their quantities; who writes the design creates, changes and deletes
them; prices (and the files, which are price documents) need
:func:`planner.designs.selectors.user_can_view_prices`.
"""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from inventory.models import PriceBook
from inventory.permissions import (
    price_books_pickable_for,
    user_can_read_price_book,
)
from inventory.services import SEED_PRICE_BOOK
from planner import presentation
from planner.designs import selectors
from planner.domain.outputs.quote import DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE
from planner.quotes import services as quotes
from planner.quotes.files import network_label
from planner.quotes.models import (
    QUOTE_CATEGORIES,
    QUOTE_PRICE_CONDITIONS,
    QUOTE_VALIDITY_DAYS,
    Quote,
)
from planner.teams.selectors import PRICES_HIDDEN, user_can_view_prices

PERCENT = {"min_value": 0, "max_value": 100, "max_digits": 5, "decimal_places": 2}


class QuoteForm(forms.Form):
    """A quote's terms; discounts and spares are one field per category.

    Without the price right the form has no price terms (margin, discounts, notes): a new
    quote gets none, a changed one keeps its own.
    """

    customer = forms.CharField(max_length=200)
    revision = forms.TypedChoiceField(coerce=int, help_text="The revision to quote.")
    price_book = forms.ModelChoiceField(queryset=PriceBook.objects.all(), to_field_name="slug")
    price_condition = forms.ChoiceField(
        choices=QUOTE_PRICE_CONDITIONS,
        label="Offers",
        help_text="Each part is priced from the lowest offer of this kind in the book.",
    )
    currency = forms.CharField(
        max_length=3,
        required=False,
        help_text="ISO 4217 code; empty = the book's. Offers in other currencies are not "
        "converted (such parts stay unpriced).",
    )
    margin_pct = forms.DecimalField(
        label="Margin %", initial=0, help_text=MARGIN_RULE, **{**PERCENT, "max_value": 99.99}
    )
    valid_until = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    notes = forms.CharField(required=False, max_length=4000, widget=forms.Textarea({"rows": 3}))

    def __init__(self, *args, design, may_view_prices: bool = False, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.with_price_terms = may_view_prices
        if not may_view_prices:
            del self.fields["margin_pct"], self.fields["notes"]
        self.fields["price_book"].queryset = price_books_pickable_for(user)
        numbers = list(design.revisions.order_by("-number").values_list("number", flat=True))
        self.fields["revision"].choices = [(n, f"Revision {n}") for n in numbers]
        for prefix in ("discount", "spares") if may_view_prices else ("spares",):
            for category in QUOTE_CATEGORIES:
                self.fields[f"{prefix}_{category}"] = forms.DecimalField(
                    label="NIC" if category == "nic" else category.capitalize(),
                    required=False,
                    **PERCENT,
                )

    def category_fields(self, prefix: str):
        return [self[f"{prefix}_{category}"] for category in QUOTE_CATEGORIES]

    def discount_fields(self):
        return self.category_fields("discount") if self.with_price_terms else []

    def spares_fields(self):
        return self.category_fields("spares")

    def terms(self, design) -> dict:
        """Cleaned data as keyword arguments of the quote services."""
        data = self.cleaned_data
        terms = {
            "customer": data["customer"],
            "revision": selectors.revision_get(design, data["revision"]),
            "price_book": data["price_book"],
            "price_condition": data["price_condition"],
            "currency": data["currency"] or data["price_book"].currency,
            "valid_until": data["valid_until"],
            "spares_pct": self._per_category("spares"),
        }
        if self.with_price_terms:
            terms["margin_pct"] = data["margin_pct"]
            terms["notes"] = data["notes"]
            terms["discounts_pct"] = self._per_category("discount")
        return terms

    def _per_category(self, prefix: str) -> dict:
        values = {}
        for category in QUOTE_CATEGORIES:
            value = self.cleaned_data.get(f"{prefix}_{category}")
            if value:
                values[category] = float(value)
        return values

    def add_model_errors(self, exc: ValidationError) -> None:
        targets = {"discounts_pct": None, "spares_pct": None}
        for field, errors in exc.message_dict.items():
            target = field if field in self.fields else targets.get(field)
            for message in errors:
                self.add_error(target, message if target else f"{field}: {message}")

    @staticmethod
    def initial_for(quote: Quote | None, design, *, may_view_prices: bool) -> dict:
        """Initial values: the quote's terms (price terms only with the price right)."""
        initial = QuoteForm._initial(quote, design)
        if not may_view_prices:
            for name in list(initial):
                if name in quotes.PRICE_TERMS or name.startswith("discount_"):
                    del initial[name]
        return initial

    @staticmethod
    def _initial(quote: Quote | None, design) -> dict:
        if quote is None:
            book = PriceBook.objects.filter(slug=SEED_PRICE_BOOK).first()
            latest = design.latest_revision
            return {
                "revision": latest.number if latest else None,
                "price_book": book,
                "price_condition": "new",
                "margin_pct": 0,
                "valid_until": timezone.localdate() + timedelta(days=QUOTE_VALIDITY_DAYS),
            }
        initial = {
            "customer": quote.customer,
            "revision": quote.revision.number,
            "price_book": quote.price_book,
            "price_condition": quote.price_condition,
            "currency": quote.currency,
            "margin_pct": quote.margin_pct,
            "valid_until": quote.valid_until,
            "notes": quote.notes,
        }
        for category, value in (quote.discounts_pct or {}).items():
            initial[f"discount_{category}"] = value
        for category, value in (quote.spares_pct or {}).items():
            initial[f"spares_{category}"] = value
        return initial


@require_GET
def quote_list(request, pk):
    """Quotes of a design, newest first."""
    design = selectors.design_get_for(request.user, pk)
    context = {
        "design": design,
        "quotes": quotes.quote_list(design),
        "can_write": selectors.design_can_write(request.user, design),
        "may_view_prices": user_can_view_prices(request.user),
        "today": timezone.localdate(),
    }
    return render(request, "planner/quotes/quote_list.html", context)


def _form_page(request, design, quote: Quote | None):
    may_view_prices = user_can_view_prices(request.user)
    form = QuoteForm(
        request.POST or None,
        design=design,
        user=request.user,
        may_view_prices=may_view_prices,
        initial=QuoteForm.initial_for(quote, design, may_view_prices=may_view_prices),
    )
    if request.method == "POST" and form.is_valid():
        try:
            if quote is None:
                saved = quotes.quote_create(design=design, actor=request.user, **form.terms(design))
                messages.success(request, f"Created quote {saved.number}.")
            else:
                saved = quotes.quote_update(quote=quote, actor=request.user, **form.terms(design))
                messages.success(request, f"Saved quote {saved.number}.")
        except ValidationError as exc:
            form.add_model_errors(exc)
        else:
            return redirect(saved)
    context = {
        "design": design,
        "quote": quote,
        "form": form,
        "rules": [DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE],
        "may_view_prices": may_view_prices,
        "price_terms_hidden": quotes.PRICE_TERMS_HIDDEN,
    }
    return render(request, "planner/quotes/quote_form.html", context)


@require_http_methods(["GET", "POST"])
def quote_new(request, pk):
    """Create a quote (design writers)."""
    design = selectors.design_get_for(request.user, pk, write=True)
    return _form_page(request, design, None)


@require_http_methods(["GET", "POST"])
def quote_edit(request, pk, quote_pk):
    """Change a quote's terms (design writers); the number stays."""
    design = selectors.design_get_for(request.user, pk, write=True)
    return _form_page(request, design, quotes.quote_get(design, quote_pk))


@require_POST
def quote_delete(request, pk, quote_pk):
    """Delete a quote (design writers)."""
    design = selectors.design_get_for(request.user, pk, write=True)
    quote = quotes.quote_get(design, quote_pk)
    quotes.quote_delete(quote=quote, actor=request.user)
    messages.success(request, f"Deleted quote {quote.number}.")
    return redirect("planner:quote-list", pk=design.pk)


@require_GET
def quote_detail(request, pk, quote_pk):
    """The quote, printable (print CSS); prices only for users with the price right."""
    design = selectors.design_get_for(request.user, pk)
    quote = quotes.quote_get(design, quote_pk)
    may_view_prices = user_can_read_price_book(request.user, quote.price_book)
    document = quotes.quote_price(quote, with_prices=may_view_prices)
    rows = []
    if document.priced is not None:
        for line in document.priced.lines:
            rows.append(
                {
                    "line": line.line,
                    "priced": line.priced,
                    "reason": line.unpriced_reason,
                    "discount": line.discount_pct,
                    "unit_book": presentation.money_text(line.unit_book),
                    "unit_cost": presentation.money_text(line.unit_cost),
                    "unit_sell": presentation.money_text(line.unit_sell),
                    "extended_sell": presentation.money_text(line.extended_sell),
                    "source": line.offer.describe() if line.offer else "",
                }
            )
        categories = [
            {
                "total": c,
                "sell": presentation.money_text(c.sell),
                "cost": presentation.money_text(c.cost),
            }
            for c in document.priced.categories
        ]
        networks = [
            {
                "total": c,
                "label": network_label(c.category),
                "sell": presentation.money_text(c.sell),
                "cost": presentation.money_text(c.cost),
            }
            for c in document.priced.networks
        ]
    else:
        rows = [{"line": line, "priced": False} for line in document.bom.lines]
        categories = []
        networks = []
    context = {
        "design": design,
        "quote": quote,
        "document": document,
        "priced": document.priced,
        "rows": rows,
        "categories": categories,
        "networks": networks,
        "totals": {
            "sell": presentation.money_text(document.priced.sell_total),
            "cost": presentation.money_text(document.priced.cost_total),
            "margin": presentation.money_text(document.priced.margin_total),
        }
        if document.priced
        else None,
        "rules": [DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE],
        "may_view_prices": may_view_prices,
        "can_write": selectors.design_can_write(request.user, design),
        "prices_hidden": PRICES_HIDDEN,
    }
    return render(request, "planner/quotes/quote_detail.html", context)


@require_GET
def quote_download(request, pk, quote_pk, fmt):
    """The quote as a PDF or XLSX file (needs the price right)."""
    design = selectors.design_get_for(request.user, pk)
    quote = quotes.quote_get(design, quote_pk)
    if fmt not in quotes.EXPORT_FORMATS:
        raise Http404("Use pdf or xlsx.")
    try:
        export = quotes.quote_export(
            quote=quote,
            actor=request.user,
            fmt=fmt,
            may_view_prices=user_can_read_price_book(request.user, quote.price_book),
        )
    except PermissionDenied as exc:
        context = {"design": design, "quote": quote, "message": str(exc)}
        return render(request, "planner/quotes/no_prices.html", context, status=403)
    response = HttpResponse(export.content, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
