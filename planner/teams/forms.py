"""Forms of the Team page: add a member, change a member's role and price right."""

from __future__ import annotations

from django import forms

from planner.teams.models import TeamRoleChoices


class MemberAddForm(forms.Form):
    username = forms.CharField(
        max_length=150, label="User name", help_text="The user's sign-in name."
    )
    role = forms.ChoiceField(choices=TeamRoleChoices.choices, initial=TeamRoleChoices.VIEWER)
    can_view_prices = forms.BooleanField(
        required=False,
        label="Price right",
        help_text="Sees prices, the team's price books and priced quotes (sales).",
    )


class MemberChangeForm(forms.Form):
    role = forms.ChoiceField(choices=TeamRoleChoices.choices)
    can_view_prices = forms.BooleanField(required=False, label="Price right")
