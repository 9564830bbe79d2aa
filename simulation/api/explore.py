"""The explorations API: start a design-space exploration from a requirements document, read
it, download its front (JSON or CSV), and open a candidate as a new design.

An exploration is a job of kind ``explore`` (``/api/simulation/jobs/`` lists and cancels it
too); here it is created from the requirements as JSON or as YAML/JSON text.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.response import Response

from planner.analyses.explore.requirements import RequirementsError, load_requirements_text
from planner.designs.services import DesignError
from simulation.api.serializers import JobListSerializer, JobSerializer
from simulation.api.views import TooManyJobs
from simulation.explore import (
    ExploreError,
    explore_open_design,
    finished_result,
    front_rows,
    rows_csv,
)
from simulation.jobs.parameters import ExploreParameters, requirement_problems
from simulation.models import Job, JobKindChoices
from simulation.services import JobLimitError, job_enqueue, job_recover_stale

#: Most characters of a requirements document sent as text.
MAX_TEXT = 200_000


class RequirementsTextParser(BaseParser):
    """A requirements document sent as YAML (or JSON) text in the body."""

    media_type = "application/yaml"

    def parse(self, stream, media_type=None, parser_context=None):
        return {"requirements": stream.read(MAX_TEXT + 1).decode("utf-8", errors="replace")}


class PlainTextParser(RequirementsTextParser):
    media_type = "text/plain"


class ExplorationCreateSerializer(serializers.Serializer):
    requirements = serializers.JSONField(
        help_text="The requirements document: a mapping, or its YAML/JSON text (a body of "
        "type application/yaml or text/plain is the text)."
    )


def requirements_document(value) -> dict:
    """The requirements as a mapping (text is read as YAML or JSON); a ValidationError naming
    ``requirements`` (and the line) when it cannot be read."""
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise ValidationError({"requirements": [f"at most {MAX_TEXT:,} characters"]})
        try:
            value = load_requirements_text(value)
        except RequirementsError as exc:
            raise ValidationError({"requirements": requirement_problems(exc.problems)}) from None
    if not isinstance(value, dict):
        raise ValidationError({"requirements": ["a mapping of keys (gpus, servers, ...)"]})
    return value


class ExplorationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Design-space explorations (jobs of kind ``explore``) of the signed-in user; others
    404."""

    queryset = Job.objects.none()  # for the schema; get_queryset() scopes to the user
    serializer_class = JobSerializer
    parser_classes = [JSONParser, RequirementsTextParser, PlainTextParser]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Job.objects.none()
        jobs = Job.objects.filter(owner=self.request.user, kind=JobKindChoices.EXPLORE)
        return jobs.defer("result") if self.action == "list" else jobs

    def get_serializer_class(self):
        return JobListSerializer if self.action == "list" else JobSerializer

    def get_object(self):
        try:
            return super().get_object()
        except (DjangoValidationError, ValueError):  # not a UUID
            raise Http404("No such exploration.") from None

    def retrieve(self, request, *args, **kwargs):
        job_recover_stale()
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        request={
            "application/json": ExplorationCreateSerializer,
            "application/yaml": OpenApiTypes.STR,
            "text/plain": OpenApiTypes.STR,
        },
        responses={
            201: JobSerializer,
            400: OpenApiResponse(description="The requirements, each problem naming its field"),
            429: OpenApiResponse(description="Too many of your jobs are queued or running"),
        },
        description='Start an exploration: `{"requirements": {...}}` (or the document\'s '
        "YAML/JSON text, in that key or as a body of type application/yaml or text/plain). "
        "Each problem names its field (`limits.power_kw: ...`); a budget's `price_book` must "
        "be one whose prices you may read.",
    )
    def create(self, request):
        data = request.data if isinstance(request.data, dict) else {}
        if "requirements" not in data:
            raise ValidationError({"requirements": ["give the requirements document"]})
        document = requirements_document(data["requirements"])
        try:
            job = job_enqueue(owner=request.user, kind=JobKindChoices.EXPLORE, parameters=document)
        except DjangoValidationError as exc:
            problems = exc.message_dict.get("parameters") or exc.messages
            raise ValidationError({"requirements": problems}) from None
        except JobLimitError as exc:
            too_many = TooManyJobs(str(exc))
            too_many.wait = exc.retry_after_s or None
            raise too_many from exc
        return Response(JobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("as", str, enum=["json", "csv"], description="json (default) or csv."),
            OpenApiParameter("all", bool, description="Every candidate, not only the front."),
        ],
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): OpenApiTypes.BINARY,
            400: OpenApiResponse(description="``as`` is neither json nor csv"),
            409: OpenApiResponse(description="The exploration has not succeeded (yet)"),
        },
    )
    @action(detail=True, methods=["get"])
    def front(self, request, pk=None, format=None):
        """The Pareto front (``?all=1``: every candidate) as rows: JSON, or CSV with
        ``?as=csv`` (errors are JSON either way)."""
        kind = request.query_params.get("as") or "json"
        if kind not in ("json", "csv"):
            raise ValidationError({"as": [f"json or csv (got “{kind[:20]}”)"]})
        job = self.get_object()
        every = request.query_params.get("all") in ("1", "true", "yes")
        try:
            rows = front_rows(finished_result(job), every=every)
        except ExploreError as exc:
            return Response({exc.field: [exc.message]}, status=status.HTTP_409_CONFLICT)
        if kind == "csv":
            response = HttpResponse(rows_csv(rows), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = (
                f'attachment; filename="exploration-{"all" if every else "front"}.csv"'
            )
            return response
        result = job.result
        return Response(
            {"objectives": result.get("objectives"), "counts": result.get("counts"), "rows": rows}
        )

    @extend_schema(
        request=None,
        responses={
            201: OpenApiTypes.OBJECT,
            400: OpenApiResponse(description="The candidate cannot be built or opened"),
            409: OpenApiResponse(description="The exploration has not succeeded (yet)"),
        },
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"candidates/(?P<index>\d+)/design",
        url_name="candidate-design",
    )
    def candidate_design(self, request, pk=None, index=None, format=None):
        """Open candidate ``index`` as a new design of yours (audited as any create)."""
        job = self.get_object()
        try:
            design = explore_open_design(job=job, index=index, owner=request.user)
        except ExploreError as exc:
            code = status.HTTP_409_CONFLICT if exc.field == "job" else status.HTTP_400_BAD_REQUEST
            return Response({exc.field: [exc.message]}, status=code)
        except DesignError as exc:
            problems = [f"{p.get('field') or 'spec'}: {p.get('message')}" for p in exc.problems]
            return Response({"candidate": problems}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {
                "design": design.pk,
                "name": design.name,
                "url": request.build_absolute_uri(design.get_absolute_url()),
            },
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=False, methods=["get"], url_path="requirements-schema")
    def requirements_schema(self, request, format=None):
        """The requirements document's JSON Schema (draft 2020-12)."""
        return Response(ExploreParameters.requirements_schema())
