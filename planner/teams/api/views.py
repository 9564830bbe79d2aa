"""Teams API, mounted at ``/api/teams/``: my teams (staff: all), a team's members, and for
its owners and staff adding, changing and removing members.

- ``GET /api/teams/``, ``GET /api/teams/{team_slug}/``: teams the user is in (404 for any other);
- ``GET|POST /api/teams/{team_slug}/members/``: list; add ``{username, role, can_view_prices}``;
- ``PATCH|DELETE /api/teams/{team_slug}/members/{username}/``: set ``role``/``can_view_prices``;
  remove.

Writes: 403 for a member who is not an owner, or who raises their own rights; 400 naming the
field (``username``: no such user, already a member, the last owner; ``role``).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.teams import selectors, services
from planner.teams.api.serializers import (
    MemberAddSerializer,
    MemberChangeSerializer,
    MemberSerializer,
    TeamDetailSerializer,
    TeamSerializer,
)


class TeamListView(APIView):
    @extend_schema(responses={200: TeamSerializer(many=True)})
    def get(self, request, format=None):
        """Teams you are in (staff: every team)."""
        teams = selectors.team_list_for(request.user)
        return Response(TeamSerializer(teams, many=True, context={"request": request}).data)


class TeamDetailView(APIView):
    @extend_schema(responses={200: TeamDetailSerializer})
    def get(self, request, team_slug, format=None):
        """A team you are in, with its members."""
        team = selectors.team_get_for(request.user, team_slug)
        return Response(TeamDetailSerializer(team, context={"request": request}).data)


class MemberListView(APIView):
    @extend_schema(responses={200: MemberSerializer(many=True)})
    def get(self, request, team_slug, format=None):
        """The team's members, owners first."""
        team = selectors.team_get_for(request.user, team_slug)
        return Response(MemberSerializer(selectors.team_members(team), many=True).data)

    @extend_schema(request=MemberAddSerializer, responses={201: MemberSerializer})
    def post(self, request, team_slug, format=None):
        """Add a member (the team's owners and staff)."""
        team = selectors.team_get_for(request.user, team_slug)
        if not selectors.team_can_manage(request.user, team):
            raise PermissionDenied(services.MANAGE_DENIED)
        params = MemberAddSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        membership = services.team_member_add(
            team=team, actor=request.user, **params.validated_data
        )
        return Response(MemberSerializer(membership).data, status=status.HTTP_201_CREATED)


class MemberDetailView(APIView):
    def _membership(self, request, team_slug, username):
        team = selectors.team_get_for(request.user, team_slug)
        return selectors.membership_get(team, username)

    @extend_schema(responses={200: MemberSerializer})
    def get(self, request, team_slug, username, format=None):
        return Response(MemberSerializer(self._membership(request, team_slug, username)).data)

    @extend_schema(request=MemberChangeSerializer, responses={200: MemberSerializer})
    def patch(self, request, team_slug, username, format=None):
        """Set the member's role and/or price right (owners and staff; not your own rights
        upwards)."""
        membership = self._membership(request, team_slug, username)
        if not selectors.team_can_manage(request.user, membership.team):
            raise PermissionDenied(services.MANAGE_DENIED)
        params = MemberChangeSerializer(data=request.data, partial=True)
        params.is_valid(raise_exception=True)
        membership = services.team_member_update(
            membership=membership, actor=request.user, **params.validated_data
        )
        return Response(MemberSerializer(membership).data)

    @extend_schema(responses={204: None})
    def delete(self, request, team_slug, username, format=None):
        """Remove the member (owners and staff); their designs shared with the team become
        private."""
        membership = self._membership(request, team_slug, username)
        services.team_member_remove(membership=membership, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
