// Readable items' decay scores at $now with $half_life (shapes/decay_score),
// by id, in exact form: the decayScore field's loader.
// @params ids now half_life readable
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE @readable(n)
WITH n, @decay_score(n, $now, $half_life) AS score
RETURN n.id AS id, @exact(score) AS score
