// Which of these ids are taken, by live items or tombstones, whoever owns
// them (ids are global, and a create must say why it failed), and whether
// the caller can read each.
// @params ids readable
MATCH (n:Item)
WHERE n.id IN $ids
RETURN n.id AS id, @readable(n) AS readable
