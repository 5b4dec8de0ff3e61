// The read grant on an event: the caller may read every scope it tells about
// (an edge event names both ends' scopes). Included as @readable_event(e).
// The inner list names the scope for the reason given in readable.cypher.
// @params readable
// @shape node
MATCH (node:Event)
WHERE /*<shape>*/all(event_scope IN node.scopes
  WHERE any(read_prefix IN CASE WHEN event_scope IS NULL THEN [] ELSE $readable END
    WHERE event_scope STARTS WITH read_prefix))/*</shape>*/
RETURN node
