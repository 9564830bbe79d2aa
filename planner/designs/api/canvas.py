"""Canvas API: views of a revision's fabric, its edit document, topology edits (the whole
document, PUT, or what one edit changed, PATCH), link media options and job overlays.

The element format is documented in :mod:`planner.domain.canvas`; who may read or change a
design is decided in :mod:`planner.designs.selectors` (404 for designs a user may not see, 403 for a
change a reader may not make). An edit with problems is 400 ``{"problems": [{code, message,
element_ids, severity, field}]}``; one based on a stale revision is 409 (as spec revisions).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs import selectors, services
from planner.designs.api.serializers import (
    ConflictSerializer,
    EditProblemsSerializer,
    LinkOptionsSerializer,
    RevisionSerializer,
    StaleEditSerializer,
    TopologyDocumentSerializer,
    TopologyEditSchemaSerializer,
    TopologyEditSerializer,
    TopologyPatchResultSerializer,
    TopologyPatchSchemaSerializer,
    TopologyPatchSerializer,
    TopologyPreviewSerializer,
)
from planner.domain.canvas import MAX_ELEMENTS, CanvasError
from planner.domain.canvas.edit_patch import PATCH_KEYS
from planner.teams.selectors import user_can_view_prices

TOO_LARGE = OpenApiResponse(
    OpenApiTypes.OBJECT, description="Unknown view or scope, or too large to show or edit whole"
)


def _revision(request, design_pk, number):
    design = selectors.design_get_for(request.user, design_pk)
    return design, selectors.revision_get(design, number)


class RevisionCanvasView(APIView):
    """Canvas elements of a revision: ``?view=overview`` (aggregated, any size) or
    ``?view=detail&scope=su:N|pod:N|core|all`` (node by node where it fits), every plane or
    ``?plane=N`` (that plane's switches and links, and the servers). A design whose spec
    has a ``networks`` block also gets its other networks as layers (storage, converged,
    in-band, OOB: ``networks``; every element says its ``network``; the OOB network drawn
    aggregated per switch). No view has more than 5,000 nodes + edges; ``notes`` says what
    was aggregated to stay within that."""

    @extend_schema(
        parameters=[
            OpenApiParameter("view", str, enum=["overview", "detail"], default="overview"),
            OpenApiParameter(
                "scope", str, description="detail only: su:N, pod:N, core or all (1-based N)"
            ),
            OpenApiParameter(
                "plane",
                str,
                description="1-based plane to show alone (its switches and links, and every "
                "server), or all (the default)",
            ),
        ],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="{design, revision, view, scope, elements: {nodes, edges} "
                "(Cytoscape.js JSON, each with its network), scopes (overview), notes, counts "
                "(with layers: per network, the nodes and edges that switching it off hides), "
                "plane (1-based or null), planes, networks: [{id, label, devices, links}] "
                "(compute first, then storage, converged, inband, oob as present)}",
            ),
            400: TOO_LARGE,
        },
    )
    def get(self, request, design_pk: int, number: int):
        design, revision = _revision(request, design_pk, number)
        view = request.query_params.get("view", "overview")
        try:
            data = selectors.revision_canvas(
                revision,
                view=view,
                scope=request.query_params.get("scope"),
                plane=request.query_params.get("plane"),
            )
        except CanvasError as exc:
            key = exc.field or ("view" if view not in ("overview", "detail") else "scope")
            raise serializers.ValidationError({key: [str(exc)]}) from exc
        return Response({"design": design.pk, "revision": revision.number, **data})


class RevisionTopologyView(APIView):
    """The edit document of a revision: nodes (name, model, role, position, plane, su, rail,
    group, rack, ru) and links (1-based ports, speed, parts by slug, length). Refused for
    fabrics above 5,000 nodes + links: edit those through their spec."""

    @extend_schema(responses={200: TopologyDocumentSerializer, 400: TOO_LARGE})
    def get(self, request, design_pk: int, number: int):
        design, revision = _revision(request, design_pk, number)
        try:
            document = selectors.revision_topology(revision)
        except CanvasError as exc:
            return Response(
                {"detail": str(exc), "limit": MAX_ELEMENTS}, status=status.HTTP_400_BAD_REQUEST
            )
        return Response({"design": design.pk, "revision": revision.number, **document})


def _conflicts():
    return OpenApiResponse(
        PolymorphicProxySerializer(
            component_name="TopologyConflict",
            serializers=[ConflictSerializer, StaleEditSerializer],
            resource_type_field_name=None,
        ),
        description="base_revision is not the latest revision (latest_revision), or "
        "with check_stale, the edit makes spec parameters untrue (stale_parameters)",
    )


def _stale_answer(exc: services.StaleEdit) -> Response:
    """409: ``check_stale`` and the edit makes spec parameters untrue (nothing saved)."""
    return Response(
        {"detail": str(exc), "stale_parameters": exc.stale}, status=status.HTTP_409_CONFLICT
    )


class DesignTopologyView(APIView):
    """Save an edited topology as the next revision (kind ``edited``): the whole document
    (PUT), or what one edit changed in it (PATCH)."""

    @extend_schema(
        request=TopologyEditSchemaSerializer,
        responses={
            201: RevisionSerializer,
            400: OpenApiResponse(EditProblemsSerializer, description="The topology has errors"),
            409: _conflicts(),
        },
    )
    def put(self, request, design_pk: int):
        """Check the nodes and links (validate_edit) and store them on top of
        ``base_revision``, which must be the latest: otherwise 409 and nothing is saved. The
        base revision's spec, racks, layout and build facts are kept; the summary is
        recomputed and lists the spec parameters the edit made untrue
        (``summary.stale_parameters``; ``topology/preview/`` shows them before saving, and
        ``check_stale`` saves only an edit that has none)."""
        design = selectors.design_get_for(request.user, design_pk, write=True)  # 404/403 first
        params = TopologyEditSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            revision = services.design_edit_topology(
                design=design,
                user=request.user,
                document={"nodes": data["nodes"], "links": data["links"]},
                base_revision=data["base_revision"],
                message=data["message"],
                check_stale=data["check_stale"],
            )
        except services.StaleEdit as exc:
            return _stale_answer(exc)
        return Response(RevisionSerializer(revision).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=TopologyPatchSchemaSerializer,
        responses={
            201: TopologyPatchResultSerializer,
            400: OpenApiResponse(
                EditProblemsSerializer,
                description="The patch names what the base does not have, or the topology it "
                "makes has errors (each problem names the patch's entry)",
            ),
            409: _conflicts(),
        },
    )
    def patch(self, request, design_pk: int):
        """Save one edit as what it changed (the canvas saves this way: the request and the
        answer carry the edit, not the fabric). The patch is applied to the edit document of
        ``base_revision``, which must be the latest (else 409, nothing saved); the document it
        makes is checked and stored as PUT stores it, with ``check_stale`` as PUT has it.
        With ``canvas_changes`` the answer also says what changed in the whole-fabric view."""
        design = selectors.design_get_for(request.user, design_pk, write=True)  # 404/403 first
        params = TopologyPatchSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            saved = services.design_patch_topology(
                design=design,
                user=request.user,
                patch={key: data[key] for key in PATCH_KEYS},
                base_revision=data["base_revision"],
                message=data["message"],
                check_stale=data["check_stale"],
            )
        except services.StaleEdit as exc:
            return _stale_answer(exc)
        answer = RevisionSerializer(saved.revision).data
        if data["canvas_changes"]:
            answer["canvas"] = selectors.revision_canvas_changes(
                saved.base, saved.revision, saved.patched.new_link_index
            )
        return Response(answer, status=status.HTTP_201_CREATED)


class DesignTopologyPreviewView(APIView):
    """What saving an edited topology would do, without saving: warnings, the spec parameters
    the edit makes untrue (``stale_parameters``, shown by the canvas before Save) and the
    summary figures that change."""

    @extend_schema(
        request=TopologyEditSchemaSerializer,
        responses={
            200: TopologyPreviewSerializer,
            400: OpenApiResponse(EditProblemsSerializer, description="The topology has errors"),
        },
    )
    def post(self, request, design_pk: int):
        # Previewing is the first step of saving an edit: for those who may edit (403 first).
        design = selectors.design_get_for(request.user, design_pk, write=True)
        params = TopologyEditSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        preview = services.design_preview_topology(
            design=design,
            document={"nodes": data["nodes"], "links": data["links"]},
            base_revision=data["base_revision"],
        )
        return Response(preview)


class LinkOptionsView(APIView):
    """Media that can join the data ports of two device models, best first (the media auto
    policy), with the reasons when nothing can."""

    @extend_schema(
        parameters=[
            OpenApiParameter("a", str, required=True, description="Lower-tier device model"),
            OpenApiParameter("b", str, required=True, description="Upper-tier device model"),
            OpenApiParameter("speed_gbps", int, description="Default: the highest both run"),
            OpenApiParameter("length_m", float, description="Leave out what cannot reach it"),
        ],
        responses={200: LinkOptionsSerializer},
    )
    def get(self, request):
        params = request.query_params
        errors, numbers = {}, {}
        for key in ("a", "b"):
            if not params.get(key):
                errors[key] = ["Give a device model slug."]
        for key, kind in (("speed_gbps", int), ("length_m", float)):
            if key in params:  # given empty is not "not given": "Give a number."
                try:
                    numbers[key] = kind(params[key])
                except ValueError:
                    errors[key] = ["Give a number."]
                    continue
                if numbers[key] <= 0 and key == "speed_gbps" or numbers[key] < 0:
                    errors[key] = ["Give a positive number."]
        if errors:
            raise serializers.ValidationError(errors)
        options = selectors.link_options(params["a"], params["b"], **numbers)
        if not user_can_view_prices(request.user):
            for option in options.get("options", []):
                option["price"] = None  # order still follows the media auto policy
        return Response(options)
