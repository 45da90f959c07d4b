"""Writers of the single-op detail (SingleOpDetail): console, and the reference-style per-element files."""
