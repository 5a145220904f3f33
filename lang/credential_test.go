package lang

import (
	"encoding/base32"
	"strings"
	"testing"
	"time"

	"github.com/expr-lang/expr"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
)

const credFlow = `flow portal_usage "Reads usage as an account"

param account: credential "Portal account"
param base_url: string = "http://127.0.0.1:8080"

defaults login: "portal_login" logged_in: "#logout"

open "{{ base_url }}/login"
fill "#username" account.username
fill "#password" account["password"]
fill "#otp" totp(account.totp)
code = totp(account.totp, {"digits": 8, "period": 60, "algorithm": "SHA256"})
`

func TestCredentialParam(t *testing.T) {
	f, ds := Load("t.flow", []byte(credFlow))
	if f == nil || ds.HasErrors() {
		t.Fatalf("load: %v", ds.Error())
	}
	if got := strings.Join(f.CredentialFields("account"), ","); got != "password,totp,username" {
		t.Errorf("CredentialFields = %q", got)
	}
	if lf, li := f.Login(); lf != "portal_login" || li != "#logout" {
		t.Errorf("Login = %q %q", lf, li)
	}
	a, err := f.CheckArgs(map[string]any{"account": "portal/admin"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Value("account"); v != "portal/admin" || len(a.Secrets()) != 0 {
		t.Errorf("a name: %v %v", v, a.Secrets())
	}
	for _, bad := range []any{3, "", []any{"x"}} {
		if _, err := f.CheckArgs(map[string]any{"account": bad}); err == nil || !strings.Contains(err.Error(), "account") {
			t.Errorf("CheckArgs(%v) = %v", bad, err)
		}
	}
	r, err := a.Resolve("credential", func(_ *ast.Param, v any) (any, error) {
		return map[string]any{"username": "ops", "password": "pw-123456", "totp": "JBSWY3DP"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Secrets(), ","); got != "pw-123456,JBSWY3DP,ops" {
		t.Errorf("Secrets of a resolved account = %q", got)
	}
	// A resolved account passes a call's check as it is.
	if _, err := f.CheckArgs(map[string]any{"account": r.Map()["account"]}); err != nil {
		t.Errorf("a resolved account: %v", err)
	}
	sch, err := f.InputSchema()
	if err != nil || !strings.Contains(string(sch), `"account":{"type":"string","description":"Portal account"}`) {
		t.Errorf("schema: %s %v", sch, err)
	}
	if _, ds := Load("t.flow", []byte("flow x\nparam a: credential = 3\n")); !ds.HasErrors() || !strings.Contains(ds.Error(), "an account name") {
		t.Errorf("a number default: %v", ds.Error())
	}
}

func TestTOTPFunction(t *testing.T) {
	old := check.Now
	check.Now = func() time.Time { return time.Unix(59, 0) }
	defer func() { check.Now = old }()
	seed := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	f, ds := Load("t.flow", []byte("flow x\nparam s: string\nc = totp(s)\nd = totp(s, {\"digits\": 8})\ne = totp(s, {\"digits\": 7})\n"))
	if f == nil || ds.HasErrors() {
		t.Fatalf("load: %v", ds.Error())
	}
	run := func(i int) (any, error) {
		st := f.File.Body[i]
		return expr.Run(f.Program(assignExpr(st)), map[string]any{"s": seed})
	}
	if v, err := run(0); v != "287082" || err != nil {
		t.Errorf("totp(s) = %v %v", v, err)
	}
	if v, err := run(1); v != "94287082" || err != nil {
		t.Errorf("8 digits = %v %v", v, err)
	}
	if _, err := run(2); err == nil || !strings.Contains(err.Error(), "7 digits, want 6 or 8") {
		t.Errorf("7 digits: %v", err)
	}
}

// assignExpr is the expression of `NAME = EXPR`.
func assignExpr(st ast.Stmt) *ast.ExprSrc {
	e, _ := st.(*ast.AssignStmt).Value.(*ast.ExprSrc)
	return e
}
