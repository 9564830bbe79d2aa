from django.contrib import admin

from simulation.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "owner", "status", "created", "finished"]
    list_filter = ["kind", "status"]
