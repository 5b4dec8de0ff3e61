// Every item keeps its id key (the first 13 hex digits of its id as an
// integer), indexed: itemsAsOf walks items in id order a window of keys at a
// time (memexd/history/windows.py). Items written before take theirs here, as
// memexd.ids.id_key computes it, in batches; running it again
// changes nothing.
CREATE INDEX item_id_key IF NOT EXISTS FOR (n:Item) ON (n.id_key);
MATCH (n:Item) WHERE n.id_key IS NULL
WITH n LIMIT 20000
SET n.id_key = reduce(key = 0, at IN range(0, 12) |
  key * 16 + size(split('0123456789abcdef', substring(replace(toLower(n.id), '-', ''), at, 1))[0]))
RETURN count(n) AS changed
