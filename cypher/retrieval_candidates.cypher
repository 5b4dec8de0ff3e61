// Which of the given ids are candidates of a smart retrieval (the caller's
// live items matching the filter), with their exact score and the readable
// live items superseding each (a candidate superseded is left out).
// @params ids readable wa wc wi now rate interval
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n, /*<score>*/n.authority/*</score>*/ AS score
OPTIONAL MATCH (n)<-[s:SUPERSEDES]-(w:Item)
WHERE s.active = true AND s.retracted = false AND w.retracted = false AND @readable(w)
RETURN n.id AS id, @exact(score) AS exact,
  collect(w.id) AS superseded_by
