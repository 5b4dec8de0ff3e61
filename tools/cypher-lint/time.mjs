#!/usr/bin/env node
// Time Neo4j's own front-end (parse + semantic analysis) on Cypher texts.
//
//   node tools/cypher-lint/time.mjs TEXTS.json
//
// TEXTS.json is a JSON list of {"label", "text"}; prints one JSON line per
// text with the median milliseconds of five runs and the error count. Used by
// bench/filter_nesting.py to see how the engines' parsers cope with nesting.

import { readFileSync } from 'node:fs';
import process from 'node:process';

import { lintCypherQuery } from '@neo4j-cypher/language-support';

const texts = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const { label, text } of texts) {
  const runs = [];
  let errors = 0;
  for (let i = 0; i < 5; i += 1) {
    const started = process.hrtime.bigint();
    const { diagnostics } = lintCypherQuery(text, {}, { consoleCommandsEnabled: false });
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
    errors = diagnostics.filter((d) => d.severity === 1).length;
  }
  runs.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ label, ms: runs[2], errors })}\n`);
}
