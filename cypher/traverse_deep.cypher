// Up to 64 levels in one round trip, for the long thin stretches (chains of
// provenance) where traverse.cypher would need one round trip per 16 levels.
// memexd/integrity/traversal.py tries it from narrow frontiers only, for
// walks that follow every relationship of their type (no predicate on it).
// A [:R*1..64] pattern enumerates paths, so LIMIT stops the enumeration at
// $budget rows (a diamond lattice has 2^k paths): `complete` is false when
// it did, and the caller walks those levels with traverse.cypher instead.
// Every item on a path is the end of a shorter path (its prefix), so checking
// the ends checks every item passed: `complete` is also false when an end is
// retracted or unreadable (a walk stops there; the levelled walk handles it).
// Each path gives [end, length, a, b]: an item's depth is its shortest path,
// and every shortest path within 64 levels is among those enumerated; a and
// b are the start and end nodes of its last relationship, the last step. A
// step from an item within 63 levels is the last step of a path, so the
// paths name every step from what they reach (those from the 64th level are
// the next attempt's). FalkorDB 4.16 lists a path that returns to its start
// backwards (nodes and relationships), so such a path (loops) makes the
// attempt incomplete, and the caller checks that each step leads to its end.
// A walk that does not want the steps empties the step slot ([end, length]):
// they cost a third of the attempt.
// `starts` are the live readable ones among $ids; a start without paths is a
// row too, so it counts against the budget.
// @params ids budget readable
UNWIND $ids AS id
MATCH (s:Item {id: id})
WHERE s.retracted = false AND @readable(s)
OPTIONAL MATCH p = (s)/*<pattern>*/-[:PARENT*1..64]->/*</pattern>*/(e:Item)
WITH s, p, e
LIMIT $budget
WITH
  collect(DISTINCT s.id) AS starts,
  count(*) AS rows,
  collect([e.id, length(p)/*<step>*/, startNode(last(relationships(p))).id,
           endNode(last(relationships(p))).id/*</step>*/]) AS ends,
  count(CASE WHEN e.retracted = false AND @readable(e) THEN null ELSE e END) AS blocked,
  count(CASE WHEN e = s AND length(p) > 1 THEN 1 END) AS loops
RETURN rows < $budget AND blocked = 0 AND loops = 0 AS complete, starts, ends
