// A retracted item keeps its memory.retracted event (docs/events.md,
// "Storage"): the log reads those events by position, and a cursor finds
// one by its id. Only retracted items hold either property, so the indexes
// cost the others nothing (measured: 0 bytes per item).
CREATE INDEX item_retracted_seq IF NOT EXISTS FOR (n:Item) ON (n.retracted_seq);
CREATE INDEX item_retracted_event IF NOT EXISTS FOR (n:Item) ON (n.retracted_event);
