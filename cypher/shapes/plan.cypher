// The projection of an intent or task record: its properties, and
// `exact_priority`, its priority to the last digit (shapes/exact).
// Included as @plan(x) wherever a query returns intents or tasks.
// @shape node
MATCH (node:Intent)
RETURN /*<shape>*/node {.*, exact_priority: @exact(node.priority)}/*</shape>*/ AS record
