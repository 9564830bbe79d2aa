from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.response import Response

from simulation.api.serializers import JobCreateSerializer, JobSerializer
from simulation.models import Job
from simulation.services import job_enqueue


class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Start, list and poll background jobs. Users see only their own jobs."""

    queryset = Job.objects.none()  # for the schema; get_queryset() scopes to the user
    serializer_class = JobSerializer
    filterset_fields = ["kind", "status"]
    ordering_fields = ["created", "finished"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Job.objects.none()
        return Job.objects.filter(owner=self.request.user).select_related("owner")

    @extend_schema(request=JobCreateSerializer, responses={201: JobSerializer})
    def create(self, request):
        params = JobCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        job = job_enqueue(owner=request.user, **params.validated_data)
        return Response(JobSerializer(job).data, status=status.HTTP_201_CREATED)
