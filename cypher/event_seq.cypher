// Position of an event in the log (the cursor for "after"): an event node,
// the memory.created event of an item as created, whose id derives from
// the item's ($item_id: the item that event would be of), or a
// memory.retracted event its item keeps.
// @params id item_id readable
MATCH (e:Event {id: $id})
WHERE @readable_event(e)
RETURN e.seq AS seq
UNION
MATCH (n:Item {id: $item_id})
WHERE n.logged IS NULL AND @readable(n)
RETURN n.seq AS seq
UNION
MATCH (n:Item {retracted_event: $id})
WHERE @readable(n)
RETURN n.retracted_seq AS seq
