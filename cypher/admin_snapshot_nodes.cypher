// Every node with its labels and properties (tests prove "unchanged" with it).
MATCH (n)
RETURN labels(n) AS labels, properties(n) AS props
