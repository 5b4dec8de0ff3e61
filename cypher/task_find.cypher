// Readable tasks matching MemEX's TaskFilter (every condition optional), in
// id order (creation order for UUIDv7 ids).
// @params intent_id action status statuses agent_id min_priority input_id output_id parent_id is_root limit readable
MATCH (n:Task)
WHERE @readable(n)
  AND ($intent_id IS NULL OR n.intent_id = $intent_id)
  AND ($action IS NULL OR n.action = $action)
  AND ($status IS NULL OR n.status = $status)
  AND ($statuses IS NULL OR n.status IN $statuses)
  AND ($agent_id IS NULL OR n.agent_id = $agent_id)
  AND ($min_priority IS NULL OR n.priority >= $min_priority)
  AND ($input_id IS NULL OR $input_id IN coalesce(n.input_memory_ids, []))
  AND ($output_id IS NULL OR $output_id IN coalesce(n.output_memory_ids, []))
  AND ($parent_id IS NULL OR n.parent_id = $parent_id)
  AND ($is_root IS NULL OR (n.parent_id IS NULL) = $is_root)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN @plan(n) AS record
