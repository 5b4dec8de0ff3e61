// How many items have an id key from $lo up to each of $bounds, each count
// stopping at $cap (memexd/history/windows.py picks a window of keys from
// them). Counts only, for sizing: what a window holds is read under grants.
// @params lo bounds cap
UNWIND $bounds AS hi
CALL {
  WITH hi
  MATCH (n:Item)
  WHERE n.id_key >= $lo AND n.id_key < hi
  WITH n
  LIMIT $cap
  RETURN count(n) AS held
}
RETURN hi, held
