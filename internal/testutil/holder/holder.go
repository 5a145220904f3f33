// Package holder runs a test binary again as a helper process that holds something (a profile
// lock, an account's lease) until its test lets go: the cross-process tests of locks and leases
// need a live process of another pid holding it, one they can also kill -9.
//
// The test binary's TestMain calls Serve first with what it can hold, by role; a test calls
// Start(t, role, arg) and gets the helper once it holds. The helper prints "held" when it holds,
// lets go when its stdin closes (Release), prints "released" and exits 0; a hold that fails
// prints "error: ..." and exits 1.
package holder

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
)

// The helper's role and argument, in its environment.
const (
	envRole = "RPA_TEST_HOLDER"
	envArg  = "RPA_TEST_HOLDER_ARG"
)

// Hold takes what a role holds, for arg (a folder, ...), and returns how to let it go.
type Hold func(arg string) (release func(), err error)

// Serve makes this test binary the helper Start asked for, when it is one: it holds (roles by
// the role Start named), waits until stdin closes, lets go and exits. Otherwise it returns at
// once. Call it first in TestMain.
func Serve(roles map[string]Hold) {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	hold, ok := roles[role]
	if !ok {
		fmt.Printf("error: no role %q\n", role)
		os.Exit(1)
	}
	release, err := hold(os.Getenv(envArg))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("held")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes stdin
	if release != nil {
		release()
	}
	fmt.Println("released")
	os.Exit(0)
}

// Process is a helper Start started, holding.
type Process struct {
	Cmd *exec.Cmd
	Out *bufio.Reader // what it prints after "held"
	in  io.WriteCloser
}

// Start runs this test binary as the helper of role (Serve's roles) for arg and returns once it
// holds. The helper ends with the test (stdin closed, waited for); a hold that fails the test.
func Start(t testing.TB, role, arg string) *Process {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envArg+"="+arg)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{Cmd: cmd, Out: bufio.NewReader(out), in: in}
	t.Cleanup(p.Stop)
	if line, err := p.Out.ReadString('\n'); err != nil || line != "held\n" {
		p.Stop()
		t.Fatalf("%s holder for %s: %q %v", role, arg, line, err)
	}
	return p
}

// PID is the helper's process id.
func (p *Process) PID() int { return p.Cmd.Process.Pid }

// Release closes the helper's stdin: it lets go, prints "released" (read it from Out) and exits.
func (p *Process) Release() { _ = p.in.Close() }

// Stop releases the helper and waits for it to exit (at once when it was killed).
func (p *Process) Stop() {
	p.Release()
	_ = p.Cmd.Wait()
}
