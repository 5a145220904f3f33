package ui

import (
	"net/http"
)

func init() {
	RegisterPage(Page{ID: "flows", Path: "/flows", Order: 10, Title: "nav.flows"})
	RegisterText(map[string]Text{
		"nav.flows":         {En: "Flows", Zh: "流程"},
		"flows.file":        {En: "File", Zh: "文件"},
		"flows.tool":        {En: "Tool", Zh: "工具"},
		"flows.description": {En: "Description", Zh: "描述"},
	})
	Handle("GET /flows", flowsPage)
}

// flowsPage lists the flows of the folder.
func flowsPage(s *Server, w http.ResponseWriter, r *http.Request) {
	s.Render(w, r, "flows", "nav.flows", s.flowList())
}
