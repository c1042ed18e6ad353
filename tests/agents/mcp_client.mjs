// Drive `vcc mcp` over stdio with the official TypeScript SDK
// (@modelcontextprotocol/sdk from npm): a second MCP client that is not
// vcc's own. For each protocol revision the SDK speaks (2025-06-18 and its
// newest, 2025-11-25) a fresh connection lists the tools and calls check
// and lint; the SDK itself validates each structuredContent against the
// tool's outputSchema (a mismatch throws). Prints one JSON object.
//
//     node mcp_client.mjs VCC CONTRACT     (with $MCP_SDK_DIR: the npm install)
import path from "node:path";

const sdk = path.join(process.env.MCP_SDK_DIR, "node_modules/@modelcontextprotocol/sdk/dist/esm");
const { Client } = await import(path.join(sdk, "client/index.js"));
const { StdioClientTransport } = await import(path.join(sdk, "client/stdio.js"));

const [vcc, contract] = process.argv.slice(2);

async function revision(version) {
  const transport = new StdioClientTransport({
    command: vcc,
    args: ["mcp"],
    env: { VCC_CACHE_DIR: process.env.VCC_CACHE_DIR, NO_COLOR: "1", PATH: process.env.PATH },
  });
  // The SDK always proposes its newest revision; an older client is
  // played by proposing `version` in the initialize request.
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === "initialize") message.params.protocolVersion = version;
    return send(message, options);
  };
  let negotiated = null;
  transport.setProtocolVersion = (v) => { negotiated = v; };
  const client = new Client({ name: "vcc-test-ts", version: "0.0.1" });
  await client.connect(transport);
  const tools = await client.listTools();
  const check = await client.callTool({ name: "check", arguments: { contract } });
  const lint = await client.callTool({ name: "lint", arguments: { contract } });
  await client.close();
  return {
    server: client.getServerVersion()?.name,
    negotiated,
    tools: tools.tools.map((t) => t.name).sort(),
    read_only: tools.tools.every((t) => t.annotations?.readOnlyHint === true),
    verdict: check.structuredContent?.verdict,
    failing: check.structuredContent?.failing,
    lint_ok: lint.structuredContent?.ok,
  };
}

const out = {};
for (const version of ["2025-06-18", "2025-11-25"]) out[version] = await revision(version);
console.log(JSON.stringify(out));
