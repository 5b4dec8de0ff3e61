"""Intents (goals) and tasks (units of work for an intent), as in MemEX.

``spec`` declares both kinds: fields, statuses and the lifecycle tables;
``records`` checks input and maps records to graph properties and MemEX
JSON; ``commands`` creates, updates and moves them through their lifecycle
(each change and its event in one statement, compare-and-set on a version);
``reads`` answers by id, by filter and by link. Both carry a ``scope`` so the
caller's grants apply to them as to memory items.
"""
