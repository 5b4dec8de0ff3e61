// One event per row, at a position reserved by @log_reserve: a batch writes
// its rows and their events in one pass (in FalkorDB about 5 ms per 1,000
// events cheaper than the second pass of the log_events tail, a FOREACH over
// the list indexed per event). The map holds every stored property (scope
// and scopes included: nothing is filled in here).
// Included with the row's event map and its position, e.g. for row i:
// the i-th map of a list parameter and log_base + i + 1.
// @shape logged_event logged_seq
WITH {} AS logged_event, 0 AS logged_seq
/*<shape>*/CREATE (log_e:Event)
SET log_e = logged_event, log_e.seq = logged_seq/*</shape>*/
RETURN log_e
