// Position of an event in the log (the cursor for "after").
// @params id
MATCH (e:Event {id: $id})
RETURN e.seq AS seq
