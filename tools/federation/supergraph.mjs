// A supergraph as users run one: memexd plus a second subgraph ("projects"),
// composed with Apollo's own composition and served by Apollo's gateway on
// Apollo Server. The tests start it and send their queries to the gateway.
//
//   node supergraph.mjs <memexd url> <projects.json>
//
// projects.json: [{"id", "name", "memoryIds", "taskIds", "intentId", "edgeIds"}]
// The projects subgraph references memexd's entities by id (Project.memories
// …) and extends MemoryItem with `projects`, the projects that name the item.
// It prints one JSON line once everything listens:
//   {"gateway": url, "projects": url, "hints": [...]}
// or {"errors": [...]} and exits 1 when composition fails.
import { readFileSync } from "node:fs";
import { composeServices } from "@apollo/composition";
import { ApolloGateway, RemoteGraphQLDataSource } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginInlineTraceDisabled } from "@apollo/server/plugin/disabled";
import { startStandaloneServer } from "@apollo/server/standalone";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { parse } from "graphql";

const [memexdUrl, projectsFile] = process.argv.slice(2);
const projects = JSON.parse(readFileSync(projectsFile, "utf8"));
// The headers the gateway passes on to every subgraph: memexd's credentials
// and its trace id.
const FORWARDED = ["authorization", "x-trace-id"];

const projectsSdl = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.11",
                      import: ["@key"])

  type Project @key(fields: "id") {
    id: ID!
    name: String!
    memories: [MemoryItem]!
    tasks: [Task]!
    intent: Intent
    edges: [Edge]!
  }

  type MemoryItem @key(fields: "id") {
    id: ID!
    projects: [Project!]!
  }

  type Task @key(fields: "id", resolvable: false) { id: ID! }
  type Intent @key(fields: "id", resolvable: false) { id: ID! }
  type Edge @key(fields: "edgeId", resolvable: false) { edgeId: ID! }

  type Query {
    projects: [Project!]!
    project(id: ID!): Project
  }
`;

const ref = (field) => (id) => ({ [field]: id });
const resolvers = {
  Query: {
    projects: () => projects,
    project: (_, { id }) => projects.find((p) => p.id === id) ?? null,
  },
  Project: {
    __resolveReference: ({ id }) => projects.find((p) => p.id === id) ?? null,
    memories: (p) => p.memoryIds.map(ref("id")),
    tasks: (p) => (p.taskIds ?? []).map(ref("id")),
    intent: (p) => (p.intentId ? { id: p.intentId } : null),
    edges: (p) => (p.edgeIds ?? []).map(ref("edgeId")),
  },
  MemoryItem: {
    __resolveReference: ({ id }) => ({ id }),
    projects: ({ id }) => projects.filter((p) => p.memoryIds.includes(id)),
  },
};

async function memexdSdl() {
  const response = await fetch(`${memexdUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...sdlCredentials() },
    body: JSON.stringify({ query: "{ _service { sdl } }" }),
  });
  const body = await response.json();
  if (!body.data) throw new Error(`memexd _service: ${JSON.stringify(body)}`);
  return body.data._service.sdl;
}

function sdlCredentials() {
  const key = process.env.MEMEXD_KEY;
  return key ? { authorization: `Bearer ${key}` } : {};
}

async function main() {
  const projectsServer = new ApolloServer({
    schema: buildSubgraphSchema({ typeDefs: parse(projectsSdl), resolvers }),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url: projectsUrl } = await startStandaloneServer(projectsServer, {
    listen: { port: 0, host: "127.0.0.1" },
  });

  const composed = composeServices([
    { name: "memexd", typeDefs: parse(await memexdSdl()), url: `${memexdUrl}/graphql` },
    { name: "projects", typeDefs: parse(projectsSdl), url: projectsUrl },
  ]);
  if (composed.errors) {
    console.log(JSON.stringify({ errors: composed.errors.map((e) => e.message) }));
    process.exit(1);
  }

  const gateway = new ApolloGateway({
    supergraphSdl: composed.supergraphSdl,
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource({
        url,
        willSendRequest({ request, context }) {
          for (const [name, value] of Object.entries(context.headers ?? {})) {
            request.http.headers.set(name, value);
          }
        },
      }),
  });
  const server = new ApolloServer({ gateway });
  const { url: gatewayUrl } = await startStandaloneServer(server, {
    listen: { port: 0, host: "127.0.0.1" },
    context: async ({ req }) => ({
      headers: Object.fromEntries(
        FORWARDED.filter((h) => req.headers[h]).map((h) => [h, req.headers[h]]),
      ),
    }),
  });
  const hints = composed.hints.map((h) => `${h.definition.code}: ${h.message}`);
  console.log(JSON.stringify({ gateway: gatewayUrl, projects: projectsUrl, hints }));
}

main().catch((error) => {
  console.log(JSON.stringify({ errors: [String(error?.stack ?? error)] }));
  process.exit(1);
});
