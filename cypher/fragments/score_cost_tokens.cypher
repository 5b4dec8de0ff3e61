// Cost floor under CONTENT_TOKENS: the CONTENT_CHARS floor / 4, rounded up.
MATCH (n:Item)
RETURN /*<value>*/ceil(toFloat(size(n.content) - 3 * (size(split(n.content, '.0')) - 1))
  / 4.0)/*</value>*/ AS cost
