// Neo4j only: every write statement starts with this unit subquery
// (memexd/graph/neo4j.py). It takes the write lock of the event log's
// counter, held to commit, so writes run one at a time as on FalkorDB and
// what a statement reads after it is the latest committed state (Neo4j's
// reads take no locks). Setting an absent property to null takes the lock
// and changes nothing; removing one takes no lock.
// @params
CALL () {
  MERGE (lock:Counter {name: 'event'})
  ON CREATE SET lock.value = 0
  SET lock.locked = null
}
