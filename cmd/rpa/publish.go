package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rpa-dev/rpa/internal/serve/flowserver"
	"github.com/rpa-dev/rpa/internal/serve/publish"
	"github.com/rpa-dev/rpa/lang"
)

func init() {
	register(command{
		name:    "publish",
		usage:   "rpa publish FILE [--name N] [--description D] [--flows DIR]",
		summary: "check a flow and put it in the served folder (default $RPA_HOME/flows)",
		run:     runPublish,
	})
	register(command{
		name:    "unpublish",
		usage:   "rpa unpublish NAME [--flows DIR]",
		summary: "remove a flow from the served folder",
		run:     runUnpublish,
	})
}

// runPublish checks FILE and writes it (renamed with --name, described
// with --description) into the served folder (publish.File). Exit 0
// published, 1 when it was refused (it does not load there, would break a
// flow of the folder, or its NAME is taken by another file), 2 on usage.
func runPublish(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("publish", stderr)
	var o publish.Options
	fs.StringVar(&o.Name, "name", "", "publish under this flow NAME (the tool is workflow_NAME)")
	fs.StringVar(&o.Description, "description", "", "replace the flow's description")
	fs.StringVar(&o.Dir, "flows", "", "served folder (default $RPA_HOME/flows)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	if !flowFileArg("publish", pos[0], stderr) {
		return exitUsage
	}
	o.Dir = cmp.Or(o.Dir, flowserver.DefaultFlowsDir())
	p, err := publish.File(pos[0], o)
	if r := (*publish.Refusal)(nil); errors.As(err, &r) {
		fmt.Fprintf(stderr, "rpa publish: %s\n", r.Msg)
		for _, d := range r.Diags {
			fmt.Fprintln(stderr, d.OneLine())
		}
		return exitFailed
	} else if err != nil {
		return fail(stderr, exitUsage, "publish", err)
	}
	fmt.Fprintf(stdout, "published %s as workflow_%s (%s)\n", pos[0], p.Flow, p.Path)
	return exitOK
}

// runUnpublish removes the file of flow NAME (or workflow_NAME) from the
// served folder. Exit 0 removed, 1 when no file declares it, 2 on usage.
func runUnpublish(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("unpublish", stderr)
	dir := fs.String("flows", "", "served folder (default $RPA_HOME/flows)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	p, err := publish.Unpublish(cmp.Or(*dir, flowserver.DefaultFlowsDir()), pos[0])
	switch {
	case errors.Is(err, lang.ErrNoFlow):
		return fail(stderr, exitFailed, "unpublish", err)
	case err != nil:
		return fail(stderr, exitUsage, "unpublish", err)
	}
	fmt.Fprintf(stdout, "unpublished workflow_%s (%s)\n", strings.TrimPrefix(pos[0], "workflow_"), p)
	return exitOK
}
