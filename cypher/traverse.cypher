// Breadth-first expansion, up to 16 levels in one round trip; memexd/traversal.py
// drives it window after window. Level k holds the DISTINCT live items one step
// from level k-1, with the steps taken as [from, to] id pairs when $steps asks
// for them (collect drops the nulls otherwise). A level after the
// first that is wider than $wide is not expanded further inside the window, so
// repeated work stays bounded; the caller continues from it. The slots give the
// relationship pattern (type and direction) and a predicate on it.
// Never a [:R*] walk: FalkorDB enumerates paths for those.
// @params ids wide steps readable
UNWIND $ids AS id
MATCH (s:Item {id: id})
WHERE s.retracted = false AND @readable(s)
WITH collect(s) AS l0
CALL {
  WITH l0
  UNWIND l0 AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l1, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e1
}
CALL {
  WITH l1
  UNWIND CASE WHEN size(l1) > $wide THEN [] ELSE l1 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l2, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e2
}
CALL {
  WITH l2
  UNWIND CASE WHEN size(l2) > $wide THEN [] ELSE l2 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l3, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e3
}
CALL {
  WITH l3
  UNWIND CASE WHEN size(l3) > $wide THEN [] ELSE l3 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l4, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e4
}
CALL {
  WITH l4
  UNWIND CASE WHEN size(l4) > $wide THEN [] ELSE l4 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l5, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e5
}
CALL {
  WITH l5
  UNWIND CASE WHEN size(l5) > $wide THEN [] ELSE l5 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l6, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e6
}
CALL {
  WITH l6
  UNWIND CASE WHEN size(l6) > $wide THEN [] ELSE l6 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l7, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e7
}
CALL {
  WITH l7
  UNWIND CASE WHEN size(l7) > $wide THEN [] ELSE l7 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l8, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e8
}
CALL {
  WITH l8
  UNWIND CASE WHEN size(l8) > $wide THEN [] ELSE l8 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l9, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e9
}
CALL {
  WITH l9
  UNWIND CASE WHEN size(l9) > $wide THEN [] ELSE l9 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l10, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e10
}
CALL {
  WITH l10
  UNWIND CASE WHEN size(l10) > $wide THEN [] ELSE l10 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l11, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e11
}
CALL {
  WITH l11
  UNWIND CASE WHEN size(l11) > $wide THEN [] ELSE l11 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l12, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e12
}
CALL {
  WITH l12
  UNWIND CASE WHEN size(l12) > $wide THEN [] ELSE l12 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l13, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e13
}
CALL {
  WITH l13
  UNWIND CASE WHEN size(l13) > $wide THEN [] ELSE l13 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l14, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e14
}
CALL {
  WITH l14
  UNWIND CASE WHEN size(l14) > $wide THEN [] ELSE l14 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l15, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e15
}
CALL {
  WITH l15
  UNWIND CASE WHEN size(l15) > $wide THEN [] ELSE l15 END AS x
  MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
  WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
  RETURN collect(DISTINCT y) AS l16, collect(CASE WHEN $steps THEN [x.id, y.id] END) AS e16
}
RETURN
  [n IN l0 | n.id] AS starts,
  [n IN l1 | n.id] AS l1,
  [n IN l2 | n.id] AS l2,
  [n IN l3 | n.id] AS l3,
  [n IN l4 | n.id] AS l4,
  [n IN l5 | n.id] AS l5,
  [n IN l6 | n.id] AS l6,
  [n IN l7 | n.id] AS l7,
  [n IN l8 | n.id] AS l8,
  [n IN l9 | n.id] AS l9,
  [n IN l10 | n.id] AS l10,
  [n IN l11 | n.id] AS l11,
  [n IN l12 | n.id] AS l12,
  [n IN l13 | n.id] AS l13,
  [n IN l14 | n.id] AS l14,
  [n IN l15 | n.id] AS l15,
  [n IN l16 | n.id] AS l16,
  e1, e2, e3, e4, e5, e6, e7, e8,
  e9, e10, e11, e12, e13, e14, e15, e16
