// Cost under META_FIELD: the flattened meta value at $cost_key. Not a number
// (absent, text, a boolean): the comparison with the cap is null and the row
// is let through, for the service to refuse the request.
// @params cost_key
MATCH (n:Item)
RETURN /*<value>*/n[$cost_key]/*</value>*/ AS cost
