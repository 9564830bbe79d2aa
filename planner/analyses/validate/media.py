"""Media bookkeeping: whether the fabric has media and lengths, and whether every link's
parts are there and in the catalog."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from planner.analyses.validate.context import Context, Finding, LinkGroup, unknown
from planner.analyses.validate.registry import register


@register(stage="links", order=100, codes=("media-not-assigned", "layout-missing"))
def media_notes(ctx: Context) -> None:
    """A fabric without media skips the part rules; one without lengths skips reach."""
    if not ctx.has_media:
        ctx.out.add(
            "media-not-assigned",
            "the fabric has no media (modules, cables): part rules were not run",
        )
    elif ctx.fabric.link_length_m is None:
        ctx.out.add(
            "layout-missing",
            "the fabric has no link lengths (no layout): reach was not checked",
            links=np.flatnonzero(ctx.valid)[:1],
        )


@register(
    stage="group",
    order=200,
    codes=("media-missing", "part-not-in-catalog"),
    media=("manager", "missing", "unknown-part"),
)
def media_presence(ctx: Context, g: LinkGroup) -> Iterator[Finding]:
    """A link has modules, a cable or a fiber, and each of its parts is in the catalog."""
    if g.kind == "missing":
        yield Finding("media-missing", "link without modules, cable or fiber")
        return
    ends = [(g.b_slug, g.b_part)]  # a management link: only the switch end
    if g.kind == "unknown-part":
        ends = [(g.a_slug, g.a_part), (g.b_slug, g.b_part), (g.cable_slug, g.cable)]
    for slug, part in ends:
        if slug and part is None:
            yield Finding(
                "part-not-in-catalog",
                unknown("every fact", [f"{slug} (not in the catalog)"]),
            )
            return
