package lang

import "sync"

// FolderFlows resolves `call NAME` among the flows of dir, loading the
// folder (LoadDir) once, on the first call. Files of the folder that do
// not load are skipped: their problems belong to `rpa check DIR`. Safe
// for concurrent use.
func FolderFlows(dir string) func(name string) (*Flow, bool) {
	var once sync.Once
	var flows map[string]*Flow
	return func(name string) (*Flow, bool) {
		once.Do(func() { flows, _ = LoadDir(dir) })
		f, ok := flows[name]
		return f, ok
	}
}
