package main

import (
	"io"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/export"
	"github.com/rpa-dev/rpa/internal/runs/report"
)

// rpa runs: its work lives in runs.Cmd; this file wires it.
func init() {
	register(command{name: "runs", usage: runs.CmdUsage, summary: runs.CmdSummary, run: runRuns})
}

func runRuns(args []string, stdout, stderr io.Writer) int {
	return (&runs.Cmd{Home: home.Dir(), Stdout: stdout, Stderr: stderr, ReportPath: report.Ensure, ReportCopy: report.Copy, Export: export.Write}).Run(args)
}
