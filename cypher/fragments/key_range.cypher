// Filter predicate (memexd/history/asof.py): the item's id key is in
// [$lo, $hi), a window of ids.
// @params lo hi
MATCH (n:Item) WHERE /*<pred>*/(n.id_key >= $lo AND n.id_key < $hi)/*</pred>*/ RETURN n
