// Neo4j carries doubles exactly over Bolt, so a number travels as itself
// (memexd.graph.numbers takes a float as it is; toFloat, as a score written
// as a whole number must not read as the shared form's integer). The shared form costs Neo4j
// half again the time of an item read (2,500 items: 130 ms against 70 ms).
// @shape value
UNWIND [0.5] AS value
RETURN /*<shape>*/toFloat(value)/*</shape>*/ AS exact
