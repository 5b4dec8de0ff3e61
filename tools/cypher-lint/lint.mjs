#!/usr/bin/env node
// Lint memexd's Cypher files with Neo4j's own parser and semantic analysis
// (npm @neo4j-cypher/language-support, pinned in package.json).
//
//   node tools/cypher-lint/lint.mjs [--json] PATH ...
//
// Each PATH is a .cypher file or a folder searched for them. Query files use
// includes (@item(n), …) that memexd expands when it loads them, so lint the
// composed text: `python -m memexd.graph.cypher OUT` writes it to OUT (the
// test suite does this and lints OUT and migrations/).
// Each file may declare its parameters on a `// @params a b c` line (the same
// line memexd.graph.cypher reads); exactly those are declared to the linter,
// so any other `$param` is an error. Files may hold several `;`-separated
// statements (migrations); the linter splits and checks each one.
// Exit status: 0 clean (warnings allowed), 1 any error, 2 usage / crash.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { lintCypherQuery } from '@neo4j-cypher/language-support';

const SEVERITY_ERROR = 1;
const SEVERITY_WARNING = 2;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// Same rule as memexd/graph/cypher.py: the first `// @params ...` line wins.
const PARAMS_LINE = /^\/\/\s*@params\b(.*)$/m;

function cypherFilesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  const found = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...cypherFilesUnder(full));
    else if (entry.isFile() && entry.name.endsWith('.cypher')) found.push(full);
  }
  return found;
}

function displayPath(file) {
  const rel = path.relative(REPO_ROOT, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

function declaredParameters(text) {
  const match = PARAMS_LINE.exec(text);
  const names = match ? match[1].trim().split(/\s+/).filter(Boolean) : [];
  return Object.fromEntries(names.map((name) => [name, null]));
}

function lintFile(file) {
  const text = readFileSync(file, 'utf8');
  // Console commands (`:param`, `:use`) are a Browser/cypher-shell feature,
  // not Cypher the drivers can send, so they are not accepted here.
  const { diagnostics } = lintCypherQuery(
    text,
    { parameters: declaredParameters(text) },
    { consoleCommandsEnabled: false },
  );
  return diagnostics.map((d) => ({
    file: displayPath(file),
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    severity: d.severity === SEVERITY_ERROR ? 'error' : 'warning',
    message: d.message.replace(/\s+/g, ' ').trim(),
  }));
}

function main(argv) {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const unknown = args.filter((a) => a.startsWith('-'));
  if (unknown.length > 0 || args.length === 0) {
    if (unknown.length > 0) process.stderr.write(`unknown option(s): ${unknown.join(' ')}\n`);
    process.stderr.write('usage: node lint.mjs [--json] PATH ...\n');
    return 2;
  }
  const files = args.flatMap((a) => {
    const full = path.resolve(a);
    return full.endsWith('.cypher') ? [full] : cypherFilesUnder(full);
  }).sort();

  const errors = [];
  const warnings = [];
  for (const file of files) {
    let found;
    try {
      found = lintFile(file);
    } catch (err) {
      found = [{
        file: displayPath(file), line: 1, column: 1, severity: 'error',
        message: `cannot lint: ${err.message}`,
      }];
    }
    for (const d of found) (d.severity === 'error' ? errors : warnings).push(d);
  }

  if (json) {
    process.stdout.write(`${JSON.stringify({ files: files.length, errors, warnings })}\n`);
  } else {
    for (const d of [...errors, ...warnings].sort((a, b) =>
      a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column)) {
      process.stdout.write(`${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}\n`);
    }
    process.stdout.write(
      `cypher-lint: ${files.length} file(s), ${errors.length} error(s), ` +
      `${warnings.length} warning(s)\n`,
    );
  }
  return errors.length > 0 ? 1 : 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`cypher-lint crashed: ${err.stack ?? err}\n`);
  process.exitCode = 2;
}
