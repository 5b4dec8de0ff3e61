"""The event log: the MemEX event vocabulary (``vocabulary``: every event
type and payload is built there) and reading the persistent log (``log``).
"""
