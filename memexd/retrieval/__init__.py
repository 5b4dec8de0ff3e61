"""Retrieval agents can use: scored, budgeted and smart queries computed in the database.

``spec`` checks what a caller asks for; ``scoring`` is MemEX's score (computed
by the database, explained here); ``cost`` the four cost models; ``stream``
reads candidates best first, a page at a time; ``contradictions`` and
``diversity`` are smartRetrieve's policies; ``budget`` the greedy packing;
``pipeline`` runs them over the stream until the answer is settled;
``explain`` says why a candidate was left out; ``service`` is the entry
point (``Memex.retrieval``). ``docs/retrieval.md`` has the rules.
"""
