// Exact transport of a number: FalkorDB prints doubles with 15 significant
// digits, so a stored double travels as whole numbers, which print exactly.
// - Most scores (in [2^-10, 1]) as one integer, value·2^62: cheap, and exact
//   because such a double has no bits below 2^-62.
// - Any other non-zero number as [hi, lo, e], with value =
//   (hi·2^27 + lo)·2^(e-52) (hi and lo whole numbers under 2^27, signed like
//   the value). exact_x is |value|, scaled into normal range when tiny
//   (exactly: a power of 2); exact_e its binary exponent (log may be off by
//   one near a power of 2: hi and lo still hold it exactly).
// - Zero as [0, zero, 0] (its sign kept), null as null.
// FalkorDB evaluates every branch of a CASE, so the costly form sits in a
// filtered comprehension, computed only for the numbers that need it.
// Included as @exact(expr); memexd.graph.numbers rebuilds the value.
// @shape value
UNWIND [0.5] AS value
RETURN /*<shape>*/coalesce(
  CASE WHEN value >= 0.0009765625 AND value <= 1.0 THEN toInteger(value * 4611686018427387904.0) END,
  [exact_v IN [value] WHERE exact_v <> 0 AND NOT (exact_v >= 0.0009765625 AND exact_v <= 1.0) |
    [exact_x IN [abs(exact_v) * CASE WHEN abs(exact_v) < 1.0e-280 THEN 2.0 ^ 600 ELSE 1.0 END] |
      [exact_e IN [floor(log(exact_x) / log(2.0))] |
        [toInteger(sign(exact_v)) * toInteger(floor(exact_x / 2.0 ^ (exact_e - 52.0) / 134217728.0)),
         sign(exact_v) * (exact_x / 2.0 ^ (exact_e - 52.0)
           - floor(exact_x / 2.0 ^ (exact_e - 52.0) / 134217728.0) * 134217728.0),
         toInteger(exact_e) - CASE WHEN abs(exact_v) < 1.0e-280 THEN 600 ELSE 0 END]][0]][0]][0],
  CASE WHEN value = 0 THEN [0, value, 0] END)/*</shape>*/ AS exact
