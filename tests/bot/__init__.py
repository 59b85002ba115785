"""The Discord layer: the real bot against the offline Discord, its presenters, pictures and set-up."""
