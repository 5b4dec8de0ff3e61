"""Moving whole histories in and out: MemEX replay, export and import."""
