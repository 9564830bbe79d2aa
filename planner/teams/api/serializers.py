"""Serializers of the teams API (:mod:`planner.teams.api.views`)."""

from __future__ import annotations

from rest_framework import serializers

from planner.api_base.serializers import PatchNamesAFieldMixin
from planner.teams import selectors
from planner.teams.models import Team, TeamMembership, TeamRoleChoices


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = TeamMembership
        fields = ["username", "role", "can_view_prices"]
        read_only_fields = fields


class TeamSerializer(serializers.ModelSerializer):
    member_count = serializers.IntegerField(read_only=True)
    my_role = serializers.SerializerMethodField(help_text="Your role; null for staff outside it.")
    can_manage = serializers.SerializerMethodField(
        help_text="Whether you may add, change and remove members (owners and staff)."
    )

    class Meta:
        model = Team
        fields = ["slug", "name", "member_count", "my_role", "can_manage"]
        read_only_fields = fields

    def get_my_role(self, team) -> str | None:
        user = self.context["request"].user
        membership = team.memberships.filter(user_id=user.pk).first()
        return membership.role if membership else None

    def get_can_manage(self, team) -> bool:
        return selectors.team_can_manage(self.context["request"].user, team)


class TeamDetailSerializer(TeamSerializer):
    members = serializers.SerializerMethodField()

    class Meta(TeamSerializer.Meta):
        fields = [*TeamSerializer.Meta.fields, "members"]
        read_only_fields = fields

    def get_members(self, team) -> list[dict]:
        return MemberSerializer(selectors.team_members(team), many=True).data


class MemberAddSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=TeamRoleChoices.choices, default=TeamRoleChoices.VIEWER)
    can_view_prices = serializers.BooleanField(default=False)


class MemberChangeSerializer(PatchNamesAFieldMixin, serializers.Serializer):
    role = serializers.ChoiceField(choices=TeamRoleChoices.choices, required=False)
    can_view_prices = serializers.BooleanField(required=False)
