"""syntax layer."""
