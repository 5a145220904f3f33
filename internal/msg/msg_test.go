package msg

import "testing"

func TestCatalog(t *testing.T) {
	Register(map[string]Text{"msg.test": {En: "%d rows of %s", Zh: "%[2]s 的 %[1]d 行"}, "msg.bad": {En: "%d rows", Zh: "%s 行"}, "msg.copy": {En: "two rows", Zh: "two rows"}, "msg.name": {En: "JSON", Zh: "JSON"}})
	probs := Check()
	if len(probs) != 2 {
		t.Fatalf("problems %q", probs)
	}
	catalog.mu.Lock()
	delete(catalog.m, "msg.bad")
	delete(catalog.m, "msg.copy")
	delete(catalog.m, "msg.name")
	catalog.mu.Unlock()
	for _, p := range Check() {
		t.Error(p)
	}
	if got := T("zh", "msg.test", 3, "表"); got != "表 的 3 行" {
		t.Fatalf("zh: %q", got)
	}
	if got := T("en", "msg.test", 3, "t"); got != "3 rows of t" {
		t.Fatalf("en: %q", got)
	}
	if got := T("zh", "msg.nope"); got != "‹msg.nope›" {
		t.Fatalf("unknown: %q", got)
	}
}

func TestEnv(t *testing.T) {
	for _, tc := range []struct{ all, msgs, lang, rpa, want string }{
		{"", "", "zh_CN.UTF-8", "", "zh"},
		{"", "", "en_US.UTF-8", "", "en"},
		{"C", "", "zh_CN.UTF-8", "", "en"},
		{"", "zh_TW", "en_US", "", "zh"},
		{"", "", "", "", "en"},
		{"", "", "en_US", "zh", "zh"},
	} {
		t.Setenv("LC_ALL", tc.all)
		t.Setenv("LC_MESSAGES", tc.msgs)
		t.Setenv("LANG", tc.lang)
		t.Setenv("RPA_LANG", tc.rpa)
		if got := Env(); got != tc.want {
			t.Errorf("%+v: %s", tc, got)
		}
	}
}
