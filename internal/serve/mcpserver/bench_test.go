package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// BenchmarkToolsList1000 lists 1,000 flow tools (plus the built-ins)
// through the SDK client over in-memory transports (goal < 5 ms).
func BenchmarkToolsList1000(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		src := fmt.Sprintf(`flow f%04d "Flow number %d, with a description of ordinary length"

param base_url: string = "http://127.0.0.1:8080" "Address of the site"
param user: string "Login name"
param password: secret "Login password"
param region: enum("north", "south") = "north" "Region"

open "{{ base_url }}/login"
fill "#user" user
`, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.flow", i)), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	s, _ := newServer(b, Options{FlowsDir: dir, NoWatch: true})
	b.Logf("loading 1,000 flows: %v", time.Since(start))
	b.Run("server", func(b *testing.B) {
		// The server alone: frames written and read as bytes over pipes,
		// nothing decoded on the client side.
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		ss, err := s.MCP().Connect(context.Background(), &mcp.IOTransport{Reader: sr, Writer: sw}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		rd := bufio.NewReaderSize(cr, 4<<20)
		send := func(line string) {
			if _, err := io.WriteString(cw, line+"\n"); err != nil {
				b.Fatal(err)
			}
		}
		send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		if _, err := rd.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		var size int
		cpu := startCPU()
		for b.Loop() {
			send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
			line, err := rd.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			size = len(line)
		}
		cpu.report(b)
		b.ReportMetric(float64(size), "bytes/answer")
	})
	b.Run("raw", func(b *testing.B) {
		// Server side and framing: the answer is read as raw JSON.
		raw := connectRaw(b, s)
		var size int
		for b.Loop() {
			r := raw.Call("tools/list", map[string]any{})
			if r.Error != nil {
				b.Fatal(r.Error)
			}
			size = len(r.Result)
		}
		b.ReportMetric(float64(size), "bytes/answer")
	})
	b.Run("sdk-client", func(b *testing.B) {
		// Plus the go-sdk client's decoding of every tool.
		cs, _ := connect(b, s)
		ctx := context.Background()
		for b.Loop() {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Tools) != 1002 {
				b.Fatalf("%d tools", len(res.Tools))
			}
		}
	})
}

const titleFlow = `flow read_title "Reads the page title"

t = title
return t
`

// BenchmarkCallOverhead runs one small flow on a warm browser directly
// (interp.Run with the page) and through MCP (tools/call over in-memory
// transports, with profile queue, validation, result encoding). The
// difference is the MCP path's overhead (goal < 1 ms).
func BenchmarkCallOverhead(b *testing.B) {
	st := newSite(b)
	pool := newPool(b)
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "read_title.flow"), []byte(titleFlow), 0o644)
	s, _ := newServer(b, Options{FlowsDir: dir, NoWatch: true, Pool: pool})
	ctx := context.Background()
	// Warm the profile and leave it on a page.
	l, err := pool.Acquire(ctx, "default")
	if err != nil {
		b.Fatal(err)
	}
	pg, err := l.Browser().NewPage(ctx, st.URL+"/table")
	if err != nil {
		b.Fatal(err)
	}
	l.SetPage(pg)
	l.Release()
	flow, ds := lang.LoadFile(filepath.Join(dir, "read_title.flow"))
	if flow == nil {
		b.Fatal(ds)
	}

	b.Run("direct", func(b *testing.B) {
		l, err := pool.Acquire(ctx, "default")
		if err != nil {
			b.Fatal(err)
		}
		defer l.Release()
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			res, _ := interp.Run(ctx, flow, interp.Options{Browser: l.Browser(), Page: l.Page()})
			if !res.Success {
				b.Fatal(res.Error)
			}
		}
	})
	b.Run("mcp-raw", func(b *testing.B) {
		// The same call as raw JSON-RPC frames: no go-sdk client decoding.
		raw := connectRaw(b, s)
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			r := raw.Call("tools/call", map[string]any{"name": "workflow_read_title", "arguments": map[string]any{}})
			if r.Error != nil {
				b.Fatal(r.Error)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		cs, _ := connect(b, s)
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_read_title", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}

// cpuClock measures this process's CPU time (user+system, all threads),
// a figure less distorted than wall time when the machine is
// oversubscribed. The browser's own CPU is not included.
type cpuClock struct{ start time.Duration }

func startCPU() *cpuClock { return &cpuClock{processCPU()} }

func (c *cpuClock) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
