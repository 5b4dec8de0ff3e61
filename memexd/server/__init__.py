"""The server edge: the ASGI app, HTTP guards, the GraphQL context, loaders and
schema extensions (limits, cost, error codes). Nothing below this package
knows about HTTP or GraphQL.
"""
