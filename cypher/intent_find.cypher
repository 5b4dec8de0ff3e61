// Readable intents matching MemEX's IntentFilter (every condition optional),
// in id order (creation order for UUIDv7 ids).
// @params owner status statuses min_priority memory_id parent_id is_root limit readable
MATCH (n:Intent)
WHERE @readable(n)
  AND ($owner IS NULL OR n.owner = $owner)
  AND ($status IS NULL OR n.status = $status)
  AND ($statuses IS NULL OR n.status IN $statuses)
  AND ($min_priority IS NULL OR n.priority >= $min_priority)
  AND ($memory_id IS NULL OR $memory_id IN coalesce(n.root_memory_ids, []))
  AND ($parent_id IS NULL OR n.parent_id = $parent_id)
  AND ($is_root IS NULL OR (n.parent_id IS NULL) = $is_root)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN @plan(n) AS record
