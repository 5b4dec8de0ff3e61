// Register every label and relationship type memexd's statements name, before
// any command runs. FalkorDB resolves them when it plans a statement: a write
// planned while a type did not exist yet traverses nothing of that type even
// after a statement ahead of it created one, so its guard passes (six racing
// promotions of one item made up to five, the first DISCOVERED_FROM of a
// graph). A node and edges made and deleted here leave the names behind.
// tests/test_tokens.py keeps this list whole.
CREATE (t:Item:Unembedded:PendingItem:Placeholder:EdgeKey:Event:Counter:Intent:Task:Job:Schedule:MemoryArchive:MemoryArchiveChunk:WorkingMemory:Migration)
CREATE (t)-[:PARENT]->(t), (t)-[:RELATED]->(t), (t)-[:SUPPORTS]->(t), (t)-[:CONTRADICTS]->(t),
       (t)-[:ALIAS]->(t), (t)-[:SUPERSEDES]->(t), (t)-[:DISCOVERED_FROM]->(t),
       (t)-[:FOR_INTENT]->(t), (t)-[:IN_INTENT]->(t), (t)-[:IN_TASK]->(t), (t)-[:AWAITS]->(t),
       (t)-[:SUBINTENT_OF]->(t), (t)-[:SUBTASK_OF]->(t), (t)-[:READS]->(t), (t)-[:ROOT]->(t),
       (t)-[:WROTE]->(t)
WITH t
DETACH DELETE t
