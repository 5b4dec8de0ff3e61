"""The memory model: items and typed edges, their validation, commands and reads.

``model`` holds the records, ``validation`` every input check (run before any
write), ``records`` the conversions to graph properties and MemEX JSON,
``items`` / ``edges`` the commands, ``reads`` item lookups and ``filters``
the ``MemoryFilter`` and its compilation to Cypher.
"""
