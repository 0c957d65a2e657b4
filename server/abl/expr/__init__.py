"""expr layer."""
