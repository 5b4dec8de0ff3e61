"""Thin async resolvers: validate input, call the core, map results to GraphQL types."""
