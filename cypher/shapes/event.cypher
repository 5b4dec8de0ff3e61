// The event projection, as the log is read. Included as @event(e).
// @shape node
MATCH (node:Event)
RETURN /*<shape>*/node {.id, .namespace, .type, .ts, .trace_id, .cause_id, .payload,
  .author, .reason, .scope, .subject}/*</shape>*/ AS event
