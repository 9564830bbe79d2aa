"""Teams: users who share designs, each with a role and, for sales, the price right."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class TeamRoleChoices(models.TextChoices):
    VIEWER = "viewer", "Viewer"
    EDITOR = "editor", "Editor"
    OWNER = "owner", "Owner"


#: Roles that may change designs shared with the team as ``team-edit``.
WRITE_ROLES = (TeamRoleChoices.EDITOR, TeamRoleChoices.OWNER)


class Team(models.Model):
    """A group of users who share designs; each member has a role.

    ``margin_floor_pct`` is the lowest margin the team quotes without an owner's approval: a
    quote of the team below it is sent only after one of its owners approves it
    (:func:`planner.quotes.services.quote_approve`).
    """

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    margin_floor_pct = models.DecimalField(
        "margin floor %",
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(Decimal("99.99"))],
        help_text="A quote with a lower margin (percent of the sell price) needs an owner's "
        "approval before it is sent; empty = no floor.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "planner_team"  # the table as it was under the planner app (kept in place)
        ordering = ["name"]

    def __str__(self):
        return self.name


class TeamMembership(models.Model):
    """A user's role in a team: viewers read shared designs, editors and owners change them."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships"
    )
    role = models.CharField(
        max_length=8, choices=TeamRoleChoices.choices, default=TeamRoleChoices.VIEWER
    )
    can_view_prices = models.BooleanField(
        default=False,
        help_text="Sees catalog prices, price books and priced quotes (sales role).",
    )

    class Meta:
        db_table = "planner_teammembership"  # kept in place from the planner app
        ordering = ["team", "user"]
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="planner_membership_unique"),
        ]

    def __str__(self):
        return f"{self.user} in {self.team} ({self.role})"

    @property
    def can_write(self) -> bool:
        return self.role in WRITE_ROLES
