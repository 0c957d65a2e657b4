"""schema layer."""
