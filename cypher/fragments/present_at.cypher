// Filter predicate (memexd/history/asof.py): among items whose record has not
// changed since the instant $value, those there at it: a node that keeps its
// memory.created (not logged) carries that event's time; one whose event is
// a node was created before any later change.
// @params value
MATCH (n:Item) WHERE /*<pred>*/(n.logged = true OR coalesce(n.logged_at, n.created_at) <= $value)/*</pred>*/ RETURN n
