// Log retention (docs/events.md, "Retention"): the next items, in log order
// after a position, whose memory.created event is a node of its own (they
// changed since). Run by the operator's command, for no caller.
// @params after limit
MATCH (c:Event)
WHERE c.seq > $after AND c.type = 'memory.created'
WITH c
ORDER BY c.seq
LIMIT $limit
RETURN c.seq AS seq, c.subject AS id
