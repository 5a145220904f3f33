// Drives `rpa serve` with the official TypeScript MCP client and prints a
// JSON report of what it saw on stdout; e2e_test.go asserts on it.
//
// Environment:
//   MODE      "stdio" (spawn RPA_BIN serve --stdio --flows FLOWS) or "http" (connect to URL)
//   RPA_BIN   the rpa binary (stdio)
//   FLOWS     the flows folder (stdio)
//   URL       the Streamable HTTP endpoint (http)
//   TOKEN     the bearer token (http)
//   SITE      base URL of the demo app (internal/demoapp) the flows drive
//   USERNAME, PASSWORD  the demo app's credentials
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const env = process.env;
const report = { mode: env.MODE };

function transport(token) {
  if (env.MODE === "stdio") {
    return new StdioClientTransport({
      command: env.RPA_BIN,
      args: ["serve", "--stdio", "--flows", env.FLOWS],
      env: { ...process.env },
      stderr: "ignore",
    });
  }
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return new StreamableHTTPClientTransport(new URL(env.URL), { requestInit: { headers } });
}

async function codeOf(promise) {
  try {
    await promise;
    return 0;
  } catch (e) {
    return e.code ?? String(e);
  }
}

async function main() {
  if (env.MODE === "http") {
    // Without the token the server answers 401 and connect fails.
    const c = new Client({ name: "rpa-e2e-notoken", version: "1.0.0" });
    try {
      await c.connect(transport(""));
      report.noTokenConnected = true;
      await c.close();
    } catch (e) {
      report.noTokenConnected = false;
      report.noTokenError = String(e.message ?? e);
    }
  }

  const client = new Client({ name: "rpa-e2e", version: "1.0.0" });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
  await client.connect(transport(env.TOKEN));
  report.server = client.getServerVersion();

  const { tools } = await client.listTools();
  report.tools = tools.map((t) => t.name).sort();
  const demo = tools.find((t) => t.name === "workflow_query_power_data");
  report.demoRequired = demo?.inputSchema?.required;
  report.demoPasswordFormat = demo?.inputSchema?.properties?.password?.format;
  report.demoHasOutputSchema = !!demo?.outputSchema;

  // The TypeScript client validates structuredContent against the
  // outputSchema itself: a mismatch would throw here.
  const progress = [];
  const res = await client.callTool(
    {
      name: "workflow_query_power_data",
      arguments: { base_url: env.SITE, username: env.USERNAME, password: env.PASSWORD },
    },
    undefined,
    { onprogress: (p) => progress.push(p.message), timeout: 60000 },
  );
  report.callIsError = !!res.isError;
  report.callSuccess = res.structuredContent?.success;
  report.callCount = res.structuredContent?.outputs?.count;
  report.callText = res.content?.[0]?.text ?? "";
  report.progress = progress;

  const table = await client.callTool({ name: "browser_read", arguments: { action: "table", selector: "#data-table" } });
  report.table = JSON.parse(table.content[0].text);

  const failed = await client.callTool({ name: "workflow_fails", arguments: { base_url: env.SITE } });
  report.failedIsError = !!failed.isError;
  report.failedCode = failed.structuredContent?.error?.code;

  report.unknownToolCode = await codeOf(client.callTool({ name: "workflow_nope", arguments: {} }));
  report.badArgsCode = await codeOf(client.callTool({ name: "workflow_query_power_data", arguments: { base_url: env.SITE } }));
  report.listChanged = listChanged;
  await client.close();
}

main()
  .then(() => {
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(0);
  })
  .catch((e) => {
    report.fatal = String(e?.stack ?? e);
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(1);
  });
