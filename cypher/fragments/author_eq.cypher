// Filter predicate: exact author.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.author = $value/*</pred>*/ RETURN n
