// The write grant on a scope: whether the caller may write items in `scope`
// (it starts with one of the caller's write prefixes; the graph fills
// $writable). @writable(n) is this on n.scope; item_create checks each row's
// scope with it before the rows are nodes. The list names the scope for the
// reason given in readable.cypher.
// @params writable
// @shape scope
WITH 'scope' AS scope
RETURN /*<shape>*/any(write_prefix IN CASE WHEN scope IS NULL THEN [] ELSE $writable END
  WHERE scope STARTS WITH write_prefix)/*</shape>*/ AS writable
