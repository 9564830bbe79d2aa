"""REST API of as-built imports: cabling checks (:mod:`.cabling`) and counter snapshots
(:mod:`.counters`) of a revision."""
