"""Tournament rules (pure): pairings of every format, standings and tie-breaks, the snapshot."""
