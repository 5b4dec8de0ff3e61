// Items matching a compiled filter, sorted and paged in the database.
// @params include_retracted offset limit readable
MATCH (n:Item)
WHERE ($include_retracted OR n.retracted = false) AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n
ORDER BY /*<order>*/n.id/*</order>*/
SKIP $offset
LIMIT $limit
RETURN @item(n) AS item
