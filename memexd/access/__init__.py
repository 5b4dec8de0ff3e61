"""Access control: who the caller is and which scopes it may read or write.

``grants`` holds the rights model (a right on a scope prefix) and the
:class:`~memexd.access.grants.Access` every query is bound to; ``keys`` the
API key store; ``tokens`` JWT verification; ``gate`` turns a request's
credentials into an ``Access`` and decides when anonymous callers are let in.
The grants are enforced inside the Cypher (``cypher/shapes/readable.cypher``
and ``writable.cypher``), never by filtering results afterwards.
"""
