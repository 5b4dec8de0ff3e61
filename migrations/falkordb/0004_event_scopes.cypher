// Every event names the scopes it tells about (`scopes`): readers see an
// event only if they can read them all. Memory events tell about their
// item's scope; edge events about both ends of the edge.
MATCH (e:Event)
WHERE e.scopes IS NULL AND e.namespace <> 'edge'
SET e.scopes = [e.scope];
MATCH (e:Event)
WHERE e.scopes IS NULL AND e.namespace = 'edge'
OPTIONAL MATCH (k:EdgeKey {edge_id: e.subject})
OPTIONAL MATCH (a:Item {id: k.from_id})
OPTIONAL MATCH (b:Item {id: k.to_id})
SET e.scopes = [coalesce(a.scope, e.scope), coalesce(b.scope, e.scope)]
