"""The integrity questions, answered by linear graph walks: provenance and
dependents (``provenance``), identity (``aliases``), conflicts
(``contradictions``) and cascade retraction (``cascade``); ``traversal`` is
the breadth-first walk they all use.
"""
