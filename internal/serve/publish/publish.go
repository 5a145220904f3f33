// Package publish puts a flow into the folder a server serves (`rpa
// publish`, the console's publish dialog) and takes it out again. What goes
// in must load there as it is: its `call` targets are resolved among the
// folder's flows, and the folder's flows that call it must still load. The
// file is written atomically (temp file + rename), so a watching server
// never reads half a flow.
package publish

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/yamlflow"
)

// Options say where and under which name a flow is published.
type Options struct {
	Dir         string // the served folder (made when missing)
	Name        string // publish under this flow NAME ("" keeps the flow's); [a-z][a-z0-9_]*
	Description string // replace the flow's description ("" keeps it)
}

// Refusal is a flow that was not published because of what it is: it does
// not load (there), its NAME is taken by another file of the folder, or it
// would break a flow of the folder. Diags are the reasons, when any.
type Refusal struct {
	Msg   string
	Diags diag.Diagnostics
}

// Error is Msg (the diagnostics are not in it).
func (r *Refusal) Error() string { return r.Msg }

// Published says what Publish wrote.
type Published struct {
	Flow string // the flow's NAME (its tool is workflow_NAME)
	Path string // the file written in the folder
}

// File publishes the flow file at path (File reads it, then Source).
func File(path string, o Options) (*Published, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Source(path, src, o)
}

// Source publishes src, the text of the flow file at path (.flow, .yaml or
// .yml: the extension decides the form; its `call` targets are first
// resolved next to path), renamed and described as o says, into o.Dir as
// NAME plus the extension. A *Refusal says why the flow was not published;
// any other error is bad options or a file that could not be read or
// written. Nothing is written unless it is published.
func Source(path string, src []byte, o Options) (*Published, error) {
	if why := ast.FlowNameTooLong(o.Name); why != "" {
		return nil, fmt.Errorf("--name: %s", why)
	}
	if o.Name != "" && !ast.IsFlowName(o.Name) {
		return nil, fmt.Errorf("--name %q: want [a-z][a-z0-9_]*", o.Name)
	}
	f, ds := lang.LoadAt(path, src)
	if f == nil {
		return nil, &Refusal{Msg: path + " does not load", Diags: ds}
	}
	ext := strings.ToLower(filepath.Ext(path))
	if o.Name != "" || o.Description != "" {
		if o.Name != "" {
			f.File.Name = o.Name
		}
		if o.Description != "" {
			f.File.Description = o.Description
		}
		if ext == ".flow" {
			src = lang.SetHeader(src, f.File, o.Name, o.Description)
		} else {
			src = yamlflow.Write(f.File)
		}
		// What goes into the folder must load as is.
		if nf, ds := lang.Load(path, src); nf == nil {
			return nil, &Refusal{Msg: fmt.Sprintf("the renamed flow does not load: %v", ds)}
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	name := f.File.Name
	dest := filepath.Join(o.Dir, name+ext)
	if other, err := lang.FindFlow(o.Dir, name); err == nil && other != dest {
		return nil, &Refusal{Msg: fmt.Sprintf("%s already declares flow %q; unpublish it first or use --name", other, name)}
	}
	if nf, broken, ds := lang.LoadInFolder(dest, src); nf == nil {
		return nil, &Refusal{Msg: fmt.Sprintf("%s would not load in %s:", path, o.Dir), Diags: ds}
	} else if len(broken) > 0 {
		return nil, &Refusal{Msg: fmt.Sprintf("with %s in %s, %s would stop loading:", path, o.Dir, strings.Join(broken, ", ")), Diags: ds}
	}
	if err := atomicfile.Write(dest, src, 0o600); err != nil {
		return nil, err
	}
	return &Published{Flow: name, Path: dest}, nil
}

// Unpublish removes the file of flow name (or of its tool, workflow_NAME)
// from dir and returns its path. A flow no file of dir declares is
// lang.ErrNoFlow (wrapped).
func Unpublish(dir, name string) (string, error) {
	name = strings.TrimPrefix(name, "workflow_")
	p, err := lang.FindFlow(dir, name)
	if err != nil {
		return "", fmt.Errorf("flow %q is not in %s: %w", name, dir, lang.ErrNoFlow)
	}
	return p, os.Remove(p)
}
