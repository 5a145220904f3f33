// MCP tasks (protocol 2025-11-25, experimental) with the official TypeScript
// client (@modelcontextprotocol/sdk: client.experimental.tasks,
// callToolStream) against `rpa serve --http` started with two tokens.
// Driven by tasks_test.go; prints one JSON report on stdout.
//
// env: URL, TOKEN_A, TOKEN_B (two callers), SITE (the demo app, answering
// its query after 8 s), VSITE (serves verify.html), USERNAME, PASSWORD.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema, TaskStatusNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const env = process.env;
const report = {};

async function connect(token, name, onElicit) {
  const client = new Client({ name, version: "1.0.0" }, { capabilities: onElicit ? { elicitation: {} } : {} });
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, onElicit);
  // notifications/tasks/status arrive on the session's GET stream.
  client.notes = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => client.notes.push(`${n.params.taskId} ${n.params.status}`));
  const transport = new StreamableHTTPClientTransport(new URL(env.URL), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  await client.listTools(); // the client learns which tools may run as tasks
  client.end = async () => { await transport.terminateSession().catch(() => {}); await client.close(); };
  return client;
}

// stream runs callToolStream to its end and returns what it yielded.
async function stream(client, params, options) {
  const out = { statuses: [], messages: [] };
  for await (const m of client.experimental.tasks.callToolStream(params, undefined, options)) {
    if (m.type === "taskCreated") out.taskId = m.task.taskId, out.created = m.task;
    if (m.type === "taskStatus") {
      out.statuses.push(m.task.status);
      if (m.task.statusMessage) out.messages.push(m.task.statusMessage);
    }
    if (m.type === "result") out.result = m.result;
    if (m.type === "error") out.error = { code: m.error.code, message: m.error.message };
  }
  return out;
}

async function errorOf(p) {
  try {
    await p;
    return null;
  } catch (e) {
    return { code: e.code ?? null, message: String(e.message ?? e) };
  }
}

const demoArgs = { username: env.USERNAME, password: env.PASSWORD, region: "110000", base_url: env.SITE };
const clients = [];
try {
  const a = await connect(env.TOKEN_A, "rpa-e2e-tasks-a");
  clients.push(a);
  report.capabilities = a.getServerCapabilities()?.tasks ?? null;

  // 1. The query takes 8 s at the server; every request of the client times
  // out after 2 s. As a task it completes all the same.
  const slow = await stream(a, { name: "workflow_query_power_data", arguments: demoArgs }, { timeout: 2000 });
  // The status notification is sent when the task ends; give it a moment to arrive.
  for (let i = 0; i < 50 && !a.notes.some((n) => n === `${slow.taskId} completed`); i++) await new Promise((r) => setTimeout(r, 100));
  report.slow = {
    taskId: slow.taskId, statuses: slow.statuses, messages: slow.messages.slice(0, 20), error: slow.error ?? null,
    count: slow.result?.structuredContent?.outputs?.count ?? slow.result?.structuredContent?.count ?? null,
    rows: slow.result?.structuredContent?.outputs?.rows?.length ?? null,
    runId: slow.result?.structuredContent?.runId ?? null,
    relatedTask: slow.result?._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? null,
    isError: slow.result?.isError ?? null,
    notified: a.notes.filter((n) => n.startsWith(slow.taskId + " ")).map((n) => n.split(" ")[1]),
  };
  // The same call without a task times out after 2 s (the complaint tasks answer).
  report.plainTimeout = await errorOf(a.callTool({ name: "workflow_query_power_data", arguments: { ...demoArgs, profileId: "plain" } }, undefined, { timeout: 2000 }));

  // 2. The session ends (DELETE); a new session (a new transport) with the
  // same token fetches the task by id (a task, like a run, passes from its
  // session to its token when the session ends).
  await a.end();
  const a2 = await connect(env.TOKEN_A, "rpa-e2e-tasks-a2");
  clients.push(a2);
  const again = await a2.experimental.tasks.getTask(slow.taskId);
  const payload = await a2.experimental.tasks.getTaskResult(slow.taskId, CallToolResultSchema);
  report.refetch = { status: again.status, rows: payload?.structuredContent?.outputs?.rows?.length ?? null };
  report.listed = (await a2.experimental.tasks.listTasks()).tasks.map((t) => t.taskId).includes(slow.taskId);

  // 3. Another token sees nothing of it.
  const b = await connect(env.TOKEN_B, "rpa-e2e-tasks-b");
  clients.push(b);
  report.otherGet = await errorOf(b.experimental.tasks.getTask(slow.taskId));
  report.otherResult = await errorOf(b.experimental.tasks.getTaskResult(slow.taskId, CallToolResultSchema));
  report.otherCancel = await errorOf(b.experimental.tasks.cancelTask(slow.taskId));
  report.otherList = (await b.experimental.tasks.listTasks()).tasks.length;

  // 4. Two questions: input_required twice (seen by polling tasks/get beside
  // the stream), answered through elicitation tied to the task.
  const asked = [];
  const v = await connect(env.TOKEN_A, "rpa-e2e-tasks-v", async (req) => {
    const msg = req.params.message;
    asked.push({ msg, task: req.params._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? null });
    const m = /they read: (\w+)/.exec(msg);
    // A person takes a moment: long enough for a poll to see input_required.
    await new Promise((r) => setTimeout(r, 2000));
    if (msg.startsWith("Captcha") && m) return { action: "accept", content: { answer: m[1] } };
    if (msg.startsWith("SMS code")) return { action: "accept", content: { answer: "482913" } };
    return { action: "decline" };
  });
  clients.push(v);
  const seen = [], pollErrors = [];
  let watching = true, watchId = null;
  const watcher = (async () => {
    while (watching) {
      if (watchId) {
        const t = await v.experimental.tasks.getTask(watchId).catch((e) => { pollErrors.push(String(e?.message ?? e)); return null; });
        const s = t && (t.status === "input_required" ? `${t.status}: ${t.statusMessage}` : t.status);
        if (s && seen[seen.length - 1] !== s) seen.push(s);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const verifyParams = { name: "workflow_verify", arguments: { base_url: env.VSITE, profileId: "verify" } };
  const vs = (async () => {
    const out = { statuses: [] };
    for await (const m of v.experimental.tasks.callToolStream(verifyParams, undefined, { timeout: 120000 })) {
      if (m.type === "taskCreated") watchId = out.taskId = m.task.taskId;
      if (m.type === "result") out.result = m.result;
      if (m.type === "error") out.error = { code: m.error.code, message: m.error.message };
    }
    return out;
  })();
  const verified = await vs;
  watching = false;
  await watcher;
  report.verify = {
    taskId: verified.taskId, error: verified.error ?? null, seen, pollErrors: pollErrors.slice(0, 5),
    outputs: verified.result?.structuredContent?.outputs ?? null, asked,
  };

  // 5. Cancel mid-run frees the profile: the next call on it starts at once.
  let cancelId = null;
  const cancelled = (async () => {
    const out = { statuses: [] };
    for await (const m of a2.experimental.tasks.callToolStream({ name: "workflow_query_power_data", arguments: { ...demoArgs, profileId: "shared" } }, undefined, { timeout: 2000 })) {
      if (m.type === "taskCreated") cancelId = out.taskId = m.task.taskId;
      if (m.type === "taskStatus") out.statuses.push(m.task.status);
      if (m.type === "error") out.error = { message: m.error.message };
      if (m.type === "result") out.result = true;
      // Cancel while the run waits for the page's data (8 s).
      if (m.type === "taskStatus" && /table "#data-table"/.test(m.task.statusMessage ?? "") && !out.cancelAck) {
        const ack = await a2.experimental.tasks.cancelTask(cancelId);
        out.cancelAck = ack.status;
      }
    }
    return out;
  })();
  const c = await cancelled;
  const after = await a2.experimental.tasks.getTask(cancelId);
  const nextRead = await a2.callTool({ name: "browser_read", arguments: { action: "url", profileId: "shared" } }, undefined, { timeout: 20000 });
  report.cancel = {
    taskId: c.taskId, ack: c.cancelAck ?? null, status: after.status, streamError: c.error?.message ?? null,
    nextOk: !nextRead.isError, nextText: nextRead.content?.[0]?.text ?? null,
    again: await errorOf(a2.experimental.tasks.cancelTask(cancelId)),
  };
  report.unknown = await errorOf(a2.experimental.tasks.getTask("20261201T125300123-a1b2." + "0".repeat(32)));
} catch (e) {
  report.fatal = String(e?.stack ?? e);
} finally {
  for (const c of clients) await c.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + "\n");
