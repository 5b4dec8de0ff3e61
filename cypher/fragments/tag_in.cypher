// Filter predicate: the item carries tag $value (FalkorDB's index on the
// list serves it; migration 0013).
// @params value
MATCH (n:Item) WHERE /*<pred>*/$value IN n.tags/*</pred>*/ RETURN n
