// Which of some items, given as maps of the properties their nodes had at an
// instant ($states, memexd/history/asof.py), a compiled filter matches: the
// filter's fragments read properties, so they read a map as a node.
// @params states
UNWIND $states AS state
WITH state {.*, scope_root: @scope_root(state.scope)} AS n
WHERE (/*<filter>*/true/*</filter>*/)
RETURN n.id AS id
ORDER BY id
