"""Engine tests of the three games (pure rules, no storage, no Discord)."""
