// Vendor GraphiQL's browser assets into memexd, so /graphql works without internet.
//
// Refresh the files in memexd/server/static/graphiql/ (from the repository root):
//
//     npm ci --prefix tools/vendor-graphiql && node tools/vendor-graphiql/vendor.mjs
//
// To move to other versions, change the exact pins in tools/vendor-graphiql/package.json,
// run `npm install --prefix tools/vendor-graphiql` (updates package-lock.json), then run
// the two commands above and commit package.json, package-lock.json and the static folder.
// graphql and graphql-ws are not copied: they are pinned so that npm installs them and
// their licences (both are bundled inside graphiql.min.js) reach THIRD-PARTY-NOTICES.txt.
//
// The script uses only Node's standard library. It empties the output folder, then writes:
//   - the minified browser bundles listed in ASSETS below, byte for byte as published;
//   - LICENSE.<package>.txt, the licence of each package an asset comes from;
//   - THIRD-PARTY-NOTICES.txt, the licences of the packages those bundles may contain
//     (the runtime dependency closure found in node_modules: an over-approximation);
//   - VERSIONS.txt, one line per asset: file, package@version, licence file, sha256.
// memexd.server.graphiql builds the page that loads these files and serves the folder;
// tests/test_graphiql.py checks the folder against VERSIONS.txt.
// The copying itself is the exported `vendor(bundle)`, which tools/vendor-explorer reuses
// with its own bundle description.

import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");

// package -> [file inside the package, name in the output folder]
const ASSETS = {
  react: [["umd/react.production.min.js", "react.production.min.js"]],
  "react-dom": [["umd/react-dom.production.min.js", "react-dom.production.min.js"]],
  graphiql: [
    ["graphiql.min.js", "graphiql.min.js"],
    ["graphiql.min.css", "graphiql.min.css"],
  ],
  "@graphiql/plugin-explorer": [
    ["dist/index.umd.js", "graphiql-plugin-explorer.umd.js"],
    ["dist/style.css", "graphiql-plugin-explorer.css"],
  ],
};

// Packages that publish no licence text: whose licence file stands in for theirs, and why.
const LICENCE_FALLBACK = {
  "@graphiql/plugin-explorer": [
    "graphiql",
    "ships no licence file. Its package.json declares MIT, and it is developed in the\n" +
      "graphql/graphiql repository together with graphiql, whose MIT licence follows.",
  ],
};

const GRAPHIQL = {
  here: HERE,
  out: join(ROOT, "memexd", "server", "static", "graphiql"),
  assets: ASSETS,
  licenceFallback: LICENCE_FALLBACK,
  intro:
    "Third-party notices for the vendored GraphiQL bundles in this folder.\n\n" +
    "graphiql.min.js and graphiql-plugin-explorer.umd.js are bundles: besides their own\n" +
    "package (see the LICENSE.*.txt files) they contain code from their dependencies.\n" +
    "Below are the licences of every package in their runtime dependency closure as\n" +
    "installed by tools/vendor-graphiql (some may not end up in a bundle).\n",
};

const LICENCE_FILE = /^(licen[cs]e|copying)([.-].*)?$/i;

function fail(message) {
  console.error(`vendor.mjs: ${message}`);
  process.exit(1);
}

function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** The folder of `name` as Node would resolve it from `fromDir` (inside `here`), or null. */
function findPackage(here, name, fromDir) {
  for (let dir = fromDir; dir.startsWith(here); dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === here) break;
  }
  return null;
}

function packageDir(here, name) {
  const dir = findPackage(here, name, here);
  if (!dir)
    fail(`${name} is not installed; run: npm ci --prefix ${relative(process.cwd(), here) || "."}`);
  return dir;
}

function licenceText(dir) {
  const files = readdirSync(dir)
    .filter((f) => LICENCE_FILE.test(f))
    .sort();
  return files.map((f) => readFileSync(join(dir, f), "utf8").trim()).join("\n\n") || null;
}

function licenceSlug(name) {
  return name.replace(/^@/, "").replace(/\//g, "-");
}

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

function rule(title) {
  return `${"=".repeat(78)}\n${title}\n${"=".repeat(78)}\n`;
}

/** Runtime dependency closure of the asset packages (name@version -> [dir, manifest]),
 * less those provided as separate files or types only. */
function bundledPackages({ here, assets, extraLicences = [] }) {
  const notBundled = (name) => name in assets || name.startsWith("@types/");
  const seen = new Map();
  for (const name of extraLicences) {
    const dir = packageDir(here, name);
    const manifest = readJson(join(dir, "package.json"));
    seen.set(`${manifest.name}@${manifest.version}`, [dir, manifest]);
  }
  const queue = [...Object.keys(assets), ...extraLicences].map((name) => packageDir(here, name));
  while (queue.length) {
    const dir = queue.shift();
    const manifest = readJson(join(dir, "package.json"));
    const wanted = {
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
      ...manifest.peerDependencies,
    };
    for (const name of Object.keys(wanted).sort()) {
      if (notBundled(name)) continue;
      const found = findPackage(here, name, dir);
      if (!found) continue; // an optional or peer dependency that is not installed
      const dep = readJson(join(found, "package.json"));
      const key = `${dep.name}@${dep.version}`;
      if (seen.has(key)) continue;
      seen.set(key, [found, dep]);
      queue.push(found);
    }
  }
  return new Map([...seen].sort(([a], [b]) => a.localeCompare(b)));
}

/** Copy `bundle.assets` into `bundle.out` with licences, notices and VERSIONS.txt.
 * `extraLicences`: packages bundled inside an asset but not declared as its dependencies. */
export function vendor(bundle) {
  const { here, out, assets, licenceFallback = {}, intro, extraLicences = [] } = bundle;
  const OUT = out;
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  const rows = [];
  for (const [name, files] of Object.entries(assets)) {
    const dir = packageDir(here, name);
    const { version } = readJson(join(dir, "package.json"));
    const licenceName = `LICENSE.${licenceSlug(name)}.txt`;
    let text = licenceText(dir);
    if (!text) {
      const fallback = licenceFallback[name];
      if (!fallback) fail(`${name}@${version} ships no licence file and has no fallback`);
      const [other, why] = fallback;
      const otherDir = packageDir(here, other);
      const otherVersion = readJson(join(otherDir, "package.json")).version;
      const copied = `(Copied from ${other}@${otherVersion}.)`;
      text = `${name}@${version}\n${why}\n${copied}\n\n${licenceText(otherDir)}`;
    }
    writeFileSync(join(OUT, licenceName), `${text}\n`);
    for (const [source, target] of files) {
      const from = join(dir, source);
      if (!existsSync(from)) fail(`${name}@${version} has no ${source}`);
      copyFileSync(from, join(OUT, target));
      rows.push([target, `${name}@${version}`, licenceName, sha256(join(OUT, target))]);
    }
  }

  const notices = [intro];
  for (const [key, [dir, manifest]] of bundledPackages({ here, assets, extraLicences })) {
    const text = licenceText(dir);
    const declared = manifest.license ?? "(no licence declared)";
    const author = typeof manifest.author === "object" ? manifest.author.name : manifest.author;
    const repo =
      typeof manifest.repository === "object" ? manifest.repository.url : manifest.repository;
    const about = [`License: ${declared}`];
    if (author) about.push(`Author: ${author}`);
    if (repo) about.push(`Repository: ${repo}`);
    const body = text ?? "(The package publishes no licence text; see its declared licence above.)";
    notices.push(`${rule(key)}${about.join("\n")}\n\n${body}\n`);
  }
  writeFileSync(join(OUT, "THIRD-PARTY-NOTICES.txt"), notices.join("\n"));

  const width = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
  const pad = (row) => row.map((cell, i) => (i < 3 ? cell.padEnd(width[i]) : cell)).join("  ");
  const versions = [
    `# Written by ${relative(ROOT, join(here, "vendor.mjs"))}; do not edit by hand.`,
    "# Licences of code bundled inside these files: THIRD-PARTY-NOTICES.txt",
    "# Columns: file, package@version, licence file, sha256 of the file.",
    ...rows.map(pad),
  ];
  writeFileSync(join(OUT, "VERSIONS.txt"), `${versions.join("\n")}\n`);

  for (const file of readdirSync(OUT).sort()) {
    const size = readFileSync(join(OUT, file)).length;
    console.log(`${String(size).padStart(9)}  ${relative(ROOT, join(OUT, file))}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  vendor(GRAPHIQL);
}
