// A backend agent using `rpa gateway` with the official TypeScript MCP client
// (@modelcontextprotocol/sdk). Driven by gateway/ts_test.go; also the tested
// form of the TypeScript example in docs/gateway.md.
//
// env: GATEWAY_URL (http://HOST:PORT/mcp), GATEWAY_TOKEN, CALLS (JSON list of
// {name, arguments}). Prints one JSON object: the tools (with the deviceId enum
// when several desktops offer one) and each call's text, isError, progress
// messages, or JSON-RPC error {code, message}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const transport = new StreamableHTTPClientTransport(new URL(process.env.GATEWAY_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.GATEWAY_TOKEN}` } },
});
const client = new Client({ name: "ts-agent", version: "0.0.0" }, { capabilities: { elicitation: {} } });
// Questions a desktop asks during our calls (hitl_prompt, the `ask` action) come here.
client.setRequestHandler(ElicitRequestSchema, async (req) => ({
  action: "accept",
  content: { name: "ts-agent" },
}));
await client.connect(transport);

const out = { tools: [], calls: [] };
const { tools } = await client.listTools();
out.tools = tools
  .map((t) => ({ name: t.name, deviceIdEnum: t.inputSchema?.properties?.deviceId?.enum ?? null }))
  .sort((a, b) => a.name.localeCompare(b.name));

for (const c of JSON.parse(process.env.CALLS ?? "[]")) {
  const progress = [];
  try {
    const r = await client.callTool({ name: c.name, arguments: c.arguments }, undefined, {
      onprogress: (p) => progress.push(p.message ?? String(p.progress)),
    });
    out.calls.push({
      name: c.name,
      text: r.content.map((x) => x.text ?? "").join(""),
      isError: !!r.isError,
      progress,
    });
  } catch (e) {
    out.calls.push({ name: c.name, error: { code: e.code, message: e.message } });
  }
}
console.log(JSON.stringify(out));
await client.close();
