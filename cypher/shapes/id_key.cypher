// An item's id key: the first 13 hex digits of its id (52 bits, exact in the
// doubles FalkorDB's indexes hold) as an integer. It sorts as the ids do, and
// a range of keys is a range of ids: memexd/history/windows.py walks items in
// id order a window of keys at a time, because FalkorDB's index answers string
// ranges only roughly (its upper bound takes in a whole subtree) and cannot
// give nodes in order, while numeric ranges are exact. memexd.ids.id_key says
// the same in Python (tests/test_as_of.py checks they agree).
// @shape id
WITH '00000000-0000-0000-0000-000000000000' AS id
RETURN /*<shape>*/reduce(key = 0, at IN range(0, 12) |
  key * 16 + size(split('0123456789abcdef', substring(replace(toLower(id), '-', ''), at, 1))[0]))/*</shape>*/ AS key
