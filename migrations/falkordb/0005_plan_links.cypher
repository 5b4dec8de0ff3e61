// Intents and tasks are found by their links: sub-intents and subtasks by
// parent_id, an intent's tasks by intent_id.
CREATE INDEX FOR (n:Intent) ON (n.parent_id);
CREATE INDEX FOR (n:Task) ON (n.parent_id);
CREATE INDEX FOR (n:Task) ON (n.intent_id)
