// A conformance client for `git scribe mcp` built on the official
// TypeScript SDK (@modelcontextprotocol/sdk). TestMCPTypeScriptClient
// installs the SDK next to this file and runs one step per process:
//
//   node ts_client.mjs STEP
//
// with REPO (the repository), OTHER (another repository) and RULE in the
// environment. It prints one JSON object on stdout.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const step = process.argv[2];
const { REPO, OTHER, RULE } = process.env;
const sdkVersion = JSON.parse(readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url))).version;

function server() {
  return new StdioClientTransport({ command: "git", args: ["scribe", "mcp"], cwd: REPO, env: process.env, stderr: "inherit" });
}

// connect starts a client; answer is the person's action for every
// elicitation ("accept", "decline", "cancel"), or null for a client without
// the elicitation capability.
async function connect(answer, shown) {
  const client = new Client({ name: "scribe-ts-conformance", version: "0" },
    { capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      shown.push(req.params.message);
      return answer === "accept" ? { action: "accept", content: {} } : { action: answer };
    });
  }
  await client.connect(server());
  return client;
}

async function call(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (e) {
    return { protocolError: String(e) };
  }
}

const out = { sdkVersion, latestProtocol: LATEST_PROTOCOL_VERSION, step };
const shown = [];
switch (step) {
  case "inject": {
    const c = await connect("accept", shown);
    out.serverVersion = c.getServerVersion();
    out.tools = (await c.listTools()).tools.map((t) => ({ name: t.name, annotations: t.annotations }));
    out.results = [
      await call(c, "progress_done", { items: ["-C", OTHER, "Paging"] }),
      await call(c, "rule_propose", { rule: "--help", confirmed: true }),
      await call(c, "journal_tail", { n: -3 }),
    ];
    await c.close();
    break;
  }
  case "accept":
  case "decline":
  case "none": {
    const c = await connect(step === "none" ? null : step, shown);
    out.results = [await call(c, "rule_propose", { rule: RULE })];
    await c.close();
    break;
  }
  case "bridge": {
    const c = await connect(null, shown);
    out.results = [await call(c, "bridge_read", {}), await call(c, "status", {}), await call(c, "progress_list", {})];
    await c.close();
    break;
  }
  case "eof": {
    // The SDK's stdio transport, without its Client: the initialize
    // handshake, ten tools/call, then stdin ends at once — the server must
    // answer all ten before it exits.
    const t = server();
    const answers = new Map();
    t.onmessage = (m) => { if (m.id !== undefined) answers.set(m.id, m); };
    await t.start();
    const proc = t._process; // the transport forgets it once it exits
    const closed = new Promise((resolve) => proc.once("close", resolve));
    await t.send({ jsonrpc: "2.0", id: 0, method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "eof", version: "0" } } });
    await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (let i = 1; i <= 10; i++) {
      const params = i === 5 ? { name: "progress_done", arguments: { items: ["Paging"] } } : { name: "progress_list", arguments: {} };
      await t.send({ jsonrpc: "2.0", id: i, method: "tools/call", params });
    }
    proc.stdin.end(); // close stdin only (the SDK offers no public way)
    await Promise.race([closed, new Promise((r) => setTimeout(r, 20000).unref())]);
    out.answered = [...answers.keys()].filter((id) => id >= 1 && id <= 10 && answers.get(id).result).length;
    out.exitCode = proc.exitCode;
    break;
  }
  default:
    throw new Error("unknown step " + step);
}
out.shown = shown;
process.stdout.write(JSON.stringify(out) + "\n");
