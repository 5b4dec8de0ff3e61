// Exact transport of a score: FalkorDB prints doubles with 15 significant
// digits, so `score` (>= 0) travels as [hi, lo, e] with score =
// (hi·2^27 + lo)·2^(e-52), each part printed exactly. x is the score, scaled
// into normal range when tiny (exactly: a power of 2); e its binary exponent
// (log may be off by one near a power of 2: hi and lo still hold it exactly).
MATCH (n:Item)
WITH n.authority AS score
RETURN /*<value>*/CASE WHEN score = 0.0 THEN [0, 0.0, 0] ELSE
  [x IN [score * CASE WHEN score < 1.0e-280 THEN 2.0 ^ 600 ELSE 1.0 END] |
    [e IN [floor(log(x) / log(2.0))] |
      [toInteger(floor(x / 2.0 ^ (e - 52.0) / 134217728.0)),
       x / 2.0 ^ (e - 52.0) - floor(x / 2.0 ^ (e - 52.0) / 134217728.0) * 134217728.0,
       toInteger(e) - CASE WHEN score < 1.0e-280 THEN 600 ELSE 0 END]][0]][0] END/*</value>*/ AS exact
