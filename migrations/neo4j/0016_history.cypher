// Memory as of an instant (memexd/history/asof.py): the events logged after an
// instant, and the items retracted after it, found by index.
CREATE INDEX event_ts IF NOT EXISTS FOR (n:Event) ON (n.ts);
CREATE INDEX item_retracted_at IF NOT EXISTS FOR (n:Item) ON (n.retracted_at)
