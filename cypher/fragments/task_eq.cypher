// Filter predicate: produced by this task.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.task_id = $value/*</pred>*/ RETURN n
