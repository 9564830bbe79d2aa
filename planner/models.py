"""The models of the ``planner`` app, each defined in its concern's package and gathered here
for Django (app label ``planner``; migrations refer to ``planner.models``)."""

from planner.asbuilt.models import (
    FieldImport,
    FieldImportFormatChoices,
    FieldImportKindChoices,
)
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.models import (
    Design,
    DesignRevision,
    DesignRevisionKindChoices,
    DesignSharingChoices,
    RevisionImmutableError,
)
from planner.quotes.models import Quote, QuoteNumberSequence, quote_default_valid_until
from planner.teams.models import WRITE_ROLES, Team, TeamMembership, TeamRoleChoices

__all__ = [
    "WRITE_ROLES",
    "AuditActionChoices",
    "AuditEvent",
    "Design",
    "DesignRevision",
    "DesignRevisionKindChoices",
    "DesignSharingChoices",
    "FieldImport",
    "FieldImportFormatChoices",
    "FieldImportKindChoices",
    "Quote",
    "QuoteNumberSequence",
    "RevisionImmutableError",
    "Team",
    "TeamMembership",
    "TeamRoleChoices",
    "quote_default_valid_until",
]
