"""Cypher statements, one per file; shipped inside the wheel as ``memexd.cypher``."""
