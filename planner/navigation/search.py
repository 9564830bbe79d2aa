"""The global search: designs by name, catalog parts by slug, part number, name or alias,
and quotes by number (and by customer, for users with the price right), each limited to
what the user may see (:func:`planner.designs.selectors.design_list_for`)."""

from __future__ import annotations

from django.db.models import Q

from inventory.models import CATEGORY_MODELS
from planner.designs.selectors import design_list_for
from planner.quotes.models import Quote
from planner.teams.selectors import user_can_view_prices

#: Most hits per kind.
LIMIT = 20
#: Shortest query searched.
MIN_LENGTH = 2


def search(*, user, query: str, limit: int = LIMIT) -> dict:
    """``{"query", "designs": [...], "parts": [...], "quotes": [...]}``, each hit a dict
    with ``title``, ``detail`` and ``url`` (and its own keys); empty lists for a query
    shorter than :data:`MIN_LENGTH`."""
    query = (query or "").strip()
    found = {"query": query, "designs": [], "parts": [], "quotes": []}
    if len(query) < MIN_LENGTH:
        return found
    designs = design_list_for(user).filter(name__icontains=query).order_by("-updated")
    for design in designs[:limit]:
        found["designs"].append(
            {
                "name": design.name,
                "title": design.name,
                "detail": f"by {design.owner.username}"
                + (f", team {design.team.name}" if design.team_id else ""),
                "url": design.get_absolute_url(),
            }
        )
    needle = query.casefold()
    for category, model in CATEGORY_MODELS.items():
        rows = model.objects.order_by("slug").values_list(
            "slug", "name", "part_number", "aliases", "archived"
        )
        for slug, name, part_number, aliases, archived in rows:
            alias = next((a for a in aliases or [] if needle in str(a).casefold()), None)
            texts = (slug, name or "", part_number or "")
            if not alias and not any(needle in text.casefold() for text in texts):
                continue
            detail = " · ".join(
                bit
                for bit in (
                    category,
                    f"part number {part_number}" if part_number else "",
                    f"also known as {alias}" if alias else "",
                    "archived" if archived else "",
                )
                if bit
            )
            part = model(slug=slug)
            found["parts"].append(
                {
                    "slug": slug,
                    "category": category,
                    "title": f"{slug} — {name}" if name and name != slug else slug,
                    "detail": detail,
                    "url": part.get_absolute_url(),
                }
            )
    found["parts"] = found["parts"][:limit]
    prices = user_can_view_prices(user)
    match = Q(number__icontains=query) | (Q(customer__icontains=query) if prices else Q())
    quotes = (
        Quote.objects.filter(design__in=design_list_for(user).values("pk"))
        .filter(match)
        .select_related("design")
        .order_by("-year", "-sequence", "-version")
    )
    for quote in quotes[:limit]:
        hit = {
            "number": quote.number,
            "title": quote.label,
            "detail": f"design {quote.design.name}"
            + (f", customer {quote.customer}" if prices else ""),
            "url": quote.get_absolute_url(),
        }
        if prices:
            hit["customer"] = quote.customer
        found["quotes"].append(hit)
    return found
