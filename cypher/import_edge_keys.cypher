// Which of the given edge ids are taken, by any edge: live, retracted, or
// between items the caller cannot read (ids are global: creating one would
// answer DUPLICATE_EDGE all the same). Nothing else of the edges is returned.
// @params ids
UNWIND $ids AS id
MATCH (k:EdgeKey {edge_id: id})
RETURN k.edge_id AS edge_id
