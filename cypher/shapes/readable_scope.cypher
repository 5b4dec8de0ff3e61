// The read grant on a scope: whether the caller may read items in `scope`
// (it starts with one of the caller's read prefixes; the graph fills
// $readable). @readable(n) is this on n.scope; item_as_of checks the scope
// an item had at an instant with it. The list names the scope for the
// reason given in readable.cypher.
// @params readable
// @shape scope
WITH 'scope' AS scope
RETURN /*<shape>*/any(read_prefix IN CASE WHEN scope IS NULL THEN [] ELSE $readable END
  WHERE scope STARTS WITH read_prefix)/*</shape>*/ AS readable
