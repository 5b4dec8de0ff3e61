// Filter predicate: the item is not archived (every read leaves archived
// items out unless the filter says includeArchived: memexd/memory/archive.py).
// @params
MATCH (n:Item) WHERE /*<pred>*/n.archived IS NULL/*</pred>*/ RETURN n
