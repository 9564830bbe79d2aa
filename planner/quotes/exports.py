"""A quote downloaded as a PDF, XLSX or CSV file (:mod:`planner.quotes.files`), for the customer
or the sales team: each download is written to the audit log, and each file is made once per
priced content and then read from the cache (:func:`quote_export`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied

from planner.audit.models import AuditActionChoices
from planner.designs.cache import cached
from planner.domain.outputs.quote_versions import freeze
from planner.quotes import files as quote_files
from planner.quotes.models import Quote
from planner.quotes.pricing import QuoteDocument, quote_price
from planner.quotes.rules import audit_quote
from planner.teams.selectors import PRICES_HIDDEN

#: The formats a quote downloads as, with their content types.
EXPORT_FORMATS = {
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "csv": "text/csv; charset=utf-8",
}


@dataclass(frozen=True)
class ExportFile:
    content: bytes
    filename: str
    content_type: str


def quote_export(
    *, quote: Quote, actor, fmt: str, may_view_prices: bool, audience: str = "internal"
) -> ExportFile:
    """The priced quote as a PDF, XLSX or CSV file (a sent quote: as sent) for ``audience``
    (:data:`planner.quotes.files.AUDIENCES`: ``customer``, the copy without cost, discount,
    margin or sources, named ``<quote>-customer.<fmt>``; ``internal``, everything); the
    download is written to the audit log.

    Raises
    ------
    PermissionDenied
        ``may_view_prices`` is false: both copies are price documents.
    ValueError
        ``fmt`` is not one of :data:`EXPORT_FORMATS`, or ``audience`` is unknown.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format: use one of {', '.join(EXPORT_FORMATS)}")
    if not may_view_prices:
        raise PermissionDenied(PRICES_HIDDEN + " Quote downloads contain prices.")
    if audience not in quote_files.AUDIENCES:
        raise ValueError(f"audience: use {' or '.join(quote_files.AUDIENCES)}")
    document = quote_price(quote)
    content = cached(
        "quote-file",
        [fmt, audience, _document_fingerprint(document)],
        lambda: quote_files.quote_file(document, fmt, audience=audience),
    )
    audit_quote(
        quote,
        actor,
        AuditActionChoices.EXPORT_DOWNLOADED,
        f"Quote {quote.label} downloaded as {fmt.upper()} ({audience} copy)",
        {
            "format": fmt,
            "audience": audience,
            "revision": document.revision_number,
            "version": quote.version,
            "status": document.priced.status,
        },
    )
    stem = f"{quote_file_stem(quote)}{quote_files.file_suffix(audience)}"
    return ExportFile(content, f"{stem}.{fmt}", EXPORT_FORMATS[fmt])


#: Bump when a quote file's layout changes, so that files kept in the cache are made again.
FILES_VERSION = 2


def _document_fingerprint(document: QuoteDocument) -> str:
    """A hash of everything a quote file prints: the priced lines with their offers (grade
    and note included: :func:`~planner.domain.outputs.quote_versions.freeze`), the quote's
    own fields (its ``updated`` time changes with every save and status change) and the
    document's names, dates and texts. Two documents with the same fingerprint give the same
    file, so a file is made once and then read from the cache (:func:`quote_export`)."""
    quote = document.quote
    body = {
        "files": FILES_VERSION,
        "priced": freeze(document.bom, document.priced),
        "quote": [quote.pk, quote.label, quote.updated.isoformat() if quote.updated else ""],
        "document": [
            document.priced_on.isoformat(),
            document.frozen,
            document.design_name,
            document.revision_number,
            document.price_book_slug,
            document.price_book_name,
            document.customer_name,
            document.customer_address,
            document.terms,
        ],
    }
    text = json.dumps(body, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def quote_file_stem(quote: Quote) -> str:
    """``Q-2026-0042`` for a first version, ``Q-2026-0042-v2`` after."""
    return quote.number if quote.version == 1 else f"{quote.number}-v{quote.version}"
