// Filter predicate: the meta path exists (as a scalar or as JSON).
// @params scalar json
MATCH (n:Item) WHERE /*<pred>*/(n[$scalar] IS NOT NULL OR n[$json] IS NOT NULL)/*</pred>*/ RETURN n
