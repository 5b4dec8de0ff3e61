// Versions of the migrations already applied to this graph.
MATCH (m:Migration)
RETURN m.version AS version
