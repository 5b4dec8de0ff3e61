// FalkorDB: one shared copy of the string (see cypher/shapes/interned.cypher).
// @shape value
WITH 'value' AS value
RETURN /*<shape>*/intern(value)/*</shape>*/ AS interned
