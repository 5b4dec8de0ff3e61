// The write grant for items about to be created, before they are nodes:
// whether the caller may write in `scope` (its scope starts with one of the
// caller's write prefixes; the graph fills $writable). item_create checks
// each row's scope with it. The list names the scope for the reason given
// in readable.cypher.
// @params writable
// @shape scope
WITH 'scope' AS scope
RETURN /*<shape>*/any(write_prefix IN CASE WHEN scope IS NULL THEN [] ELSE $writable END
  WHERE scope STARTS WITH write_prefix)/*</shape>*/ AS writable
