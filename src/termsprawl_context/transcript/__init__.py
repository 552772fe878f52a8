"""One transcript record's meaning: entries, text, turns, names, predicates."""
