"""The event log: the MemEX event vocabulary (``vocabulary``: every event
type and payload is built there), reading the persistent log (``log``) and
the events a command returns, made on first look (``lazy``).
"""
