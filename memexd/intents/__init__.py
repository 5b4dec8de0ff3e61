"""Intents (goals) and tasks (units of work for an intent), as in MemEX.

``spec`` declares both kinds: fields, statuses, links and the lifecycle
tables; ``records`` checks input (MemEX's update: replace, null clears) and
maps records to graph properties and MemEX JSON; ``links`` gives the
relationships their id fields are mirrored as; ``commands`` creates, updates
and moves them through their lifecycle (each change, its links and its event
in one statement, compare-and-set on a version); ``reads`` answers by id, by
filter and by link. Both carry a ``scope`` so the caller's grants apply to
them as to memory items.
"""
