// Neo4j only: wait until every index is online (after creating one, which
// Neo4j fills in the background; memexd/graph/neo4j.py), at most 300 s.
// @params
CALL db.awaitIndexes(300)
