// The ids of the items whose id key is in [$lo, $hi) (memexd/history/asof.py
// takes each back to an instant, under the grants on the scope it had then).
// @params lo hi
MATCH (n:Item)
WHERE n.id_key >= $lo AND n.id_key < $hi
RETURN n.id AS id
