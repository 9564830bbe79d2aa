import django_filters
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response

from planner.designs.selectors import design_get_for, revision_get
from simulation.api.serializers import JobCreateSerializer, JobListSerializer, JobSerializer
from simulation.jobs.kinds import KINDS
from simulation.models import Job
from simulation.services import (
    JobLimitError,
    job_cancel,
    job_enqueue,
    job_recover_stale,
)


class TooManyJobs(APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "too_many_jobs"


def job_create_schema() -> dict:
    """The body of a job submission as the server takes it, one schema per kind: its
    parameters (from the kind's serializer, :mod:`simulation.jobs.parameters`); a kind that
    works on a design (validate, power, simulate, ...) names the design (and optionally its
    revision), one that does not (diagnostics) names none."""
    fields = JobCreateSerializer().fields

    def branch(kind: str, spec) -> dict:
        schema = {
            "type": "object",
            "title": f"A {kind} job",
            "properties": {
                "kind": {"type": "string", "enum": [kind]},
                "parameters": spec.parameters.json_schema(),
            },
            "required": ["kind"],
        }
        if spec.needs_revision:
            schema["properties"]["design"] = {"type": "integer", "description": "Design id."}
            schema["properties"]["revision"] = {
                "type": "integer",
                "minimum": 1,
                "nullable": True,
                "description": fields["revision"].help_text,
            }
            schema["required"].append("design")
        else:
            # no design or revision given (null is "not given")
            schema["not"] = {
                "anyOf": [
                    {"required": [name], "properties": {name: {"type": "integer"}}}
                    for name in ("design", "revision")
                ]
            }
        return schema

    return {"oneOf": [branch(str(kind), spec) for kind, spec in KINDS.items()]}


class JobSchema(AutoSchema):
    """A job submission's body is documented by :func:`job_create_schema`, built when the
    schema is, not when this module loads (the kinds' parameters read the flow simulation's
    choices, and the flow simulation loads numba)."""

    def get_request_serializer(self):
        if getattr(self.view, "action", None) == "create":
            return {"application/json": job_create_schema()}
        return super().get_request_serializer()


class JobFilterSet(django_filters.FilterSet):
    design = django_filters.NumberFilter(
        field_name="design_revision__design_id",
        label="Design",
        help_text="Only the jobs on revisions of this design (its id).",
    )

    class Meta:
        model = Job
        fields = ["kind", "status", "design"]


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Start, list, poll and cancel background jobs. Users see only their own jobs (others 404).

    Reading the list or a job also sweeps for running jobs whose worker was lost (one query).
    """

    queryset = Job.objects.none()  # for the schema; get_queryset() scopes to the user
    schema = JobSchema()
    serializer_class = JobSerializer
    filterset_class = JobFilterSet
    ordering_fields = ["created", "finished"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Job.objects.none()
        jobs = Job.objects.filter(owner=self.request.user).select_related(
            "owner", "design_revision"
        )
        jobs = jobs.defer(
            "design_revision__topology", "design_revision__spec", "design_revision__summary"
        )
        if self.action == "list":
            jobs = jobs.defer("result")
        return jobs

    def get_serializer_class(self):
        return JobListSerializer if self.action == "list" else JobSerializer

    def list(self, request, *args, **kwargs):
        job_recover_stale()
        return super().list(request, *args, **kwargs)

    def retrieve(self, request, *args, **kwargs):
        job_recover_stale()
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        responses={
            201: JobSerializer,
            200: JobSerializer,
            404: OpenApiResponse(description="No such design or revision you may see"),
            429: OpenApiResponse(description="Too many of your jobs are queued or running"),
        },
        description="Start a job. `design` (and optionally `revision`, default the latest) is "
        "needed for validate, power and simulate and must be readable by you. A job with the same "
        "inputs that already succeeded is returned with `reused: true` and status 200. "
        "429 when you already have JOBS_MAX_CONCURRENT_PER_USER jobs queued or running. "
        "While the job broker does not answer, the job stays queued (its progress message "
        "says so) and is sent when the broker is back.",
    )
    def create(self, request):
        params = JobCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        revision = None
        if data.get("design") is not None:
            design = design_get_for(request.user, data["design"])
            if data.get("revision"):
                revision = revision_get(design, data["revision"])
            else:
                revision = design.revisions.defer("topology").order_by("-number").first()
                if revision is None:
                    raise ValidationError({"design": ["This design has no revision yet."]})
        elif data.get("revision"):
            raise ValidationError({"design": ["Name the design of the revision."]})
        try:
            job = job_enqueue(
                owner=request.user,
                kind=data["kind"],
                design_revision=revision,
                parameters=data.get("parameters") or {},
            )
        except JobLimitError as exc:
            too_many = TooManyJobs(str(exc))
            too_many.wait = exc.retry_after_s or None  # DRF sends it as Retry-After
            raise too_many from exc
        code = status.HTTP_200_OK if job.reused else status.HTTP_201_CREATED
        return Response(JobSerializer(job).data, status=code)

    @extend_schema(request=None, responses={200: JobSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None, format=None):
        """Cancel a queued job, or stop a running one; a finished job is returned unchanged."""
        job = self.get_object()
        return Response(JobSerializer(job_cancel(job=job)).data)
