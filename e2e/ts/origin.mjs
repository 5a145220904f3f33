// A TypeScript SDK client that sends a foreign Origin header to `rpa serve
// --http` must be refused (403) even with the right token; the same client
// with a loopback Origin of the server's port connects. Prints a JSON report.
//
// Environment: URL (the Streamable HTTP endpoint), TOKEN (its bearer token).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const env = process.env;
const report = {};

async function attempt(origin) {
  const headers = { Authorization: `Bearer ${env.TOKEN}`, Origin: origin };
  const c = new Client({ name: "rpa-e2e-origin", version: "1.0.0" });
  try {
    await c.connect(new StreamableHTTPClientTransport(new URL(env.URL), { requestInit: { headers } }));
    const { tools } = await c.listTools();
    await c.close();
    return { connected: true, tools: tools.length };
  } catch (e) {
    return { connected: false, error: String(e && e.message ? e.message : e), code: e && e.code };
  }
}

try {
  report.foreign = await attempt("https://evil.example");
  report.loopback = await attempt(new URL(env.URL).origin);
} catch (e) {
  report.fatal = String(e);
}
process.stdout.write(JSON.stringify(report));
