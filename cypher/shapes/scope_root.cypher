// A scope's root: its first segment, everything before the first '/' (the
// whole scope when it has none). Items keep it as scope_root, indexed, so a
// tenant's prefix ("tenant:t1/") is one index value, not the union of every
// scope under it (memexd/memory/indexed.py, scope_root; docs/filters.md).
// @shape scope
WITH 'a/b' AS scope
RETURN /*<shape>*/@interned(split(scope, '/')[0])/*</shape>*/ AS root
