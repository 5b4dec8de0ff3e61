// Vendor the graph explorer's browser libraries into memexd, so /explore works offline.
//
// Refresh the files in memexd/server/static/explorer/vendor/ (from the repository root):
//
//     npm ci --prefix tools/vendor-explorer && node tools/vendor-explorer/vendor.mjs
//
// To move to other versions, change the exact pins in package.json, run
// `npm install --prefix tools/vendor-explorer` (updates package-lock.json), then the two
// commands above, and commit package.json, package-lock.json and the vendor folder.
// cytoscape-dagre's bundle contains @dagrejs/dagre (and its graphlib) without declaring
// them: dagre is pinned to the version the bundle was built with, so that its licence
// and its dependencies' reach THIRD-PARTY-NOTICES.txt.
// The copying is tools/vendor-graphiql's `vendor`: the same files come out (the bundles
// byte for byte, LICENSE.*.txt, THIRD-PARTY-NOTICES.txt, VERSIONS.txt with sha256 sums);
// tests/test_explorer_assets.py checks the folder against VERSIONS.txt.

import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { vendor } from "../vendor-graphiql/vendor.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");

vendor({
  here: HERE,
  out: join(ROOT, "memexd", "server", "static", "explorer", "vendor"),
  assets: {
    cytoscape: [["dist/cytoscape.min.js", "cytoscape.min.js"]],
    "cytoscape-dagre": [["dist/cytoscape-dagre.min.js", "cytoscape-dagre.min.js"]],
  },
  extraLicences: ["@dagrejs/dagre"],
  intro:
    "Third-party notices for the explorer's vendored libraries in this folder.\n\n" +
    "cytoscape-dagre.min.js is a bundle: besides cytoscape-dagre (see its LICENSE file)\n" +
    "it contains @dagrejs/dagre and its dependencies. Below are the licences of those\n" +
    "packages and of cytoscape's runtime dependencies, as installed by\n" +
    "tools/vendor-explorer (some may not end up in a bundle).\n",
});
