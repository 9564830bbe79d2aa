"""The models of the ``planner`` app (label ``planner``): the designs and their revisions,
defined in :mod:`planner.designs.models` and gathered here for Django. Teams, the audit log,
quotes and as-built imports are apps of their own (labels ``teams``, ``audit``, ``quotes``,
``asbuilt``)."""

from planner.designs.models import (
    Design,
    DesignRevision,
    DesignRevisionKindChoices,
    DesignSharingChoices,
    RevisionImmutableError,
)

__all__ = [
    "Design",
    "DesignRevision",
    "DesignRevisionKindChoices",
    "DesignSharingChoices",
    "RevisionImmutableError",
]
