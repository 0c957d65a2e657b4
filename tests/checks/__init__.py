"""Diagnostics tests (a package, so its module names may repeat those of other test folders)."""
