package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/msg"
)

// TestCommandsInChinese runs the daily commands in-process under
// RPA_LANG=zh (as LANG=zh_CN.UTF-8 would): their errors and summaries are
// Chinese, the "rpa CMD: " prefix, names, paths and JSON stay as they are;
// under RPA_LANG=en the same lines are English. One subtest per command
// family (none starts a browser).
func TestCommandsInChinese(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	flows := filepath.Join(home, "flows")
	os.MkdirAll(flows, 0o755)
	hi := filepath.Join(flows, "hi.flow")
	bad := filepath.Join(flows, "bad.flow")
	os.WriteFile(hi, []byte("flow hi \"Say hi\"\n\nparam who: string\n\nlog \"hi \" + who\nreturn {\"x\": who}\n"), 0o644)
	os.WriteFile(bad, []byte("flow bad \"x\"\n\nclik \"#a\"\n"), 0o644)
	for _, c := range []struct {
		family string
		args   []string
		zh, en string // in stdout+stderr
	}{
		{"run", []string{"run"}, "rpa run: 哪个流程？请给出一个文件（.flow、.yaml 或 .yml）", "rpa run: which flow? give one FILE"},
		{"run", []string{"run", hi}, `rpa run: 参数 "who"：缺少必填的 string 参数`, `argument "who": required string param is missing`},
		{"run", []string{"run", hi, "--arg", "who=a", "--arg", "nope=1"}, `参数 "nope"：没有这个参数（可用参数：who）`, "no such param (params: who)"},
		{"run", []string{"run", bad}, `bad.flow:3:1: 错误：未知的动作 "clik"`, `bad.flow:3:1: error: unknown action "clik"`},
		{"run", []string{"run", bad}, `是不是想写 "click"？`, `did you mean "click"?`},
		{"run", []string{"run", bad}, "bad.flow 有错误；什么都没有运行", "bad.flow has errors; nothing was run"},
		{"run", []string{"run", "--nope", hi}, "没有这个选项：-nope", "flag provided but not defined: -nope"},
		{"runs", []string{"runs"}, "还没有运行记录", "no runs recorded yet"},
		{"runs", []string{"runs", "show", "nope"}, `rpa runs show: "nope" 不是运行记录编号`, `"nope" is not a run ID`},
		{"runs", []string{"runs", "export"}, "哪次运行？请给出一个运行记录编号（见 rpa runs）", "which run? give one run ID"},
		{"serve", []string{"serve", "extra"}, `rpa serve: 多余的参数 "extra"`, `rpa serve: unexpected argument "extra"`},
		{"serve", []string{"serve", "--stdio", "--http", "8765"}, "--stdio 和 --http 只能选一个", "choose one of --stdio and --http"},
		{"ui", []string{"ui", "extra"}, `rpa ui: 多余的参数 "extra"`, `rpa ui: unexpected argument "extra"`},
		{"heal", []string{"heal"}, "哪个流程？请给出一个文件（.flow）", "which flow? give one FILE (.flow)"},
		{"heal", []string{"heal", hi}, "rpa heal: hi 没有可提出的修改（0 次运行的 0 条标记）", "nothing to propose for hi (0 marks of 0 runs)"},
		{"vault", []string{"vault", "list"}, "账号库中还没有账号（rpa vault set NAME）", "the vault holds no account yet"},
		{"schedule", []string{"schedule", "list"}, "还没有计划任务（rpa schedule add NAME FLOW --cron ...）", "no schedules yet"},
		{"schedule", []string{"schedule", "add", "a", hi}, "什么时候运行？请给出 --cron", "when? give --cron"},
		{"schedule", []string{"schedule", "rm", "nope"}, "计划任务 nope：不存在", "schedule nope: no such schedule"},
		{"schedule", []string{"schedule", "add"}, "需要 NAME 和 FLOW，收到了 0 个参数", "want NAME and FLOW, got 0 argument(s)"},
	} {
		t.Run(c.family, func(t *testing.T) {
			for _, lang := range []string{"zh", "en"} {
				t.Setenv("RPA_LANG", lang)
				var out, errb bytes.Buffer
				run(c.args, &out, &errb)
				got := out.String() + errb.String()
				want := map[string]string{"zh": c.zh, "en": c.en}[lang]
				if !strings.Contains(got, want) {
					t.Errorf("RPA_LANG=%s rpa %s: no %q in\n%s", lang, strings.Join(c.args, " "), want, got)
				}
			}
		})
	}
	// Every text of the command's catalog has both languages, its verbs alike.
	for _, p := range msg.Check() {
		t.Error(p)
	}
	// JSON stays English for programs.
	t.Setenv("RPA_LANG", "zh")
	var out, errb bytes.Buffer
	run([]string{"schedule", "list", "--json"}, &out, &errb)
	if s := out.String(); strings.ContainsAny(s, "计划") || !strings.HasPrefix(s, "{\n  \"schedules\"") {
		t.Errorf("schedule list --json under zh: %q %q", s, errb.String())
	}
}
