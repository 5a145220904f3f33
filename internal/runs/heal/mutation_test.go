package heal_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/lang"
)

// The order form's elements in the order form.flow acts on them (data-k
// of each click and change the page logs).
var wantLog = []string{"customer", "qty", "gift", "place", "draft"}

// TestMutations runs form.flow on form.html (marks), then in auto on each
// mutation of testdata/heal. The one outcome that fails the test is a
// wrong element: every step must act on the element form.html's step did,
// or the run must fail with the step's heal refused. It logs how many
// mutations healed; the removed element must fail with a packet-ready
// reason saying it is gone.
func TestMutations(t *testing.T) {
	needBrowser(t)
	f := loadFlow(t, "../../../testdata/heal/form.flow")
	muts := []struct {
		page   string
		healed bool // expected to heal (false: a refusal is the right answer)
	}{
		{"m01-id-renamed", true},
		{"m02-class-renamed", true},
		{"m03-text-reworded", true},
		{"m04-element-moved", true},
		{"m05-wrapper-added", true},
		{"m06-same-text-sibling", true},
		{"m07-element-removed", false},
		{"m08-look-alikes", false},
		{"m09-label-changed", true},
		{"m10-column-added", true},
	}
	healed, wrong := 0, 0
	for _, m := range muts {
		t.Run(m.page, func(t *testing.T) {
			store := openStore(t)
			base := runFlow(t, f, map[string]any{"url": srv.URL + "/form.html"}, heal.Auto, store, core.Host{})
			if !base.res.Success || !slices.Equal(base.log, wantLog) {
				t.Fatalf("base run: success %v log %v: %+v%s", base.res.Success, base.log, base.res.Error, stepsOf(base.res))
			}
			o := runFlow(t, f, map[string]any{"url": srv.URL + "/" + m.page + ".html"}, heal.Auto, store, core.Host{})
			t.Logf("%s: success %v log %v%s", m.page, o.res.Success, o.log, stepsOf(o.res))
			// every element acted on is the right one, in order
			if len(o.log) > len(wantLog) || !slices.Equal(o.log, wantLog[:len(o.log)]) {
				wrong++
				t.Errorf("WRONG ELEMENT: log %v, want a prefix of %v", o.log, wantLog)
			}
			nHealed := 0
			for _, s := range o.res.Results {
				if s.Heal != nil && s.Heal.Status == "healed" {
					nHealed++
				}
			}
			if o.res.Success {
				out, _ := json.Marshal(o.res.Outputs)
				var got struct {
					Total string           `json:"total"`
					Rows  []map[string]any `json:"rows"`
				}
				_ = json.Unmarshal(out, &got)
				if got.Total != "Total: 42" || len(got.Rows) != 2 || got.Rows[0]["Item"] != "Lamp" {
					wrong++
					t.Errorf("WRONG ELEMENT read: outputs %s", out)
				}
				if nHealed == 0 {
					t.Errorf("succeeded without healing: the mutation broke no selector")
				}
				healed++
				// the patch `rpa heal --write` would write runs with no healing
				patched := patchFlow(t, store)
				p := runFlow(t, patched, map[string]any{"url": srv.URL + "/" + m.page + ".html"}, heal.Off, nil, core.Host{})
				if !p.res.Success || !slices.Equal(p.log, wantLog) {
					t.Errorf("patched flow on %s: success %v log %v: %+v", m.page, p.res.Success, p.log, p.res.Error)
				}
			} else {
				last := o.res.Results[len(o.res.Results)-1]
				if last.Heal == nil || last.Heal.Status != "refused" {
					t.Errorf("failed without a heal refusal: %+v", o.res.Error)
				}
				if m.page == "m07-element-removed" && (last.Heal == nil || !containsStr(last.Heal.Reason, "gone")) {
					t.Errorf("removed element: heal reason %+v, want it to say the element is gone", last.Heal)
				}
			}
			if o.res.Success != m.healed {
				t.Errorf("healed %v, expected %v", o.res.Success, m.healed)
			}
		})
	}
	t.Logf("mutation set in auto: %d of %d healed, %d wrong elements", healed, len(muts), wrong)
	if wrong > 0 {
		t.Errorf("%d wrong elements", wrong)
	}
}

// patchFlow applies the proposals of the store's marks to form.flow (as
// `rpa heal --write` does) and loads the result.
func patchFlow(t *testing.T, store *runs.Store) *lang.Flow {
	t.Helper()
	src, err := os.ReadFile("../../../testdata/heal/form.flow")
	if err != nil {
		t.Fatal(err)
	}
	file, ds := lang.Parse("form.flow", src)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	marks, err := store.Marks(file.Name, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := heal.Apply("form.flow", src, file, heal.Propose(file, marks, 0))
	if err != nil {
		t.Fatal(err)
	}
	f, ds := lang.Load("form.flow", out)
	if ds.HasErrors() {
		t.Fatalf("patched flow: %v\n%s", ds, out)
	}
	return f
}

func containsStr(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && stringsIndex(s, sub) >= 0)
}

func stringsIndex(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
