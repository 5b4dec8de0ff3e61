// The event log position counter, bumped inside every write that logs events.
MERGE (c:Counter {name: 'event'})
ON CREATE SET c.value = 0
