// The undo of a trace, when there was one (memexd/history/undo.py).
// @params trace
MATCH (u:Undo {trace: $trace})
RETURN u.by AS by, u.at AS at
LIMIT 1
