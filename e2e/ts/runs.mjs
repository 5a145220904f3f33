// Reads a run's resources with the official TypeScript MCP client: calls a
// flow that fails, then reads rpa://runs/{runId} and its report. Prints a
// JSON report on stdout; runs_test.go asserts on it.
//
// Environment: RPA_BIN, FLOWS, SITE (as client.mjs).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const env = process.env;
const report = {};

async function main() {
  const client = new Client({ name: "rpa-e2e-runs", version: "1.0.0" });
  await client.connect(new StdioClientTransport({
    command: env.RPA_BIN,
    args: ["serve", "--stdio", "--flows", env.FLOWS],
    env: { ...process.env },
    stderr: "ignore",
  }));
  const res = await client.callTool({ name: "workflow_fails", arguments: { base_url: env.SITE } });
  report.isError = res.isError === true;
  report.runId = res.structuredContent?.runId ?? "";
  report.failureLine = res.structuredContent?.failure?.line ?? 0;
  report.failureKind = res.structuredContent?.failure?.kind ?? "";
  report.contentTypes = res.content.map((c) => c.type);

  const rec = await client.readResource({ uri: `rpa://runs/${report.runId}` });
  const run = JSON.parse(rec.contents[0].text);
  report.runStatus = run.status;
  report.runClient = run.caller?.client ?? "";
  report.runSteps = run.steps.length;

  const html = await client.readResource({ uri: `rpa://runs/${report.runId}/report.html` });
  report.reportMime = html.contents[0].mimeType;
  report.reportHasTimeline = html.contents[0].text.includes('id="timeline"');

  const list = await client.listResources();
  report.listed = list.resources.some((r) => r.uri === `rpa://runs/${report.runId}`);
  const templates = await client.listResourceTemplates();
  report.templates = templates.resourceTemplates.map((t) => t.uriTemplate);
  await client.close();
}

main()
  .catch((e) => { report.fatal = String(e?.stack ?? e); })
  .finally(() => { process.stdout.write(JSON.stringify(report)); });
