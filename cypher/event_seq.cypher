// Position of an event in the log (the cursor for "after").
// @params id readable
MATCH (e:Event {id: $id})
WHERE @readable_event(e)
RETURN e.seq AS seq
