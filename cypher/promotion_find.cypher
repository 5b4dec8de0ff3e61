// The live promotions of items (SPEC §11): for each source id, the live item
// that holds a live DISCOVERED_FROM edge to it, with the edge (a promoted item the
// caller cannot read is not returned: promoting again then fails on the
// write's guard, which the caller sees as a conflict).
// @params ids readable
MATCH (s:Item)<-[r:DISCOVERED_FROM]-(p:Item)
WHERE s.id IN $ids AND r.retracted = false AND p.retracted = false AND @readable(s)
  AND @readable(p)
RETURN s.id AS source, @item(p) AS item, @edge(r, p, s) AS edge
