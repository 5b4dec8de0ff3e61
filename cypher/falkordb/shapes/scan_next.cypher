// The cursor after FalkorDB's scan page: the next range of node ids, or null
// past $scan_end, the highest node id when the scan began (job_scan_start):
// nodes created since are newer items, left to the next run.
// @params after limit scan_end
// @shape page
WITH [] AS page
RETURN /*<shape>*/CASE WHEN $after + $limit > $scan_end THEN null
  ELSE $after + $limit END/*</shape>*/ AS next
