"""Pages of as-built imports: the cabling check of a revision (:mod:`.cabling`)."""
