"""The models of the ``planner`` app, each defined in its concern's package and gathered here
for Django (app label ``planner``; migrations refer to ``planner.models``). Teams are an app
of their own, :mod:`planner.teams` (label ``teams``)."""

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

__all__ = [
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
    "quote_default_valid_until",
]
