"""Title-independent 18xx core: entities, market, map graph, rounds and steps."""
