// Record one applied migration.
// @params version name applied_at
MERGE (m:Migration {version: $version})
SET m.name = $name, m.applied_at = $applied_at
