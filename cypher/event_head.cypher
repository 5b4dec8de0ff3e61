// The log's head: the position of the last event logged (the counter every
// logging statement bumps). Every event up to it is committed, so a reader
// that has read up to the head has missed nothing. No event is read here.
// @params
MATCH (c:Counter {name: 'event'})
RETURN c.value AS head
