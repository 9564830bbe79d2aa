from django.contrib import admin

from simulation.models import Job, JobSweep


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "owner", "status", "attempts", "worker", "created", "finished"]
    list_filter = ["kind", "status"]
    raw_id_fields = ["design_revision"]
    readonly_fields = ["heartbeat", "attempts", "worker", "input_hash"]


@admin.register(JobSweep)
class JobSweepAdmin(admin.ModelAdmin):
    list_display = ["name", "token", "last_run"]
