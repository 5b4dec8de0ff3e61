// Score without decay: MemEX's weighted sum of the trust scores, in its
// order (a missing conviction or importance counts 0), so scores and their
// ties are exactly memex-python's. The score slot of the retrieval
// statements; score_exponential, score_linear and score_step add decay.
// @params wa wc wi
MATCH (n:Item)
RETURN /*<value>*/($wa * n.authority + $wc * coalesce(n.conviction, 0.0)
  + $wi * coalesce(n.importance, 0.0))/*</value>*/ AS score
