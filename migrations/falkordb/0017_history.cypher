// Memory as of an instant (memexd/history/asof.py): the events logged after an
// instant, and the items retracted after it, found by index.
CREATE INDEX FOR (n:Event) ON (n.ts);
CREATE INDEX FOR (n:Item) ON (n.retracted_at)
