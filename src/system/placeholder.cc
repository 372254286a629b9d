// Removed once the system unit has real sources.
