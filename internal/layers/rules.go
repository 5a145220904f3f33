package layers

// Rules is rpa's layering: which package may import which, as one rule
// string in the language of Go's go/build/deps_test.go (read by Parse).
//
// "a, b < c, d;" says that c and d may import a and b, and everything a and
// b may import. Rules chain: "a < b < c" is "a < b; b < c". NONE on the left
// means "nothing of ours". An ALL-CAPS name is a layer: "... < RUNS;" ends
// the RUNS layer, whose packages are those named on a right side since the
// previous layer (docs/internals.md's layer table and the README's Layout
// table are checked against this grouping), and naming RUNS on a left side
// lets the right side import all that RUNS may. A name whose first element
// holds a dot is a third-party module (or a package of one): only the
// packages whose own rule names it on its left may import it or its
// subpackages (it is not passed on to what rests on them, so go-rod stays
// in drivers/rod); modules and standard packages not named here may be
// imported anywhere. Names are
// relative to the module path; a package's imports are read from its non-test
// files, for every GOOS.
//
// To add a package: name it once on the right side of a rule in the section
// of its layer, with what it imports on the left (its own layer's packages
// it needs by name, lower layers by their layer name), and add it to the
// layer's row of docs/internals.md (and to a path of the README's Layout table
// if none covers it). `go test ./internal/layers` says what is missing: a
// package in no rule, an import that runs back up, a table out of step. A
// rule may name a package before it exists (this round's planned packages
// are marked so below); the test accepts that only for the names in planned.
const Rules = `
# Third-party modules kept to one room. (Any other module may be imported anywhere.)
NONE
< github.com/go-rod/rod,
  github.com/alecthomas/participle/v2,
  github.com/expr-lang/expr,
  github.com/modelcontextprotocol/go-sdk,
  github.com/nats-io/nats-server/v2,
  github.com/nats-io/nats.go,
  github.com/xuri/excelize/v2;

# BASE: the shared vocabulary (core: error kinds, the host contract) and
# small utilities (testutil: for tests only). They import nothing of ours.
NONE
< core,
  internal/atomicfile,
  internal/buildinfo,
  internal/cliflag,
  internal/columns,
  internal/httpauth,
  internal/msg,
  internal/noprof,
  internal/orderedjson,
  internal/testutil/holder;
github.com/modelcontextprotocol/go-sdk < internal/testutil/rawmcp;
core, internal/atomicfile, internal/buildinfo, internal/cliflag, internal/columns, internal/httpauth, internal/msg,
internal/noprof, internal/orderedjson, internal/testutil/holder, internal/testutil/rawmcp
< BASE;

# LANGUAGE: the flow language, from text to a checked flow. It knows
# nothing of browsers.
NONE < lang/ast, lang/totp;
lang/ast < lang/diag, lang/actions;
github.com/alecthomas/participle/v2 < lang/parse/internal/grammar;
lang/diag, lang/actions, lang/parse/internal/grammar, github.com/alecthomas/participle/v2 < lang/parse;
github.com/expr-lang/expr, lang/diag, lang/actions, lang/totp < lang/check;
lang/check, lang/parse < lang/yamlflow;
lang/yamlflow < lang/format;
internal/atomicfile, lang/format, github.com/expr-lang/expr < lang
< LANGUAGE;

# BROWSER_SEAM: the interfaces a browser implements for the interpreter.
BASE < drivers
< BROWSER_SEAM;

# PAGE_TOOLS: JavaScript run in the page through the seam (roles and
# names, selectors for an element, the accessibility snapshot).
NONE < drivers/a11y;
BROWSER_SEAM, drivers/a11y < drivers/selectorgen;
drivers/selectorgen < drivers/snapshot
< PAGE_TOOLS;

# BROWSERS: the implementations behind the seam. Only the packages that
# start a browser (the wiring of commands) import them.
PAGE_TOOLS, github.com/go-rod/rod < drivers/rod;
BROWSER_SEAM < drivers/fake;
drivers/rod, drivers/fake < BROWSERS;

# RUNNING: the actions and the interpreter. They reach the browser only
# through the seam.
LANGUAGE, BROWSER_SEAM < stdlib;
stdlib, github.com/expr-lang/expr < interp
< RUNNING;

# HOST: what a host gives a run and keeps between runs: rpa's folder and
# whether a process lives (home), the person (hitl), a model (llm),
# commands (execpolicy), browser profiles (their folders, locks, dirty
# markers, orphans, the warm pool), local processes (localctl),
# credentials (vault) and one run per account at a time (lease).
NONE < internal/host/home;
BROWSER_SEAM, internal/host/home, github.com/modelcontextprotocol/go-sdk
< internal/host/localctl,
  internal/host/execpolicy,
  internal/host/llm,
  internal/host/lease;
internal/host/localctl, github.com/modelcontextprotocol/go-sdk < internal/host/hitl;
BROWSER_SEAM, LANGUAGE, internal/host/lease, internal/host/hitl < internal/host/vault;
BROWSER_SEAM, internal/host/vault < internal/host/profiles;
internal/host/home, internal/host/execpolicy, internal/host/hitl, internal/host/llm,
internal/host/profiles, internal/host/lease, internal/host/vault
< HOST;

# RUNS: the run store, reports, failure packets, healing.
BASE < internal/runs < internal/runs/report;
internal/runs, github.com/xuri/excelize/v2 < internal/runs/export;
RUNNING, PAGE_TOOLS, internal/runs < internal/runs/heal;
internal/runs/heal, internal/runs/report < internal/runs/record;
internal/runs/export, internal/runs/record < RUNS;

# CALLS: MCP calls that outlive their request, for both MCP servers of
# rpa (mcpserver and the gateway): both protocol eras over Streamable HTTP
# and calls that go on across a 2026-07-28 client's requests (mrtr); tasks
# in both eras, durable in the run store (tasks; taskstest checks a store).
BASE, lang, github.com/modelcontextprotocol/go-sdk < internal/serve/mrtr;
internal/runs, internal/serve/mrtr, github.com/modelcontextprotocol/go-sdk < internal/serve/tasks;
internal/serve/tasks < internal/serve/tasks/taskstest
< CALLS;

# AUTHORING: flows written from an agent's session, a recording, another
# tool's export.
LANGUAGE, github.com/expr-lang/expr < internal/authoring/importer;
RUNNING, PAGE_TOOLS < internal/authoring;
internal/authoring/importer, PAGE_TOOLS, BROWSERS, internal/host/profiles
< internal/authoring/recorder;
internal/authoring, internal/authoring/recorder < AUTHORING;

# LINK: MCP over a WebSocket between desktops and a backend; the gateway's
# replicas on NATS (cluster; clustertest starts clusters for tests).
BASE, github.com/modelcontextprotocol/go-sdk < internal/link/mcpws;
internal/link/mcpws, github.com/modelcontextprotocol/go-sdk < internal/link/connect;
internal/link/mcpws, github.com/nats-io/nats-server/v2, github.com/nats-io/nats.go < internal/link/cluster;
internal/link/cluster < internal/link/cluster/clustertest;
internal/link/connect, internal/link/cluster, CALLS, github.com/modelcontextprotocol/go-sdk,
github.com/nats-io/nats.go
< internal/link/gateway;
internal/link/gateway, internal/link/cluster/clustertest < LINK;

# SERVING: flows as MCP tools (mcpserver), runs in
# this process (localrun), schedules and their queue (schedule; in a
# gateway cluster, schedule/clustered),
# what serve, connect and the console build (flowserver), publishing.
LANGUAGE < internal/serve/publish;
NONE < internal/serve/mcpserver/internal/testsite;
RUNS, HOST, internal/authoring, CALLS, github.com/modelcontextprotocol/go-sdk
< internal/serve/mcpserver;
RUNS, HOST, BROWSERS < internal/serve/localrun;
internal/serve/mcpserver, internal/serve/localrun < internal/serve/schedule;
internal/serve/schedule, internal/serve/publish, LINK, github.com/modelcontextprotocol/go-sdk
< internal/serve/flowserver;
internal/serve/schedule, LINK, github.com/modelcontextprotocol/go-sdk, github.com/nats-io/nats.go
< internal/serve/schedule/clustered;
internal/serve/flowserver, internal/serve/schedule/clustered, internal/serve/mcpserver/internal/testsite
< SERVING;

# CONSOLE: rpa ui.
SERVING, AUTHORING, github.com/modelcontextprotocol/go-sdk < internal/ui
< CONSOLE;

# EXAMPLES: the demo app and the example flows (and the case and widget
# gallery flows, and flowtest, which runs those in their tests).
NONE < internal/demoapp;
LANGUAGE, internal/demoapp < flows, flows/cases, flows/gallery;
LANGUAGE, RUNNING, BROWSERS < flows/internal/flowtest;
flows, flows/cases, flows/gallery, flows/internal/flowtest < EXAMPLES;

# COMMAND: the command line. cmd/rpa only wires; internal/cli is its frame,
# internal/doctor the checks of rpa doctor.
BASE, LANGUAGE < internal/cli;
LANGUAGE, BROWSERS, LINK, HOST, internal/runs < internal/doctor;
CONSOLE, EXAMPLES, internal/cli, internal/doctor < cmd/rpa
< COMMAND;

# BUILD: the release tool, the speed benchmarks, this package.
BASE < tools/release;
NONE < bench, internal/layers;
tools/release, bench, internal/layers < BUILD;
`

// planned are the packages of this round that Rules names before they
// exist. Drop a name once its package has landed.
var planned = []string{}
