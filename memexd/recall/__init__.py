"""Recall by meaning: what do I remember about this?

``model`` is the embedding model (and how content becomes text);
``embedding`` embeds items after they are written, off the request path;
``service`` runs a recall (the vector and full-text sides, under grants and
filters); ``fusion`` ranks and explains its hits. README, "Recall".
"""
