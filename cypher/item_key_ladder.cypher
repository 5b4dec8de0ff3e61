// How many items have an id key in each slice [$bounds[i], $bounds[i + 1])
// of a ladder of increasing bounds, each count stopping at $cap
// (memexd/history/windows.py picks a window of keys from them; slices apart,
// so a crowd of items costs only the slices it falls in). Counts only, for
// sizing: what a window holds is read under grants.
// @params bounds cap
UNWIND range(0, size($bounds) - 2) AS i
WITH $bounds[i] AS a, $bounds[i + 1] AS b
CALL {
  WITH a, b
  MATCH (n:Item)
  WHERE n.id_key >= a AND n.id_key < b
  WITH n
  LIMIT $cap
  RETURN count(n) AS held
}
RETURN a AS lo, b AS hi, held
