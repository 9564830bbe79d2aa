"""Shared REST API building blocks (rest_framework only): :mod:`planner.api_base.serializers`."""
