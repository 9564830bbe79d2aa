"""Quote pages of a design: list, create and edit form, printable quote with its lifecycle
buttons (send, accept, decline, re-price), the diff of a version against the one it was
re-priced from, and the PDF, XLSX and CSV files (the customer's copy and the internal one).

Views parse the request and call one service of :mod:`planner.quotes.services`. Who reads the design
reads its quotes and their quantities; who writes the design creates, changes, deletes, sends
and answers them; prices (the files, which are price documents, sending and re-pricing) need
:func:`planner.designs.selectors.user_can_view_prices`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from inventory.models import PriceBook
from inventory.permissions import (
    price_books_for,
    price_books_pickable_for,
    user_can_read_price_book,
)
from inventory.services import SEED_PRICE_BOOK
from planner import presentation
from planner.designs import selectors
from planner.domain.outputs.bom import CATEGORY_LABELS
from planner.domain.outputs.price_coverage import GRADE_LABELS, GRADES
from planner.domain.outputs.quote import DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE
from planner.quotes import files as quote_files
from planner.quotes import services as quotes
from planner.quotes.coverage import price_book_coverage as price_book_coverage_report
from planner.quotes.files import network_label
from planner.quotes.models import (
    CUSTOMER_ADDRESS_MAX_CHARS,
    CUSTOMER_ADDRESS_MAX_LINES,
    QUOTE_CATEGORIES,
    QUOTE_EXPIRED,
    QUOTE_PRICE_CONDITIONS,
    QUOTE_SPARES_CATEGORIES,
    QUOTE_VALIDITY_DAYS,
    TERMS_MAX_CHARS,
    Quote,
    QuoteStatusChoices,
)
from planner.teams.models import TeamMembership, TeamRoleChoices
from planner.teams.selectors import PRICES_HIDDEN, user_can_view_prices

PERCENT = {"min_value": 0, "max_value": 100, "max_digits": 5, "decimal_places": 2}


class QuoteForm(forms.Form):
    """A quote's terms; discounts and spares are one field per category.

    Without the price right the form has no price terms (margin, discounts, notes): a new
    quote gets none, a changed one keeps its own.
    """

    customer = forms.CharField(
        max_length=200,
        label="Customer name",
        help_text="On one line, in any script; printed as typed on the customer's copy.",
    )
    customer_address = forms.CharField(
        required=False,
        max_length=CUSTOMER_ADDRESS_MAX_CHARS,
        label="Customer address",
        widget=forms.Textarea({"rows": 4}),
        help_text="Printed under the name, one line per line as typed (any script; at most "
        f"{CUSTOMER_ADDRESS_MAX_LINES} lines).",
    )
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
        help_text="ISO 4217 code; empty = the book's. Offers in another currency are converted "
        "with the exchange rate valid on the quote's date (a currency the book's has no rate "
        "into is refused).",
    )
    margin_pct = forms.DecimalField(
        label="Margin %", initial=0, help_text=MARGIN_RULE, **{**PERCENT, "max_value": 99.99}
    )
    valid_until = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    terms = forms.CharField(
        required=False,
        max_length=TERMS_MAX_CHARS,
        label="Terms for the customer",
        widget=forms.Textarea({"rows": 4}),
        help_text="Payment, delivery, warranty: printed under Terms on the customer's copy, "
        "after the standard lines (currency, validity, spares). Optional.",
    )
    notes = forms.CharField(
        required=False,
        max_length=4000,
        label="Internal notes",
        widget=forms.Textarea({"rows": 3}),
        help_text="For the sales team: never on the customer's copy.",
    )

    def __init__(self, *args, design, may_view_prices: bool = False, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.with_price_terms = may_view_prices
        if not may_view_prices:
            del self.fields["margin_pct"], self.fields["notes"]
        self.fields["price_book"].queryset = price_books_pickable_for(user)
        numbers = list(design.revisions.order_by("-number").values_list("number", flat=True))
        self.fields["revision"].choices = [(n, f"Revision {n}") for n in numbers]
        for prefix in ("discount", "spares") if may_view_prices else ("spares",):
            for category in self.categories(prefix):
                self.fields[f"{prefix}_{category}"] = forms.DecimalField(
                    label=CATEGORY_LABELS[category],
                    required=False,
                    **PERCENT,
                )

    @staticmethod
    def categories(prefix: str) -> tuple[str, ...]:
        """The categories of the ``prefix`` fields (racks take no spares)."""
        return QUOTE_SPARES_CATEGORIES if prefix == "spares" else QUOTE_CATEGORIES

    def category_fields(self, prefix: str):
        return [self[f"{prefix}_{category}"] for category in self.categories(prefix)]

    def discount_fields(self):
        return self.category_fields("discount") if self.with_price_terms else []

    def spares_fields(self):
        return self.category_fields("spares")

    def service_kwargs(self, design) -> dict:
        """Cleaned data as keyword arguments of the quote services."""
        data = self.cleaned_data
        kwargs = {
            "customer": data["customer"],
            "customer_address": data["customer_address"],
            "terms": data["terms"],
            "revision": selectors.revision_get(design, data["revision"]),
            "price_book": data["price_book"],
            "price_condition": data["price_condition"],
            "currency": data["currency"] or data["price_book"].currency,
            "valid_until": data["valid_until"],
            "spares_pct": self._per_category("spares"),
        }
        if self.with_price_terms:
            kwargs["margin_pct"] = data["margin_pct"]
            kwargs["notes"] = data["notes"]
            kwargs["discounts_pct"] = self._per_category("discount")
        return kwargs

    def _per_category(self, prefix: str) -> dict:
        values = {}
        for category in self.categories(prefix):
            value = self.cleaned_data.get(f"{prefix}_{category}")
            if value:
                values[category] = value  # a Decimal, stored as exact text
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
            "customer_address": quote.customer_address,
            "terms": quote.terms,
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
    return render(request, "quotes/quote_list.html", context)


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
        kwargs = form.service_kwargs(design)
        try:
            if quote is None:
                saved = quotes.quote_create(design=design, actor=request.user, **kwargs)
                messages.success(request, f"Created quote {saved.number}.")
            else:
                saved = quotes.quote_update(quote=quote, actor=request.user, **kwargs)
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
    return render(request, "quotes/quote_form.html", context)


@require_http_methods(["GET", "POST"])
def quote_new(request, pk):
    """Create a quote (design writers)."""
    design = selectors.design_get_for(request.user, pk, write=True)
    return _form_page(request, design, None)


@require_http_methods(["GET", "POST"])
def quote_edit(request, pk, quote_pk):
    """Change a draft quote's terms (design writers); the number stays. A sent quote does not
    change: its page says so."""
    design = selectors.design_get_for(request.user, pk, write=True)
    quote = quotes.quote_get(design, quote_pk)
    if quote.frozen:
        messages.error(
            request,
            f"Quote {quote.label} is {quote.get_lifecycle_status_display().lower()}: only a "
            "draft can be changed. Re-price a sent quote to make a new version.",
        )
        return redirect(quote)
    return _form_page(request, design, quote)


@require_POST
def quote_delete(request, pk, quote_pk):
    """Delete a draft quote (design writers); a sent one is kept (400 saying so)."""
    design = selectors.design_get_for(request.user, pk, write=True)
    quote = quotes.quote_get(design, quote_pk)
    try:
        quotes.quote_delete(quote=quote, actor=request.user)
    except ValidationError as exc:
        return _detail_page(request, design, quote, refused=exc, status=400)
    messages.success(request, f"Deleted quote {quote.label}.")
    return redirect("planner:quote-list", pk=design.pk)


#: What a quote page says after each lifecycle step.
STEP_DONE = {
    "send": "Sent quote {label}: its prices are fixed.",
    "approve": "Approved the margin of quote {label}: it may be sent.",
    "accept": "Quote {label} accepted.",
    "decline": "Quote {label} declined.",
    "reprice": "Made {label} from current prices; the earlier version is superseded.",
}


@require_POST
def quote_step(request, pk, quote_pk, step):
    """Send, approve, accept, decline or re-price a quote (design writers; sending, approving
    and re-pricing need the price right, approving a team owner). A step the quote's status
    does not allow answers 400 with the quote page naming the status (or the margin and the
    floor); a step the user may not take, 403 saying why. Re-pricing leads to the new
    version's diff."""
    design = selectors.design_get_for(request.user, pk, write=True)
    quote = quotes.quote_get(design, quote_pk)
    may_view_prices = user_can_read_price_book(request.user, quote.price_book)
    try:
        if step == "send":
            result = quotes.quote_send(
                quote=quote,
                actor=request.user,
                may_view_prices=may_view_prices,
                confirm_unpriced=request.POST.get("confirm_unpriced") in ("on", "true", "1"),
            )
        elif step == "approve":
            result = quotes.quote_approve(
                quote=quote, actor=request.user, may_view_prices=may_view_prices
            )
        elif step == "accept":
            result = quotes.quote_accept(quote=quote, actor=request.user)
        elif step == "decline":
            result = quotes.quote_decline(quote=quote, actor=request.user)
        else:
            result = quotes.quote_reprice(
                quote=quote, actor=request.user, may_view_prices=may_view_prices
            )
    except ValidationError as exc:
        return _detail_page(request, design, quote, refused=exc, status=400)
    except PermissionDenied as exc:
        return _detail_page(
            request, design, quote, refused=ValidationError({"step": str(exc)}), status=403
        )
    messages.success(request, STEP_DONE[step].format(label=result.label))
    if step == "reprice":
        return redirect("planner:quote-diff", pk=design.pk, quote_pk=result.pk)
    return redirect(result)


def _signed_money(value) -> str:
    """``+1,250.00``, ``-80.00``, ``0.00``; ``""`` for none."""
    text = presentation.money_text(value)
    return f"+{text}" if value is not None and value > 0 else text


@require_GET
def quote_diff(request, pk, quote_pk):
    """A version of the quote line by line against the version it was re-priced from: lines
    added, removed and changed, and the totals (prices only with the price right)."""
    design = selectors.design_get_for(request.user, pk)
    quote = quotes.quote_get(design, quote_pk)
    may_view_prices = user_can_read_price_book(request.user, quote.price_book)
    compared = quotes.quote_version_diff(quote)
    context = {
        "design": design,
        "quote": quote,
        "compared": compared,
        "may_view_prices": may_view_prices,
        "prices_hidden": PRICES_HIDDEN,
    }
    if compared is not None:
        diff = compared.diff
        rows = [r for r in diff.rows if may_view_prices or r.shows_quantity]
        context["rows"] = [
            {
                "row": r,
                "changes": ", ".join(c for c in r.changes if may_view_prices or c == "quantity"),
                "old_unit": presentation.money_text(r.old_unit_sell),
                "new_unit": presentation.money_text(r.new_unit_sell),
                "old_extended": presentation.money_text(r.old_extended_sell),
                "new_extended": presentation.money_text(r.new_extended_sell),
                "delta": _signed_money(r.sell_delta),
            }
            for r in rows
        ]
        context["counts"] = {
            "added": len(diff.of("added")),
            "removed": len(diff.of("removed")),
            "prices": len(diff.price_changes),
            "unchanged": diff.unchanged_lines,
        }
        if may_view_prices:
            context["totals"] = {
                "old": presentation.money_text(diff.old_sell_total),
                "new": presentation.money_text(diff.new_sell_total),
                "delta": _signed_money(diff.sell_delta),
            }
    return render(request, "quotes/quote_diff.html", context)


@require_GET
def quote_detail(request, pk, quote_pk):
    """The quote, printable (print CSS); prices only for users with the price right."""
    design = selectors.design_get_for(request.user, pk)
    quote = quotes.quote_get(design, quote_pk)
    return _detail_page(request, design, quote)


def _gaps(quote: Quote, document) -> dict | None:
    """What the page says of a quote's unpriced and estimated lines: before sending a draft
    (``gaps``: counts and text), or as recorded when it was sent (``sent``)."""
    if document.priced is None:
        return None
    if quote.frozen:
        sent = (quote.snapshot or {}).get("gaps")
        if not sent:
            return None
        return {"sent": {**sent, "at": datetime.fromisoformat(sent["at"])}}
    gaps = quotes.QuoteGaps.of(document.priced)
    if not gaps.any:
        return None
    return {"gaps": gaps, "text": gaps.text()}


def _buttons(
    quote: Quote, *, can_write: bool, may_view_prices: bool, approval: dict | None = None
) -> list[dict]:
    """The lifecycle buttons the quote's status allows this user."""
    if not can_write:
        return []
    status = quote.lifecycle_status
    steps = []
    if status == QuoteStatusChoices.DRAFT and approval and approval["can_approve"]:
        steps.append(
            (
                "approve",
                "Approve margin",
                "",
                f"Approve the margin of {quote.label} below the floor of team {approval['team']}?",
            )
        )
    if status == QuoteStatusChoices.DRAFT and may_view_prices:
        steps.append(("send", "Send", "primary", f"Send {quote.label}? Its prices are then fixed."))
    if status == QuoteStatusChoices.SENT:
        steps.append(("accept", "Accept", "", ""))
    if status in (QuoteStatusChoices.SENT, QUOTE_EXPIRED):
        steps.append(
            ("decline", "Decline", "", f"Record that the customer declined {quote.label}?")
        )
        if may_view_prices:
            steps.append(("reprice", "Re-price", "", ""))
    return [
        {
            "step": step,
            "label": label,
            "css": css,
            "confirm": confirm,
            "url": f"{quote.get_absolute_url()}{step}/",
        }
        for step, label, css, confirm in steps
    ]


def _offer_money(amount, currency: str) -> str:
    """A book price in its own currency (``30,000.00 USD``), or ``unpriced``."""
    if amount is None:
        return "unpriced"
    return f"{presentation.money_text(amount, currency or None)} {currency}".strip()


def _approval(request, quote: Quote, *, may_view_prices: bool) -> dict | None:
    """The margin floor of a quote and its approval, for the page (price-right users only;
    ``None`` when no floor applies)."""
    if not may_view_prices:
        return None
    floor = quotes.quote_margin_floor(quote)
    snapshot = (quote.snapshot or {}).get("approval") if quote.frozen else None
    if floor is None and snapshot is None:
        return None
    needed = floor is not None and floor.below(quote.margin_pct)
    return {
        "team": floor.team.name if floor else (snapshot or {}).get("team"),
        "floor": floor.floor_pct if floor else (snapshot or {}).get("floor_pct"),
        "needed": needed,
        "approved": quote.margin_approved,
        "approved_by": quote.approved_by.get_username() if quote.approved_by else "",
        "approved_at": quote.approved_at,
        "can_approve": (
            not quote.frozen
            and needed
            and not quote.margin_approved
            and TeamMembership.objects.filter(
                team=floor.team, user_id=request.user.pk, role=TeamRoleChoices.OWNER
            ).exists()
        ),
    }


def _detail_page(
    request, design, quote: Quote, *, refused: ValidationError | None = None, status: int = 200
):
    """The quote page; ``refused`` (a step the page refused) is shown with ``status``."""
    may_view_prices = user_can_read_price_book(request.user, quote.price_book)
    can_write = selectors.design_can_write(request.user, design)
    document = quotes.quote_price(quote, with_prices=may_view_prices)
    approval = _approval(request, quote, may_view_prices=may_view_prices)

    def money(value) -> str:
        return presentation.money_text(value, quote.currency)

    reprice = quotes.quote_reprice_check(quote) if may_view_prices else None
    rows, categories, networks = _price_tables(document, money)
    context = {
        "design": design,
        "quote": quote,
        "document": document,
        "priced": document.priced,
        "rows": rows,
        "estimate_mark": quote_files.ESTIMATE_MARK,
        "estimate_note": quote_files.ESTIMATE_NOTE,
        "estimate_note_internal": quote_files.ESTIMATE_NOTE_INTERNAL,
        "categories": categories,
        "networks": networks,
        "totals": _page_totals(document.priced, money),
        "rules": [DISCOUNT_RULE, MARGIN_RULE, ROUNDING_RULE],
        "may_view_prices": may_view_prices,
        "can_write": can_write,
        "prices_hidden": PRICES_HIDDEN,
        "buttons": _buttons(
            quote, can_write=can_write, may_view_prices=may_view_prices, approval=approval
        ),
        "approval": approval,
        "gaps": _gaps(quote, document),
        "exchange_rates": list(document.priced.exchange_rates) if document.priced else [],
        "versions": list(quotes.quote_versions(quote)),
        "reprice": reprice,
        "reprice_moves": _reprice_moves(reprice),
        "refused": [
            m for messages_ in (refused.message_dict.values() if refused else []) for m in messages_
        ],
    }
    return render(request, "quotes/quote_detail.html", context, status=status)


def _price_tables(document, money) -> tuple[list[dict], list[dict], list[dict]]:
    """The page's lines, category subtotals and network subtotals, amounts shown with
    ``money``; without prices, the bill of materials' lines alone."""
    priced = document.priced
    if priced is None:
        return [{"line": line, "priced": False} for line in document.bom.ordered_lines()], [], []
    rows = [_line_row(line, money) for line in priced.lines]
    categories = [
        {"total": c, "sell": money(c.sell), "cost": money(c.cost)} for c in priced.categories
    ]
    networks = [
        {
            "total": c,
            "label": network_label(c.category),
            "sell": money(c.sell),
            "cost": money(c.cost),
        }
        for c in priced.networks
    ]
    return rows, categories, networks


def _line_row(line, money) -> dict:
    """A priced line as the page shows it: its prices, its offer's source and rate."""
    estimated = quote_files.is_estimated(line)
    return {
        "line": line.line,
        "priced": line.priced,
        "reason": line.unpriced_reason,
        "discount": line.discount_pct,
        "unit_book": money(line.unit_book),
        "converted": ""
        if line.rate is None
        else _offer_money(line.offer.amount, line.offer.currency),
        "unit_cost": money(line.unit_cost),
        "unit_sell": money(line.unit_sell),
        "extended_sell": money(line.extended_sell),
        "source": line.offer.describe() if line.offer else "",
        "estimated": estimated,
        "basis": line.offer.note if estimated else "",
        "rate": line.rate.describe() if line.rate else "",
    }


def _page_totals(priced, money) -> dict | None:
    """The sell, cost and margin totals as shown (``None`` without prices)."""
    if not priced:
        return None
    return {
        "sell": money(priced.sell_total),
        "cost": money(priced.cost_total),
        "margin": money(priced.margin_total),
    }


def _reprice_moves(reprice) -> list[dict]:
    """The book prices that moved since a sent quote was sent, each in its own currency."""
    return [
        {
            "label": move.label,
            "sent": _offer_money(move.sent, move.sent_currency),
            "today": _offer_money(move.today, move.today_currency),
        }
        for move in (reprice.price_moves if reprice else ())
    ]


@require_GET
def quote_download(request, pk, quote_pk, fmt):
    """The quote as a PDF, XLSX or CSV file (needs the price right): ``?audience=customer``
    for the customer's copy (no cost, discount, margin or source), else the internal one."""
    design = selectors.design_get_for(request.user, pk)
    quote = quotes.quote_get(design, quote_pk)
    if fmt not in quotes.EXPORT_FORMATS:
        raise Http404("Use pdf, xlsx or csv.")
    may_view_prices = user_can_read_price_book(request.user, quote.price_book)
    audience = request.GET.get("audience", quote_files.INTERNAL)  # given empty: a 400
    if may_view_prices and audience not in quote_files.AUDIENCES:
        return HttpResponseBadRequest(
            f"Unknown audience: use {' or '.join(quote_files.AUDIENCES)}.",
            content_type="text/plain; charset=utf-8",
        )
    try:
        export = quotes.quote_export(
            quote=quote,
            actor=request.user,
            fmt=fmt,
            may_view_prices=may_view_prices,
            audience=audience if may_view_prices else quote_files.INTERNAL,
        )
    except PermissionDenied as exc:
        context = {"design": design, "quote": quote, "message": str(exc)}
        return render(request, "quotes/no_prices.html", context, status=403)
    response = HttpResponse(export.content, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


@require_GET
def price_book_coverage(request, slug):
    """How completely the book prices every preset: lines by grade (list, reseller, estimate,
    unpriced), and each unpriced or estimated line with its reason or basis. Needs the price
    right; a book the user may not read is 404."""
    if not user_can_view_prices(request.user):
        raise PermissionDenied(PRICES_HIDDEN)
    book = price_books_for(request.user).filter(slug=slug).first()
    if book is None:
        raise Http404("No such price book.")
    rows = price_book_coverage_report(book, day=timezone.localdate())
    covered = [row.coverage for row in rows if row.coverage]
    totals = {grade: sum(c.counts[grade] for c in covered) for grade in GRADES}
    lines = sum(c.lines for c in covered)
    context = {
        "book": book,
        "rows": rows,
        "grades": [(grade, GRADE_LABELS[grade]) for grade in GRADES],
        "totals": totals,
        "total_counts": [totals[grade] for grade in GRADES],
        "lines": lines,
        "priced_pct": round(100.0 * (lines - totals["unpriced"]) / lines, 1) if lines else 100.0,
    }
    return render(request, "quotes/price_coverage.html", context)
