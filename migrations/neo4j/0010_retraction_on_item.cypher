// A retracted item keeps its memory.retracted event (docs/events.md,
// "Storage"): the log reads those events by position, and a cursor finds
// one by its id. Only retracted items hold either property, so the indexes
// cost the others nothing (measured: 0 bytes per item). The events logged
// before, nodes of their own, move onto their items (their record was the
// item's already), so every memory.retracted event is kept one way; running
// it again changes nothing.
CREATE INDEX item_retracted_seq IF NOT EXISTS FOR (n:Item) ON (n.retracted_seq);
CREATE INDEX item_retracted_event IF NOT EXISTS FOR (n:Item) ON (n.retracted_event);
MATCH (e:Event {type: 'memory.retracted'})
WITH e, e.subject AS id
MATCH (n:Item {id: id})
SET n += {retracted_event: e.id, retracted_seq: e.seq, retracted_at: e.ts,
          retracted_by: e.author, retracted_reason: e.reason, retracted_trace: e.trace_id,
          retracted_cause: e.cause_id}
DELETE e
