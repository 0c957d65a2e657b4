"""Fuzzing of the checker, the editor features and the runtime's file loaders (see README.md)."""
