// Every property name memexd's statements use, named once by one replicated
// write before migrations run (memexd/graph/keys.py says why).
// @params keys
CREATE (k:MemexdKeys)
SET k += $keys
RETURN count(k) AS made
