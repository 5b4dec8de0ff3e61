// The node keys_register made, gone; the names stay registered.
MATCH (k:MemexdKeys)
DELETE k
RETURN count(*) AS gone
