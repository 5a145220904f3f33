package ui

import (
	"path/filepath"

	"github.com/rpa-dev/rpa/lang"
)

// FlowInfo is one flow file of the folder as the Flows page shows it.
type FlowInfo struct {
	// File is the file name in the folder.
	File string
	// Name is the flow NAME ("" when the file does not parse that far).
	Name string
	// Tool is the MCP tool name, workflow_NAME.
	Tool string
	// Description is the header's description.
	Description string
}

// flowList lists the folder's flows.
func (s *Server) flowList() []FlowInfo {
	files, _ := lang.FlowFiles(s.FlowsDir())
	var out []FlowInfo
	for _, p := range files {
		fi := FlowInfo{File: filepath.Base(p)}
		if f, _ := lang.LoadFile(p); f != nil {
			fi.Name, fi.Tool, fi.Description = f.File.Name, "workflow_"+f.File.Name, f.File.Description
		}
		out = append(out, fi)
	}
	return out
}
