"""Thin async resolvers, one module per concept: check nothing themselves,
call the core, map results to GraphQL types. ``args`` holds the argument
types they share."""
