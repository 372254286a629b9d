// Removed once the config unit has real sources.
