// The cursor after a scan's page (shapes/scan_match): its last id, or null
// when the page was not full. ($scan_end: FalkorDB's, unused here.)
// @params limit
// @shape page
WITH [] AS page
RETURN /*<shape>*/CASE WHEN size(page) < $limit THEN null
  ELSE page[size(page) - 1].id END/*</shape>*/ AS next
