// Whether the caller may see a job: it can read every scope the job reaches
// (its scope prefix, or the write prefixes of whoever queued it). The list
// names the node for the reason given in readable.cypher.
// @params readable
// @shape node
MATCH (node:Job)
WHERE /*<shape>*/all(reached IN node.reach WHERE any(read_prefix IN
  CASE WHEN node IS NULL THEN [] ELSE $readable END WHERE reached STARTS WITH read_prefix))/*</shape>*/
RETURN node
