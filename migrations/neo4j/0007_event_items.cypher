// Every item or edge event names the items it is about (`item_ids`), for the
// itemIds filter of the event log and the live feed: an item event its item
// (the event's subject), an edge event both ends of the edge (found through
// its EdgeKey, which outlives the edge). Intent and task events are about no
// item. Only events without the list are touched: running it again changes
// nothing.
MATCH (e:Event)
WHERE e.item_ids IS NULL AND e.type STARTS WITH 'memory.' AND e.subject IS NOT NULL
SET e.item_ids = [e.subject];
MATCH (e:Event)
WHERE e.item_ids IS NULL AND e.type STARTS WITH 'edge.' AND e.subject IS NOT NULL
MATCH (k:EdgeKey {edge_id: e.subject})
SET e.item_ids = [k.from_id, k.to_id]
