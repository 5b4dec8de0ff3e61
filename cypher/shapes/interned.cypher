// A string value many nodes share (a kind, a scope's root), stored once
// where the engine can: FalkorDB's intern() keeps one copy per distinct
// string (cypher/falkordb/shapes/interned.cypher), about 10 bytes less per
// node and property (docs/filters.md, "Indexes"); other engines store it as
// it is.
// @shape value
WITH 'value' AS value
RETURN /*<shape>*/value/*</shape>*/ AS interned
