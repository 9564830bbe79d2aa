"""Outputs API: a revision's bill of materials, its cabling plan (download and re-import), its
exports (NetBox, NVIDIA P2P, Arista AVD, JSON) and its day-0 switch configuration.

Views parse the request and call one function of :mod:`planner.outputs.services`. Anyone who can
read
a design reads its outputs; importing a cabling plan needs write access (403 otherwise).
Spares are query parameters ``spares_<category>=<percent>`` (e.g. ``spares_transceiver=2``).
A revision whose stored topology cannot be read answers 422 ``{"code", "detail"}`` before any
byte of a file is sent. A rejected cabling import is 400 ``{"problems": [{row, column, code,
message}]}`` (row 1 = the header) and a stale ``base_revision`` 409, with nothing written.
"""

from __future__ import annotations

import math

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from planner.api_base.serializers import NoEmptyValuesMixin
from planner.designs import selectors
from planner.designs.adapters import catalog_facts
from planner.designs.api.serializers import ConflictSerializer, RevisionSerializer
from planner.designs.bom import OutputError, revision_bom, revision_fabric_or_error
from planner.domain.outputs import CATEGORIES, SPARES_CATEGORIES, BomError
from planner.domain.outputs.telemetry import telemetry_plan
from planner.outputs import services as outputs
from simulation.overlays import revision_utilization

SPARES_PARAMETERS = [
    OpenApiParameter(
        f"spares_{category}",
        {"type": "number", "minimum": 0, "maximum": 1000},
        description=f"Spares for {category} lines, percent (0 to 1,000)",
    )
    for category in SPARES_CATEGORIES
]
UNREADABLE = OpenApiResponse(
    OpenApiTypes.OBJECT, description="{code, detail}: the stored topology cannot be read"
)


class JSONErrorsNegotiation(BaseContentNegotiation):
    """Downloads stream their own content type; anything rendered (an error) is JSON, whatever
    the request's ``Accept`` header or ``?format=`` asks for."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        renderer = renderers[0]
        return renderer, renderer.media_type


def spares_from_query(params) -> dict[str, float]:
    """``spares_<category>`` query parameters as ``{category: percent}`` (values unchecked).

    Raises
    ------
    BomError
        A ``spares_<category>`` parameter given more than once (``field`` names it).
    """
    spares: dict[str, float] = {}
    for key, values in params.lists():
        if not key.startswith("spares_"):
            continue
        if len(values) > 1:
            raise BomError(f"{key}: give one percentage, not {len(values)}", field=key)
        if values[0] not in ("", None):
            spares[key.removeprefix("spares_")] = values[0]
    return spares


def _bad_spares(exc: BomError) -> Response:
    """A 400 keyed by the query parameter at fault (``spares_fiber``, not ``spares_pct.fiber``)."""
    field = exc.field or "spares_pct"
    if field.startswith("spares_pct."):
        field = "spares_" + field.removeprefix("spares_pct.")
    return Response({field: [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)


def _unreadable(exc: OutputError) -> Response:
    code = (
        status.HTTP_404_NOT_FOUND
        if exc.code == "unknown-format"
        else status.HTTP_422_UNPROCESSABLE_ENTITY
    )
    return Response({"code": exc.code, "detail": exc.message}, status=code)


def _streaming(export: outputs.Export) -> StreamingHttpResponse:
    response = StreamingHttpResponse(export.chunks, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


def _revision(request, design_pk, number):
    design = selectors.design_get_for(request.user, design_pk)
    return design, selectors.revision_get(design, number)


class BomLineSerializer(serializers.Serializer):
    part = serializers.CharField()
    part_number = serializers.CharField()
    name = serializers.CharField()
    manufacturer = serializers.CharField()
    category = serializers.ChoiceField(choices=list(CATEGORIES))
    tier = serializers.CharField()
    length_m = serializers.FloatField(allow_null=True)
    base_quantity = serializers.IntegerField()
    spares = serializers.IntegerField()
    quantity = serializers.IntegerField()
    counted_per = serializers.CharField()
    length_rule = serializers.CharField(
        help_text="cables and fibers: how the ordered length was chosen (listed or policy)"
    )
    installed = serializers.IntegerField(
        help_text="field-replaceable units in service that the spares cover (0: never spared, "
        "e.g. a rack-scale system, spared by its trays, or a rack)"
    )


class BomSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    revision = serializers.IntegerField()
    spares_pct = serializers.DictField(child=serializers.FloatField())
    lines = BomLineSerializer(many=True)
    quantity_by_category = serializers.DictField(child=serializers.IntegerField())
    notes = serializers.ListField(child=serializers.CharField())


class RevisionBomView(APIView):
    """A revision's bill of materials: every part with its quantity, by category and tier,
    with the counting rule of each line and spares per category (default 0)."""

    @extend_schema(
        parameters=SPARES_PARAMETERS,
        responses={200: BomSerializer, 400: OpenApiTypes.OBJECT, 422: UNREADABLE},
    )
    def get(self, request, design_pk: int, number: int):
        design, revision = _revision(request, design_pk, number)
        try:
            bom = revision_bom(revision, spares_pct=spares_from_query(request.query_params))
        except BomError as exc:
            return _bad_spares(exc)
        except OutputError as exc:
            return _unreadable(exc)
        return Response({"design": design.pk, "revision": revision.number, **bom.to_dict()})


class RevisionExportView(APIView):
    """Download a revision as ``bom-csv``, ``cabling-csv``, ``netbox-devices``,
    ``netbox-cables``, ``p2p`` (NVIDIA cable validation), ``avd`` (Arista topology CSV),
    ``avd-yaml`` (Arista AVD ``eos_designs`` inputs, one Ansible YAML inventory), ``json``
    (spec, summary, topology and BOM), or its day-0 switch configuration:
    ``config-intent-yaml`` / ``config-intent-json`` (per switch, the QoS/RoCE or subnet-manager
    settings the design needs), ``config-nvue`` (NVIDIA Cumulus ``nv set`` commands),
    ``config-sonic`` (SONiC ``config_db.json`` per switch), ``config-eos`` (Arista EOS) or
    ``config-opensm`` (an ``opensm.conf`` fragment, InfiniBand). A configuration format that
    cannot describe the design (NVUE of an InfiniBand design, say) answers 422 ``{code,
    detail}`` naming what to download instead. Files stream; the download is audited."""

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONErrorsNegotiation

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "fmt", str, OpenApiParameter.PATH, enum=list(outputs.DOWNLOAD_FORMATS)
            ),
            OpenApiParameter("site", str, description="NetBox site name (netbox-devices)"),
            *SPARES_PARAMETERS,
        ],
        responses={
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "application/yaml"): OpenApiTypes.ANY,  # a YAML document (rules, intent)
            (200, "text/plain"): OpenApiTypes.BINARY,
            400: OpenApiTypes.OBJECT,
            404: OpenApiTypes.OBJECT,
            422: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="{code, detail}: the stored topology cannot be read, or the format "
                "cannot describe this design",
            ),
        },
    )
    def get(self, request, design_pk: int, number: int, fmt: str):
        design, revision = _revision(request, design_pk, number)
        try:
            export = outputs.revision_export(
                user=request.user,
                design=design,
                revision=revision,
                fmt=fmt,
                spares_pct=spares_from_query(request.query_params),
                site=request.query_params.get("site", ""),
                utilization=(
                    revision_utilization(design, revision.number)
                    if fmt in outputs.TELEMETRY_DOWNLOADS
                    else None
                ),
            )
        except BomError as exc:
            return _bad_spares(exc)
        except OutputError as exc:
            return _unreadable(exc)
        return _streaming(export)


class TelemetryQuerySerializer(NoEmptyValuesMixin, serializers.Serializer):
    interval_s = serializers.FloatField(
        required=False,
        min_value=0.1,
        max_value=86400,
        help_text="Sample interval of every counter, seconds (default 10)",
    )
    pfc_ecn_interval_s = serializers.FloatField(
        required=False,
        min_value=0.1,
        max_value=86400,
        help_text="Sample interval of the PFC and ECN counters, seconds (default interval_s)",
    )
    bytes_per_sample = serializers.FloatField(
        required=False,
        min_value=0.1,
        max_value=1000,
        help_text="Stored bytes per sample (default 2: Prometheus's 1-2)",
    )

    def validate(self, attrs):
        for name, value in attrs.items():
            if not math.isfinite(value):
                raise serializers.ValidationError({name: ["Give a finite number."]})
        return attrs


class RevisionTelemetryView(APIView):
    """A revision's telemetry plan: the counters to collect per switch port and module, with
    their OpenConfig / SONiC / EOS / NVUE paths or InfiniBand counter names and sources, the
    expected range of each (receive power from the optical budget, BER by FEC, throughput from
    the newest flow simulation of the revision), and the collector load (series, samples/s,
    bytes/day). The files: ``exports/telemetry-prometheus/`` and ``exports/telemetry-gnmic/``."""

    @extend_schema(
        parameters=[TelemetryQuerySerializer],
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT, 422: UNREADABLE},
    )
    def get(self, request, design_pk: int, number: int):
        design, revision = _revision(request, design_pk, number)
        params = TelemetryQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        try:
            fabric = revision_fabric_or_error(revision)
        except OutputError as exc:
            return _unreadable(exc)
        plan = telemetry_plan(
            fabric,
            catalog_facts(),
            name=design.name,
            revision=revision.number,
            utilization=revision_utilization(design, revision.number),
            **params.validated_data,
        )
        return Response({"design": design.pk, **plan.as_dict()})


class RevisionCablingView(APIView):
    """The cabling plan of a revision as CSV (one row per cable and per breakout leg; see
    :mod:`planner.domain.outputs.cabling` for the columns and labels). Streams."""

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONErrorsNegotiation

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.BINARY, 422: UNREADABLE})
    def get(self, request, design_pk: int, number: int):
        design, revision = _revision(request, design_pk, number)
        try:
            export = outputs.revision_export(
                user=request.user, design=design, revision=revision, fmt="cabling-csv"
            )
        except OutputError as exc:
            return _unreadable(exc)
        return _streaming(export)


class CablingImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The edited cabling plan (CSV, UTF-8)")
    base_revision = serializers.IntegerField(
        min_value=1, help_text="The revision the plan was downloaded from (must be the latest)"
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")
    allow_remove_all = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Apply a file that removes every cable of the revision (refused otherwise)",
    )


class CablingProblemSerializer(serializers.Serializer):
    row = serializers.IntegerField(help_text="CSV row (header = 1; 0 = the whole file)")
    column = serializers.CharField(allow_blank=True)
    code = serializers.CharField()
    message = serializers.CharField()


class CablingProblemsSerializer(serializers.Serializer):
    problems = CablingProblemSerializer(many=True)


class CablingImportResultSerializer(serializers.Serializer):
    revision = RevisionSerializer()
    changed = serializers.ListField(child=serializers.CharField(), help_text="Labels")
    added_rows = serializers.ListField(child=serializers.IntegerField())
    removed = serializers.ListField(child=serializers.CharField(), help_text="Labels")


class DesignCablingImportView(APIView):
    """Upload an edited cabling plan: changed, added and removed rows become the next
    revision (kind ``edited``), checked like any topology edit. All or nothing."""

    # a file or a form, never JSON: the project's own parsers for those (the defaults)
    parser_classes = [
        parser
        for parser in api_settings.DEFAULT_PARSER_CLASSES
        if parser.media_type != "application/json"
    ]

    @extend_schema(
        request={"multipart/form-data": CablingImportSerializer},
        responses={
            201: CablingImportResultSerializer,
            400: OpenApiResponse(CablingProblemsSerializer, description="Row-numbered problems"),
            409: OpenApiResponse(ConflictSerializer, description="base_revision is stale"),
        },
    )
    def post(self, request, design_pk: int):
        design = selectors.design_get_for(request.user, design_pk, write=True)  # 404/403 first
        params = CablingImportSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        revision, edit = outputs.design_import_cabling(
            design=design,
            user=request.user,
            csv_file=data["file"],
            base_revision=data["base_revision"],
            message=data["message"],
            allow_remove_all=data["allow_remove_all"],
        )
        return Response(
            {
                "revision": RevisionSerializer(revision).data,
                "changed": edit.changed,
                "added_rows": edit.added_rows,
                "removed": edit.removed,
            },
            status=status.HTTP_201_CREATED,
        )
