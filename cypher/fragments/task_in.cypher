// Filter predicate: produced by one of these tasks.
// @params values
MATCH (n:Item) WHERE /*<pred>*/n.task_id IN $values/*</pred>*/ RETURN n
