package flows

import (
	"fmt"
	"strings"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/lang"
)

// Examples loads the embedded flows (FS) as a folder: each by name. An
// error is their diagnostics (a bug of this package: a test loads them).
func Examples() (map[string]*lang.Flow, error) {
	all, ds := lang.LoadFS(FS)
	if ds.HasErrors() {
		return nil, fmt.Errorf("the embedded flows do not load: %v", ds)
	}
	return all, nil
}

// UnknownError is a name no example flow has.
type UnknownError struct {
	Name string
	Have []string // the names there are
}

// Error names the flow asked for and the flows there are.
func (e *UnknownError) Error() string {
	return fmt.Sprintf("no example flow %q (have %s)", e.Name, strings.Join(e.Have, ", "))
}

// Example is the example flow name of all with its arguments against the
// demo app at baseURL (`rpa demo`): the demo credentials, base_url, and
// region for the params region and region_a. An unknown name is an
// *UnknownError.
func Example(all map[string]*lang.Flow, name, baseURL, region string) (*lang.Flow, map[string]string, error) {
	f, ok := all[name]
	if !ok {
		return nil, nil, &UnknownError{Name: name, Have: lang.Names(all)}
	}
	args := map[string]string{"username": demoapp.DemoUsername, "password": demoapp.DemoPassword, "base_url": baseURL}
	for _, p := range f.File.Params {
		if p.Name == "region" || p.Name == "region_a" {
			args[p.Name] = region
		}
	}
	return f, args, nil
}
