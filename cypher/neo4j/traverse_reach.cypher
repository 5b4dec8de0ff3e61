// Neo4j only: a whole walk in one statement (memexd/integrity/traversal.py).
// A variable-length pattern whose ends are only wanted DISTINCT is planned as
// a pruning breadth-first search (VarLengthExpand(Pruning,BFS)): each item is
// reached once, at its shortest depth, so the cost is linear in what is
// reached (a 2^40-path lattice is 80 items), and the ends come out level by
// level, so LIMIT $cap keeps the nearest ones and stops the search there.
// The predicate on every item of a path (live, readable) is checked as the
// search goes: a walk never passes through an item it may not see.
// The slots give the path pattern (type, direction and the most levels), a
// predicate on its relationships, and the one-step pattern and predicate.
// Depths come from the steps: every step from a start or a reached item to a
// live readable item, as two lists (froms[i] -> tos[i]; flat lists read back
// several times faster than a list of pairs). A breadth-first pass over them
// from the starts gives each reached item its depth: its shortest path runs
// through reached items only.
// @params ids cap readable
UNWIND $ids AS id
MATCH (s:Item {id: id})
WHERE s.retracted = false AND @readable(s)
WITH collect(s) AS starts
CALL {
  WITH starts
  UNWIND starts AS s
  MATCH p = (s)/*<path>*/-[:PARENT*1..10001]->/*</path>*/(e:Item)
  WHERE all(y IN nodes(p) WHERE y.retracted = false AND @readable(y))
    AND /*<rels>*/true/*</rels>*/
  WITH DISTINCT e
  LIMIT $cap
  RETURN collect(e) AS ends
}
CALL {
  WITH starts, ends
  UNWIND starts + ends AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(x.id) AS froms, collect(y.id) AS tos
}
RETURN [n IN starts | n.id] AS starts, [n IN ends | n.id] AS ends, froms, tos
