package main

import (
	"context"
	"io"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/serve/flowserver"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// rpa schedule: its work lives in schedule.Cmd; this file wires it.
func init() {
	register(command{name: "schedule", usage: schedule.Usage, summary: schedule.Summary, run: withSignals(runSchedule)})
}

func runSchedule(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &schedule.Cmd{Home: home.Dir(), FlowsDir: flowserver.DefaultFlowsDir(), Ask: vault.TerminalAsker, Stdout: stdout, Stderr: stderr}
	return c.Run(ctx, args)
}
