"""The GraphQL schema, one module per concept: ``items``, ``edges``,
``filters``, ``events``, ``integrity`` (provenance, contradictions, cascade),
the root types ``query`` and ``mutation``, and ``build`` which assembles them.

Leaf modules never import resolvers; only the root types do. Ships inside
the wheel as ``memexd.schema``; ``schema.graphql`` beside this file is the
exported SDL, checked against the code by the tests.
"""
