// Cost floor: a lower bound of an item's cost under the cost model, so the
// database can leave out candidates that cannot fit the budget left. UNIT is
// 1 and META_FIELD the flattened meta value (not a number: null, let through
// for the service to refuse). The content length is JSON.stringify's, which
// differs from the stored text only where a float is integral ("2.0" is "2",
// "-0.0" is "0"): at most 3 characters per ".0" in the text.
// @params cost_model cost_key
MATCH (n:Item)
RETURN /*<value>*/CASE $cost_model WHEN 'UNIT' THEN 1
  WHEN 'META_FIELD' THEN n[$cost_key]
  WHEN 'CONTENT_TOKENS'
    THEN ceil(toFloat(size(n.content) - 3 * (size(split(n.content, '.0')) - 1)) / 4.0)
  ELSE size(n.content) - 3 * (size(split(n.content, '.0')) - 1) END/*</value>*/ AS cost
