// A whole authoring session with the official TypeScript MCP client: it
// spawns `RPA_BIN serve --stdio --authoring --flows FLOWS`, plays the agent
// on the demo app (open, snapshot, fill the username as a param and the
// password as a secret, sign in, choose a region as a param, query, read
// the table as rows), saves the flow, waits for tools/list_changed and
// runs the new tool on a fresh profile with another region. It prints a
// JSON report on stdout; authoring_test.go asserts on it.
//
// Environment: RPA_BIN, FLOWS, SITE, USERNAME, PASSWORD (see client.mjs).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const env = process.env;
const report = { steps: [] };

function text(res) {
  return (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

function ref(snapshot, pattern) {
  const m = new RegExp(pattern + "[^\\n]*\\[ref=([a-z0-9]+)\\]").exec(snapshot);
  if (!m) throw new Error("no line matching " + pattern + " in:\n" + snapshot);
  return m[1];
}

async function main() {
  const client = new Client({ name: "rpa-e2e-author", version: "1.0.0" });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
  await client.connect(new StdioClientTransport({
    command: env.RPA_BIN,
    args: ["serve", "--stdio", "--authoring", "--flows", env.FLOWS],
    env: { ...process.env },
    stderr: "ignore",
  }));
  const call = async (name, args) => {
    const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
    if (res.isError) throw new Error(name + ": " + text(res));
    report.steps.push(name);
    return text(res);
  };
  report.tools = (await client.listTools()).tools.map((t) => t.name).sort();

  await call("browser_open", { url: env.SITE + "/login" });
  let snap = await call("browser_snapshot", {});
  await call("browser_fill", { ref: ref(snap, 'textbox "Username'), value: env.USERNAME, param: "username" });
  const pw = await call("browser_fill", { ref: ref(snap, 'textbox "Password'), value: env.PASSWORD, secret: true });
  report.passwordEchoed = pw.includes(env.PASSWORD);
  await call("browser_click", { ref: ref(snap, 'button "Sign in') });
  await call("browser_wait", { url: "/query" });
  snap = await call("browser_snapshot", {});
  await call("browser_select", { ref: ref(snap, 'combobox "Region'), option: "110000", param: "region" });
  await call("browser_click", { ref: ref(snap, 'button "Query') });
  await call("browser_wait", { text: "kWh" });
  snap = await call("browser_snapshot", {});
  report.snapshotChars = snap.length;
  await call("browser_read", { ref: ref(snap, "- table"), action: "table", as: "rows" });
  const before = listChanged;
  const saved = await client.callTool({ name: "flow_save", arguments: { name: "ts_rows", description: "Read a region's rows" } });
  report.saveIsError = !!saved.isError;
  report.flowText = saved.structuredContent ? saved.structuredContent.text : text(saved);
  for (let i = 0; i < 100 && listChanged === before; i++) await new Promise((r) => setTimeout(r, 100));
  report.listChanged = listChanged > before;
  report.toolsAfter = (await client.listTools()).tools.map((t) => t.name).sort();
  const run = await client.callTool({
    name: "workflow_ts_rows",
    arguments: { username: env.USERNAME, password: env.PASSWORD, region: "330100", base_url: env.SITE, profileId: "fresh" },
  }, undefined, { timeout: 120000 });
  const result = run.structuredContent || JSON.parse(text(run));
  report.runSuccess = !!result.success;
  report.regions = [...new Set(((result.outputs || {}).rows || []).map((r) => r.region))];
  await client.close();
}

main().then(
  () => { process.stdout.write(JSON.stringify(report)); },
  (e) => { report.fatal = String(e && e.stack || e); process.stdout.write(JSON.stringify(report)); process.exitCode = 1; },
);
