// A flow that asks two questions (captcha, then SMS code), answered by the
// official TypeScript MCP client (@modelcontextprotocol/sdk, protocol
// 2025-11-25: blocking elicitation/create) over stdio. Driven by
// hitl_test.go; prints one JSON report on stdout.
//
// env: RPA_BIN, FLOWS (folder holding verify.flow), SITE (serves verify.html).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const env = process.env;
const report = { asked: [], schemas: [] };
const client = new Client({ name: "rpa-e2e-hitl", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  const msg = req.params.message;
  report.asked.push(msg);
  report.schemas.push(req.params.requestedSchema);
  const m = /they read: (\w+)/.exec(msg);
  if (msg.startsWith("Captcha") && m) return { action: "accept", content: { answer: m[1] } };
  if (msg.startsWith("SMS code")) return { action: "accept", content: { answer: "482913" } };
  return { action: "decline" };
});
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant", model: "stub", content: { type: "text", text: "unused" },
}));
const transport = new StdioClientTransport({
  command: env.RPA_BIN,
  args: ["serve", "--stdio", "--flows", env.FLOWS, "--hitl", "client"],
  env: { ...process.env },
  stderr: "ignore",
});
try {
  await client.connect(transport);
  report.protocolVersion = transport._protocolVersion ?? null;
  const r = await client.callTool({ name: "workflow_verify", arguments: { base_url: env.SITE } }, undefined, { timeout: 90000 });
  report.isError = !!r.isError;
  report.result = r.structuredContent ?? null;
  const d = await client.callTool({ name: "hitl_prompt", arguments: { title: "Anything else?" } });
  report.declined = d.content.map((c) => c.text ?? "").join("");
} catch (e) {
  report.fatal = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + "\n");
