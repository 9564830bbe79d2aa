"""Design API: designs, their revisions (edit, restore, diff, spec download), a live summary
of an unsaved spec, and the worked-example presets.

Views parse the request and call one selector or service; who may see or change a design is
decided in :mod:`planner.designs.selectors` (404 for designs a user may not see, 403 for a change a
reader may not make). Spec problems are 400 ``{"problems": [{field, message}]}`` and a stale
edit is 409 (see :mod:`planner.project.api.exceptions`).
"""

from __future__ import annotations

import json

import yaml
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.utils import encoders
from rest_framework.views import APIView

from planner.designs import figures, selectors, services
from planner.designs.api.serializers import (
    ConflictSerializer,
    DesignCreateSerializer,
    DesignSerializer,
    DesignUpdateSerializer,
    PresetSerializer,
    ProblemsSerializer,
    RevisionCreateSerializer,
    RevisionListSerializer,
    RevisionSerializer,
    SummaryProblemsSerializer,
    SummaryRequestSerializer,
    SummarySerializer,
)
from planner.designs.bom import revision_bom_diff_for
from planner.designs.filtersets import DesignFilterSet
from planner.designs.forms import wizard_presets
from planner.designs.models import Design, DesignRevision
from planner.designs.wizard import form_problem, spec_from_fields

PROBLEMS = OpenApiResponse(ProblemsSerializer, description="The spec cannot be built")
CONFLICT = OpenApiResponse(
    ConflictSerializer, description="base_revision is not the latest revision"
)
DIFF = inline_serializer(
    name="DesignDiff",
    fields={
        "from": serializers.IntegerField(),
        "to": serializers.IntegerField(),
        "summary": serializers.DictField(
            help_text="{path: {old, new, delta?, text}}; text: the change in words with units"
        ),
        "spec": serializers.DictField(help_text="{spec key path: {old, new, delta?, text}}"),
        "topology_changed": serializers.BooleanField(
            help_text="The stored topologies differ (e.g. edited on the canvas, same spec)"
        ),
        "fabric": serializers.DictField(
            allow_null=True,
            help_text="When the topologies differ: the compute fabric's devices and links "
            "added, removed and changed: {counts: {devices, links: {added, removed, changed}}, "
            "changes: [{element, change, name, fields: {key: {old, new}}, text}], more}; text "
            'as "link leaf-1 3/2 → spine-1 11/1: length 9.8 m → 25 m"',
        ),
        "stale_parameters": serializers.DictField(
            help_text="{old, new}: the spec parameters each revision's topology no longer "
            "meets ([{code, field, message, element_ids, severity, was, now}])"
        ),
        "bom": serializers.DictField(
            help_text="{added, removed, changed: [{part, category, length_m, old_quantity, "
            "new_quantity, delta, ...}], power: {old_w, new_w, delta_w}, cost?: {currency, "
            "delta, complete, unpriced_parts}}"
        ),
    },
)


class DesignViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Designs the user may see: their own and those shared with their teams."""

    queryset = Design.objects.none()  # for the schema; get_queryset() scopes to the user
    serializer_class = DesignSerializer
    search_fields = ["name", "description"]
    ordering_fields = ["name", "created", "updated", "gpus", "owner_name"]
    filterset_class = DesignFilterSet

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Design.objects.none()
        return selectors.design_list_for(self.request.user)

    def get_object(self):
        return self._design()

    def get_serializer(self, *args, **kwargs):
        """Designs with their power and, for users with the price right, cost
        (:func:`planner.designs.figures.design_figures`, for the page or the one design shown)."""
        designs = args[0] if args else None
        if designs is not None:
            many = kwargs.get("many", False)
            book = figures.cost_book(self.request.user)
            kwargs.setdefault("context", self.get_serializer_context())
            kwargs["context"]["figures"] = figures.design_figures(
                designs if many else [designs], book=book
            )
        return super().get_serializer(*args, **kwargs)

    def _design(self, *, write=False, manage=False) -> Design:
        return selectors.design_get_for(
            self.request.user, self.kwargs["pk"], write=write, manage=manage
        )

    def _show(self, design: Design, status_code=status.HTTP_200_OK) -> Response:
        design = selectors.design_get_for(self.request.user, design.pk)
        return Response(self.get_serializer(design).data, status=status_code)

    @extend_schema(request=DesignCreateSerializer, responses={201: DesignSerializer, 400: PROBLEMS})
    def create(self, request):
        """Build a spec and store it as a new design (revision 1, kind generated), or store a
        topology drawn from scratch (``name`` + ``topology_document``; revision 1, kind
        edited, no spec; problems as the topology edit endpoint reports them)."""
        params = DesignCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        common = {
            "owner": request.user,
            "team": data["team"],
            "sharing": data["sharing"],
            "message": data["message"],
        }
        if "topology_document" in data:
            design = services.design_create_drawn(
                name=data["name"],
                description=data.get("description", ""),
                document=data["topology_document"],
                **common,
            )
        else:
            design = services.design_create(spec_document=data["spec"], **common)
        return self._show(design, status.HTTP_201_CREATED)

    @extend_schema(request=DesignUpdateSerializer, responses={200: DesignSerializer})
    def partial_update(self, request, pk=None, format=None):
        """Rename or describe a design; its owner may also change team and sharing."""
        # Who may not change the design hears so (404/403) before anything about the body.
        design = self._design(write=True)
        params = DesignUpdateSerializer(data=request.data, partial=True)
        params.is_valid(raise_exception=True)
        changes = params.validated_data
        if {"team", "sharing"} & set(changes):
            design = self._design(write=True, manage=True)
        return self._show(services.design_update(design=design, actor=self.request.user, **changes))

    def perform_destroy(self, instance):
        services.design_delete(design=self._design(manage=True), actor=self.request.user)

    @extend_schema(
        parameters=[
            OpenApiParameter("from", int, required=True, description="Older revision number"),
            OpenApiParameter("to", int, required=True, description="Newer revision number"),
            OpenApiParameter(
                "price_book",
                str,
                description="Slug of a price book: adds the cost delta (needs the price right)",
            ),
        ],
        responses={200: DIFF},
    )
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None, format=None):
        """What changed between two revisions: summary figures, every network's switches and
        cables (``networks``: per network, e.g. ``"text": "storage: 16 → 20 switches (+4), ..."``),
        spec keys, and parts (``bom``:
        added, removed and changed from the bills of materials, the power delta in W, and with
        ``price_book`` the cost delta at its prices; unpriced parts are named)."""
        design = self._design()
        numbers = {}
        for key in ("from", "to"):
            try:
                numbers[key] = int(request.query_params[key])
            except (KeyError, ValueError) as exc:
                raise serializers.ValidationError({key: "Give a revision number."}) from exc
        old = selectors.revision_get(design, numbers["from"])
        new = selectors.revision_get(design, numbers["to"])
        bom = revision_bom_diff_for(
            request.user, old, new, price_book_slug=request.query_params.get("price_book")
        )
        return Response({**numbers, **services.revision_changes(old, new), "bom": bom})


class DesignRevisionViewSet(viewsets.GenericViewSet):
    """Revisions of one design, newest first. Every edit or restore adds one; none changes."""

    queryset = DesignRevision.objects.none()  # for the schema; scoped to the design below
    serializer_class = RevisionSerializer
    lookup_field = "number"
    filter_backends = []

    def _design(self, *, write=False) -> Design:
        return selectors.design_get_for(self.request.user, self.kwargs["design_pk"], write=write)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DesignRevision.objects.none()
        return selectors.revision_list(self._design())

    @extend_schema(responses={200: RevisionListSerializer(many=True)})
    def list(self, request, design_pk=None):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(RevisionListSerializer(page, many=True).data)

    @extend_schema(
        request=RevisionCreateSerializer,
        responses={201: RevisionSerializer, 400: PROBLEMS, 409: CONFLICT},
    )
    def create(self, request, design_pk=None):
        """Save a changed spec as the next revision. ``base_revision`` must be the latest:
        otherwise 409 with what changed since, and nothing is saved."""
        design = self._design(write=True)  # 404/403 before anything about the body
        params = RevisionCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        revision = services.design_revise(
            design=design,
            user=request.user,
            spec_document=params.validated_data["spec"],
            base_revision=params.validated_data["base_revision"],
            message=params.validated_data["message"],
        )
        return Response(RevisionSerializer(revision).data, status=status.HTTP_201_CREATED)

    def retrieve(self, request, design_pk=None, number=None):
        """One revision: spec, summary, kind and author."""
        revision = selectors.revision_get(self._design(), number)
        return Response(RevisionSerializer(revision).data)

    @extend_schema(request=None, responses={201: RevisionSerializer})
    @action(detail=True, methods=["post"])
    def restore(self, request, design_pk=None, number=None):
        """Make this revision current again, as a new revision of kind ``restored``."""
        design = self._design(write=True)
        selectors.revision_get(design, number)
        revision = services.design_restore(design=design, user=request.user, number=int(number))
        return Response(RevisionSerializer(revision).data, status=status.HTTP_201_CREATED)


class SpecYAMLRenderer(BaseRenderer):
    """A spec (or an error) as YAML, keys in the spec's own order."""

    media_type = "application/yaml"
    format = "yaml"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        plain = json.loads(json.dumps(data, cls=encoders.JSONEncoder))  # e.g. ErrorDetail
        return yaml.safe_dump(plain, sort_keys=False, allow_unicode=True).encode()


class RevisionSpecView(APIView):
    """Download a revision's spec as YAML (default) or JSON: ``?format=yaml|json``."""

    renderer_classes = [SpecYAMLRenderer, JSONRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=["yaml", "json"])],
        responses={
            (200, "application/yaml"): OpenApiTypes.OBJECT,  # the spec, as YAML
            (200, "application/json"): OpenApiTypes.OBJECT,
        },
    )
    def get(self, request, design_pk: int, number: int):
        if request.query_params.get("format") == "":  # DRF reads it as "not given"
            raise serializers.ValidationError({"format": ["Give yaml or json; it is empty."]})
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        extension = request.accepted_renderer.format
        response = Response(revision.spec)
        response["Content-Disposition"] = (
            f'attachment; filename="design-{design.pk}-r{revision.number}.{extension}"'
        )
        return response


class SummaryView(APIView):
    """Summarize a spec without saving it (the design wizard's live summary).

    Give ``spec`` (a mapping or YAML/JSON text) or ``fields`` (the wizard's form fields as
    typed, mapped onto a spec by :func:`planner.designs.wizard.spec_from_fields`, the same mapping
    the
    wizard's save uses). The answer is the summary with ``spec`` (the document built) and, for
    users with the price right, ``cost`` at the seed price book. With ``fields``, problems
    name the form field that shows them (``spec_field``: the spec path) and the 400 carries
    the ``spec`` built too. With ``draft`` (a design being typed), a spec that cannot be built
    yet answers 200 with ``problems`` (and ``spec``) instead of 400.
    """

    @extend_schema(
        request=SummaryRequestSerializer,
        responses={
            200: PolymorphicProxySerializer(
                component_name="SummaryOrDraftProblems",
                serializers=[SummarySerializer, SummaryProblemsSerializer],
                resource_type_field_name=None,
            ),
            400: OpenApiResponse(
                SummaryProblemsSerializer, description="It cannot be built (not a draft)"
            ),
        },
    )
    def post(self, request):
        params = SummaryRequestSerializer(data=request.data)
        if not params.is_valid():
            return Response(
                {"problems": _request_problems(params.errors)}, status=status.HTTP_400_BAD_REQUEST
            )
        fields = params.validated_data.get("fields")
        document = params.validated_data["spec"] if fields is None else spec_from_fields(fields)
        try:
            return Response(figures.spec_summary(document, user=request.user))
        except services.DesignError as exc:
            if fields is None and not params.validated_data["draft"]:
                raise
            problems = [
                form_problem(problem)
                if fields is not None
                else {**problem, "field": problem.get("field") or "spec"}
                for problem in exc.problems
            ]
            # a draft that cannot be built yet is an answer, not a failed request
            answer_status = (
                status.HTTP_200_OK
                if params.validated_data["draft"]
                else status.HTTP_400_BAD_REQUEST
            )
            return Response({"problems": problems, "spec": document}, status=answer_status)


def _request_problems(errors, prefix: str = "") -> list[dict]:
    """DRF's field errors as ``[{field, message}]`` (``fields.servers``: a field's text)."""
    problems = []
    for key, messages in errors.items():
        field = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(messages, dict):
            problems += _request_problems(messages, field)
            continue
        for message in messages if isinstance(messages, list) else [messages]:
            if isinstance(message, dict):
                problems += _request_problems(message, field)
            else:
                problems.append({"field": field, "message": str(message)})
    return problems


class PresetListView(APIView):
    """The worked examples: reference designs to start from."""

    @extend_schema(responses={200: PresetSerializer(many=True)})
    def get(self, request):
        return Response(wizard_presets())
