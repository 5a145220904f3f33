// Reference check: replays a Chrome Recorder file with @puppeteer/replay
// against the pages of ../pages, served on a local port, and prints the
// events the pages reported (GET /event?k=v) as JSON lines to stdout.
//
//   NODE_PATH=/path/to/node_modules node replay.mjs RECORDING.json
//
// Needs @puppeteer/replay and puppeteer-core (npm install, with
// PUPPETEER_SKIP_DOWNLOAD=1): the browser is /usr/bin/chromium, never a
// downloaded one. The recordings name http://site.test; it is rewritten to
// the local server, as the Go tests do with the flows' base_url param.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(process.env.NODE_PATH || process.cwd(), 'x.js'));
const { createRunner, PuppeteerRunnerExtension, parse } = require('@puppeteer/replay');
const puppeteer = require('puppeteer-core');

const here = path.dirname(fileURLToPath(import.meta.url));
const pages = path.join(here, '..', 'pages');
const events = [];
const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  if (u.pathname === '/event') {
    for (const [k, v] of u.searchParams) events.push(`${k}=${v}`);
    res.end('ok');
    return;
  }
  const f = path.join(pages, path.normalize(u.pathname));
  if (!f.startsWith(pages) || !fs.existsSync(f)) { res.statusCode = 404; res.end(); return; }
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(fs.readFileSync(f));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const text = fs.readFileSync(process.argv[2], 'utf8').replaceAll('http://site.test', base);
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: 'new',
  userDataDir: fs.mkdtempSync('/tmp/replayref-profile-'),
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let code = 0;
try {
  const page = await browser.newPage();
  class Ext extends PuppeteerRunnerExtension {
    async beforeEachStep(step, flow) { if (process.env.REPLAY_DEBUG) console.error('step', step.type, JSON.stringify(step.selectors || step.url || '')); await super.beforeEachStep?.(step, flow); }
  }
  const runner = await createRunner(parse(JSON.parse(text)), new Ext(browser, page, { timeout: 10000 }));
  await runner.run();
  await new Promise((r) => setTimeout(r, 300));
} catch (e) {
  console.error('replay failed:', e.message);
  code = 1;
} finally {
  await browser.close();
  server.close();
}
for (const e of events) console.log(e);
process.exit(code);
