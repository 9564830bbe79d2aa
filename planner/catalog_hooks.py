"""The answers the catalog asks for (:mod:`inventory.hooks`), given by teams, designs and the
audit log; installed by :class:`planner.apps.PlannerConfig` when Django starts."""

from __future__ import annotations

from planner.audit.log import audit_record, part_history_for
from planner.designs.selectors import part_usage
from planner.teams.models import TeamMembership, TeamRoleChoices
from planner.teams.selectors import user_can_view_prices


class PlannerCatalogHooks:
    """:class:`inventory.hooks.CatalogHooks` for this product."""

    def user_can_view_prices(self, user) -> bool:
        return user_can_view_prices(user)

    def price_team_ids(self, user, *, owners_only: bool = False):
        memberships = TeamMembership.objects.filter(user_id=user.pk, can_view_prices=True)
        if owners_only:
            memberships = memberships.filter(role=TeamRoleChoices.OWNER)
        return memberships.values_list("team_id", flat=True)

    def part_usage(self, part):
        return part_usage(part)

    def record(self, *, actor, action: str, summary: str, team=None, **fields) -> None:
        audit_record(actor=actor, action=action, summary=summary, team=team, **fields)

    def part_history(self, user, part):
        return part_history_for(user, part)
