// Item counts, aggregated in the database over the live items the caller can
// read: one row per (dimension, key) with its count and where the key first
// appears in insertion order (MemEX lists keys in the order it meets them).
// Dimensions: kind, source_kind, author, scope, and parents (with / root:
// an item created without a parents list is a root).
// @params readable
MATCH (n:Item)
WHERE n.retracted = false AND @readable(n)
UNWIND [['kind', n.kind], ['source_kind', n.source_kind], ['author', n.author],
        ['scope', n.scope],
        ['parents', CASE WHEN size(coalesce(n.parents, [])) > 0 THEN 'with' ELSE 'root' END]]
  AS pair
RETURN pair[0] AS dim, pair[1] AS key, count(*) AS count, min(coalesce(n.seq, 0)) AS first
