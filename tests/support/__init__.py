"""What the tests and tools share: the offline Discord (`fakediscord`) and small helpers."""
