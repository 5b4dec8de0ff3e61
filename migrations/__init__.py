"""Versioned schema migrations per backend; shipped inside the wheel as ``memexd.migrations``."""
