// Delete everything in the graph (test isolation on engines without
// per-test graphs; never exposed over the API).
MATCH (n)
DETACH DELETE n
