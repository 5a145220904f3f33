package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func findParam(f *ast.File, name string) *ast.Param {
	for _, p := range f.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// credentialParams are the names of f's credential params.
func credentialParams(f *ast.File) []string {
	var out []string
	for _, p := range f.Params {
		if p.Type != nil && p.Type.Name == "credential" {
			out = append(out, p.Name)
		}
	}
	return out
}

// withAccount is kv with d.Account as the value of each credential param
// of f that kv does not give.
func withAccount(f *ast.File, d *Def, kv map[string]string) map[string]string {
	if d.Account == "" {
		return kv
	}
	for _, c := range credentialParams(f) {
		if _, ok := kv[c]; !ok {
			kv[c] = d.Account
		}
	}
	return kv
}

func isSecret(p *ast.Param) bool { return p.Type != nil && p.Type.Name == "secret" }

// withStandIns is args with a stand-in value for each secret param read
// from the environment.
func withStandIns(args, secretEnv map[string]string) map[string]string {
	out := make(map[string]string, len(args)+len(secretEnv))
	for k, v := range args {
		out[k] = v
	}
	for k := range secretEnv {
		out[k] = "stand-in"
	}
	return out
}

// ResolveFlow finds the flow a schedule names: a flow file (.flow, .yaml,
// .yml), else the flow of that NAME in flowsDir (the served folder). It
// returns the file's absolute path; nothing found is an error naming
// both places.
func ResolveFlow(arg, flowsDir string) (string, error) {
	if fi, err := os.Stat(arg); err == nil && !fi.IsDir() {
		return filepath.Abs(arg)
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".flow", ".yaml", ".yml":
		return "", fmt.Errorf("flow %s: no such file", arg)
	}
	if flowsDir != "" && !strings.ContainsAny(arg, `/\`) {
		p, err := lang.FindFlow(flowsDir, arg)
		if err == nil {
			return filepath.Abs(p)
		}
		if !errors.Is(err, lang.ErrNoFlow) && !os.IsNotExist(err) {
			return "", fmt.Errorf("flow %s: %v", arg, err)
		}
	}
	return "", fmt.Errorf("flow %s: no such file, and no flow of that name in %s (give a .flow or .yaml file, or the name of a published flow)", arg, flowsDir)
}

// Prepare completes and checks d (its Name, timing, arguments and
// options as the user gave them) against its flow, found by ResolveFlow
// from flowArg: the flow must load without errors, every required param
// must have an argument and every argument fit its param, and no argument
// may be a secret (a schedule is stored; secrets never are): a secret
// param is read from an environment variable at each run (SecretEnv).
// now anchors --every. The error names the flag or argument at fault.
func Prepare(d *Def, flowArg, flowsDir string, now time.Time) error {
	if err := CheckName(d.Name); err != nil {
		return err
	}
	if err := d.checkWhen(); err != nil {
		return err
	}
	if d.Missed == "" {
		d.Missed = MissedSkip
	}
	if err := d.checkOptions(); err != nil {
		return err
	}
	path, err := ResolveFlow(flowArg, flowsDir)
	if err != nil {
		return err
	}
	f, ds := lang.LoadFile(path)
	if f == nil || ds.HasErrors() {
		return fmt.Errorf("flow %s has errors: %s (see rpa check %s)", flowArg, firstError(path, ds.Error()), flowArg)
	}
	for name, env := range d.SecretEnv {
		p := findParam(f.File, name)
		switch {
		case p == nil:
			return fmt.Errorf("--secret-env %s=%s: flow %s has no param %s", name, env, f.File.Name, name)
		case !isSecret(p):
			return fmt.Errorf("--secret-env %s=%s: %s is not a secret param (give it with --arg)", name, env, name)
		case !envNameRE.MatchString(env):
			return fmt.Errorf("--secret-env %s=%s: %q is not an environment variable name", name, env, env)
		}
	}
	for _, p := range f.File.Params {
		if !isSecret(p) {
			continue
		}
		if _, given := d.Args[p.Name]; given {
			return fmt.Errorf("--arg %s: %s is a secret param, and a schedule is stored: give it with --secret-env %s=ENV_VAR (read from the environment of the process that fires it) instead", p.Name, p.Name, p.Name)
		}
		if _, env := d.SecretEnv[p.Name]; p.Default == nil && !env {
			return fmt.Errorf("flow %s needs the secret param %s, and a schedule stores no secrets: give it with --secret-env %s=ENV_VAR (read from the environment of the process that fires it)", f.File.Name, p.Name, p.Name)
		}
	}
	if d.Account != "" {
		if err := vault.CheckName(d.Account); err != nil {
			return fmt.Errorf("--account: %v", err)
		}
	}
	// --account fills the flow's credential params; an account given with
	// --arg is the schedule's account (the per-account limit's key).
	creds := credentialParams(f.File)
	for _, c := range creds {
		if v, ok := d.Args[c]; ok && d.Account == "" {
			d.Account = v
		}
	}
	if d.Account != "" && len(creds) == 0 {
		return fmt.Errorf("--account %s: flow %s has no credential param to sign in with it (it still keys --max-concurrent account=N; use --profile for a browser profile)", d.Account, f.File.Name)
	}
	if len(creds) > 0 && d.Account == "" {
		return fmt.Errorf("flow %s signs in with the credential param %s: give --account NAME (an account of rpa vault)", f.File.Name, creds[0])
	}
	// The secrets' values are not here (they are read at each run):
	// stand-ins check the rest.
	if _, err := typedArgs(f, withAccount(f.File, d, withStandIns(d.Args, d.SecretEnv))); err != nil {
		return fmt.Errorf("--arg: %v", err)
	}
	d.Flow, d.FlowName = path, f.File.Name
	if d.Missed == "" {
		d.Missed = MissedSkip
	}
	if d.Backoff == 0 {
		d.Backoff = Duration(DefaultBackoff)
	}
	if d.Grace == 0 {
		d.Grace = Duration(DefaultGrace)
	}
	if d.Every > 0 && d.Anchor.IsZero() {
		d.Anchor = now.UTC().Truncate(time.Second)
	}
	return d.Check()
}

// maxNamesShown bounds the account names an error lists.
const maxNamesShown = 10

// CheckAccount checks the account of a prepared d (Prepare) against the
// vault st: the vault must hold it, with every field its flow (and the
// flow's sign-in flow, in the same folder) reads. The error names the
// flag that gave the account (--account, or --arg PARAM) and lists the
// vault's accounts that have those fields (at most 10). When this process
// cannot get the vault's key (no keyring, no RPA_VAULT_PASSPHRASE, nobody
// to ask) nothing is checked: checked is false, with the reason, and the
// account is resolved when the schedule fires. A wrong key or a damaged
// vault is the vault's *vault.FileError. No account (a flow without a
// credential param) is checked true.
func CheckAccount(d *Def, st *vault.Store) (checked bool, why error, err error) {
	if d.Account == "" {
		return true, nil, nil
	}
	f, ds := lang.LoadFile(d.Flow)
	if f == nil || ds.HasErrors() {
		return false, nil, fmt.Errorf("flow %s has errors: %s", d.Flow, firstError(d.Flow, ds.Error()))
	}
	flows := lang.FolderFlows(filepath.Dir(d.Flow))
	var fields []string
	flag := "--account " + d.Account
	for _, c := range credentialParams(f.File) {
		if v, ok := d.Args[c]; ok {
			if v == d.Account {
				flag = "--arg " + c + "=" + v
			}
			continue
		}
		for _, x := range f.AccountFields(c, flows) {
			if !slices.Contains(fields, x) {
				fields = append(fields, x)
			}
		}
	}
	infos, err := st.List()
	if fe := (*vault.FileError)(nil); errors.As(err, &fe) {
		return false, nil, fmt.Errorf("%s: %w", flag, err)
	}
	if err != nil {
		return false, err, nil
	}
	var have []string
	var in *vault.Info
	for i := range infos {
		if infos[i].Has(fields...) {
			have = append(have, infos[i].Name)
		}
		if infos[i].Name == d.Account {
			in = &infos[i]
		}
	}
	sort.Strings(fields)
	fit := "the vault holds no account"
	if len(have) > 0 {
		shown := have[:min(len(have), maxNamesShown)]
		fit = "accounts of the vault that fit: " + strings.Join(shown, ", ")
		if len(have) > len(shown) {
			fit += fmt.Sprintf(" and %d more (rpa vault list)", len(have)-len(shown))
		}
	} else if len(infos) > 0 {
		fit = "no account of the vault has the fields"
	}
	if len(fields) > 0 {
		fit += " (fields " + strings.Join(fields, ", ") + ")"
	}
	if in == nil {
		names := make([]string, len(infos))
		for i, x := range infos {
			names[i] = x.Name
		}
		msg := fmt.Sprintf("%s: no account %q in the vault", flag, d.Account)
		if sug := diag.Suggest(d.Account, names); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		}
		return false, nil, fmt.Errorf("%s; %s; add one with rpa vault set NAME", msg, fit)
	}
	var missing []string
	for _, x := range fields {
		if !in.Has(x) {
			missing = append(missing, x)
		}
	}
	if len(missing) > 0 {
		return false, nil, fmt.Errorf("%s: account %s has no field %s, which flow %s reads (it has %s); %s",
			flag, d.Account, strings.Join(missing, ", "), f.File.Name, strings.Join(in.Fields, ", "), fit)
	}
	return true, nil, nil
}

// Add stores prepared d in st, next due after now. A name in use is an
// error saying so (runs.ErrScheduleExists, wrapped).
func Add(st *runs.Store, d *Def, now time.Time) (*runs.ScheduleRecord, error) {
	w, err := d.When()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	rec := &runs.ScheduleRecord{Name: d.Name, Flow: d.FlowName, Def: b, Next: w.Next(now), Created: now.UTC(), Updated: now.UTC()}
	if err := st.AddSchedule(rec); err != nil {
		if errors.Is(err, runs.ErrScheduleExists) {
			return nil, fmt.Errorf("%w (rpa schedule rm %s first, or pick another name)", err, d.Name)
		}
		return nil, err
	}
	return rec, nil
}

// Pause pauses schedule name; Resume resumes it, next due after now
// (times missed while paused are not made up).
func Pause(st *runs.Store, name string, now time.Time) error {
	return st.PauseSchedule(name, true, time.Time{}, now)
}

// Resume resumes schedule name (Pause).
func Resume(st *runs.Store, name string, now time.Time) error {
	rec, err := st.Schedule(name)
	if err != nil {
		return err
	}
	d, err := DecodeDef(rec.Def)
	if err != nil {
		return fmt.Errorf("schedule %s: %v", name, err)
	}
	w, err := d.When()
	if err != nil {
		return fmt.Errorf("schedule %s: %v", name, err)
	}
	return st.PauseSchedule(name, false, w.Next(now), now)
}

// RunNow queues a run of schedule name now (FireManual), with its
// limits and retries, and returns the fire's ID.
func RunNow(st *runs.Store, name string, now time.Time) (int64, error) {
	rec, err := st.Schedule(name)
	if err != nil {
		return 0, err
	}
	d, err := DecodeDef(rec.Def)
	if err != nil {
		return 0, fmt.Errorf("schedule %s: %v", name, err)
	}
	f := FireTemplate(d)
	f.Schedule = name
	return st.QueueFire(f, now)
}
