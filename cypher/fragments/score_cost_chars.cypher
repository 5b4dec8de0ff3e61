// Cost floor under CONTENT_CHARS, for leaving out in the database what
// cannot fit the budget left: JSON.stringify's length differs from the
// stored text only where a float is integral ("2.0" is "2", "-0.0" is "0"),
// at most 3 characters per ".0" in the text. (UNIT costs 1: no fragment.)
MATCH (n:Item)
RETURN /*<value>*/size(n.content) - 3 * (size(split(n.content, '.0')) - 1)/*</value>*/ AS cost
