"""As-built cabling checks of a revision over the API: upload a file the built fabric produced
(LLDP table, ``ibnetdiscover`` output, NetBox cable CSV) to check it against the revision (all
or nothing), list and read the reports, download the installer's CSV, and the canvas's "As
built" overlay."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.asbuilt.services import (
    CABLING_FORMATS,
    MAX_FILE_CHARS,
    CablingRejected,
    cabling_import_dict,
    cabling_import_get,
    cabling_report_csv,
    revision_asbuilt_overlay,
    revision_cabling_imports,
    revision_import_cabling,
)
from planner.designs import selectors
from planner.outputs.api import JSONErrorsNegotiation
from planner.project.api.parsers import LimitedJSONParser, PlainMultiPartParser

FORMAT_HELP = (
    "lldp-json (lldpctl -f json, one switch with 'device' or keyed by host name), lldp-csv "
    "(local device, local port, remote device, remote port, speed; NVUE and SONiC table "
    "headers accepted), ibnetdiscover (its topology output) or netbox-cables (NetBox cable "
    "CSV: bulk-import or cable-list columns); see planner/domain/asbuilt/parsers.py"
)


class AsBuiltTextSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=CABLING_FORMATS, help_text=FORMAT_HELP)
    text = serializers.CharField(
        trim_whitespace=False, max_length=MAX_FILE_CHARS, help_text="The file's text"
    )
    file_name = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")
    device = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        default="",
        help_text="The switch whose LLDP table this is, when the file does not name it",
    )


class AsBuiltFileSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=CABLING_FORMATS, help_text=FORMAT_HELP)
    file = serializers.FileField(help_text="The file (UTF-8 text, up to 10 MiB)")
    device = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")


class AsBuiltProblemSerializer(serializers.Serializer):
    row = serializers.IntegerField(help_text="Row or line of the file (CSV header = 1); 0 = file")
    field = serializers.CharField(allow_blank=True)
    code = serializers.CharField()
    message = serializers.CharField()
    device = serializers.CharField(allow_blank=True)
    port = serializers.CharField(allow_blank=True)


class AsBuiltProblemsSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = AsBuiltProblemSerializer(many=True)
    more = serializers.IntegerField()


class AsBuiltEndSerializer(serializers.Serializer):
    device = serializers.CharField()
    port = serializers.CharField()
    role = serializers.CharField(allow_blank=True)
    label = serializers.CharField(allow_blank=True)
    rack = serializers.CharField(allow_blank=True)
    ru = serializers.CharField(allow_blank=True)


class AsBuiltFindingSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=(
            "missing",
            "unexpected",
            "swapped-ports",
            "wrong-rail",
            "wrong-plane",
            "wrong-speed",
        )
    )
    label = serializers.CharField()
    a = AsBuiltEndSerializer()
    b = AsBuiltEndSerializer()
    expected = serializers.CharField()
    found = serializers.CharField()
    action = serializers.CharField()
    rows = serializers.ListField(child=serializers.IntegerField())
    links = serializers.ListField(child=serializers.CharField())


class AsBuiltImportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    revision = serializers.IntegerField()
    created = serializers.DateTimeField()
    created_by = serializers.CharField(allow_blank=True)
    file_name = serializers.CharField(allow_blank=True)
    format = serializers.CharField()
    format_label = serializers.CharField()
    summary = serializers.DictField(help_text="Counts: rows, cables_found, links_checked, counts")


class AsBuiltReportSerializer(AsBuiltImportSerializer):
    findings = AsBuiltFindingSerializer(many=True)


#: ``import`` is a Python keyword, so the class is built with ``type``.
AsBuiltOverlaySerializer = type(
    "AsBuiltOverlaySerializer",
    (serializers.Serializer,),
    {
        "revision": serializers.IntegerField(),
        "import": AsBuiltImportSerializer(allow_null=True, help_text="The newest check, or null"),
        "links": serializers.DictField(
            child=serializers.CharField(), help_text='"link:<i>": kind of its finding'
        ),
        "findings": AsBuiltFindingSerializer(many=True),
    },
)


def _rejected(exc: CablingRejected) -> Response:
    return Response(
        {"detail": str(exc), "problems": exc.problems, "more": exc.more},
        status=status.HTTP_400_BAD_REQUEST,
    )


def _file_text(upload) -> str:
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_FILE_CHARS:
        raise CablingRejected(
            [
                {
                    "row": 0,
                    "field": "file",
                    "code": "too-large",
                    "message": "The file is over 10 MiB.",
                    "device": "",
                    "port": "",
                }
            ]
        )
    data = upload.read(MAX_FILE_CHARS + 1)
    try:
        return data.decode("utf-8-sig") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise CablingRejected(
            [
                {
                    "row": 0,
                    "field": "file",
                    "code": "not-utf8",
                    "message": "The file is not UTF-8 text; save it as UTF-8.",
                    "device": "",
                    "port": "",
                }
            ]
        ) from None


class RevisionCablingImportsView(APIView):
    """GET: the revision's as-built cabling checks, newest first (summaries). POST: check a
    file against the revision (design editors; JSON with the file's ``text`` or multipart with
    ``file``): 201 with the report (each finding's kind, both ends by label, rack and RU,
    expected and found), or 400 naming the row, field, device and port with nothing stored."""

    parser_classes = [LimitedJSONParser, PlainMultiPartParser, FormParser]

    @extend_schema(responses={200: AsBuiltImportSerializer(many=True)})
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        records = revision_cabling_imports(revision)[:200]
        return Response([cabling_import_dict(r, with_report=False) for r in records])

    @extend_schema(
        request={
            "application/json": AsBuiltTextSerializer,
            "multipart/form-data": AsBuiltFileSerializer,
        },
        responses={
            201: AsBuiltReportSerializer,
            400: OpenApiResponse(
                AsBuiltProblemsSerializer, description="Problems naming row, field, device, port"
            ),
        },
    )
    def post(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk, write=True)
        revision = selectors.revision_get(design, number)
        is_file = "file" in request.data or "file" in getattr(request, "FILES", {})
        params = (AsBuiltFileSerializer if is_file else AsBuiltTextSerializer)(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            if is_file:
                text, file_name = _file_text(data["file"]), data["file"].name
            else:
                text, file_name = data["text"], data["file_name"]
            record = revision_import_cabling(
                user=request.user,
                design=design,
                revision=revision,
                text=text,
                fmt=data["format"],
                file_name=file_name,
                device=data["device"],
            )
        except CablingRejected as exc:
            return _rejected(exc)
        return Response(
            cabling_import_dict(record, with_report=True), status=status.HTTP_201_CREATED
        )


class RevisionCablingImportView(APIView):
    """One as-built cabling check with its findings."""

    @extend_schema(responses={200: AsBuiltReportSerializer})
    def get(self, request, design_pk: int, number: int, pk: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response(cabling_import_dict(cabling_import_get(revision, pk), with_report=True))


class RevisionCablingImportCsvView(APIView):
    """The findings of one check as the installer's CSV: kind, label, both ends' device,
    port, rack and RU, expected, found, what to do, the file's rows."""

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONErrorsNegotiation

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.BINARY})
    def get(self, request, design_pk: int, number: int, pk: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        record = cabling_import_get(revision, pk)
        response = StreamingHttpResponse(cabling_report_csv(record), content_type="text/csv")
        response["Content-Disposition"] = (
            f'attachment; filename="as-built-design{design.pk}-r{revision.number}-{record.pk}.csv"'
        )
        return response


class RevisionAsBuiltOverlayView(APIView):
    """The canvas's "As built" overlay: the newest cabling check's kind per design link
    (``link:<i>``) and its findings."""

    @extend_schema(responses={200: AsBuiltOverlaySerializer})
    def get(self, request, design_pk: int, number: int):
        design = selectors.design_get_for(request.user, design_pk)
        revision = selectors.revision_get(design, number)
        return Response(revision_asbuilt_overlay(revision))
