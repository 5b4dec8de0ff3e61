// The archives the caller may see (@job_visible: it can read every scope
// the archive reaches), under $prefix when given, newest first.
// @params prefix ids limit readable
MATCH (a:MemoryArchive)
WHERE ($prefix IS NULL OR coalesce(a.scope_prefix, '') STARTS WITH $prefix)
  AND ($ids IS NULL OR a.id IN $ids) AND @job_visible(a)
RETURN a {.id, .scope_prefix, .from, .to, .entry_count, .bytes, .compressed, .created_at,
  .reach, .job_id} AS archive
ORDER BY a.created_at DESC, a.id DESC
LIMIT $limit
