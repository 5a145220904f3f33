package ui

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// The Accounts page: the accounts of $RPA_HOME's credential vault (package
// vault; shown once the vault's key is known, since their names are sealed
// with their values) that flows use through `credential` params, with their field
// names, when each was changed and last used (the run that last held its
// lease), and a form to add or change one. Values are typed into password
// inputs and go straight into the vault: the page never shows one, never
// fills one back into a form (an empty input keeps the stored value), and
// the access log names only method, path and status.
//
// The vault's key comes from the OS keyring or RPA_VAULT_PASSPHRASE as for
// every rpa process; when neither gives it, the form asks for the vault
// passphrase (twice for a new vault) and the console keeps it for its life
// (vault.Keys.Give), as a terminal prompt would.

func init() {
	RegisterPage(Page{ID: "accounts", Path: "/accounts", Order: 45, Title: "nav.accounts"})
	RegisterText(map[string]Text{
		"nav.accounts":        {En: "Accounts", Zh: "账号"},
		"accounts.intro":      {En: "Accounts that flows sign in with through a credential param: an agent names the account and never sees its password. Values are stored encrypted in %s and never shown here.", Zh: "流程通过 credential 参数登录时使用的账号：智能体只需给出账号名，永远看不到密码。账号的值加密保存在 %s 中，此页面从不显示。"},
		"accounts.none":       {En: "The vault holds no account yet.", Zh: "账号库中还没有账号。"},
		"accounts.table":      {En: "Accounts in the vault", Zh: "账号库中的账号"},
		"accounts.name":       {En: "Name", Zh: "名称"},
		"accounts.fields":     {En: "Fields", Zh: "字段"},
		"accounts.updated":    {En: "Changed", Zh: "修改时间"},
		"accounts.used":       {En: "Last used", Zh: "上次使用"},
		"accounts.never":      {En: "never", Zh: "从未"},
		"accounts.actions":    {En: "Actions", Zh: "操作"},
		"accounts.edit":       {En: "Edit %s", Zh: "编辑 %s"},
		"accounts.remove":     {En: "Remove %s", Zh: "删除 %s"},
		"accounts.editBtn":    {En: "Edit", Zh: "编辑"},
		"accounts.removeBtn":  {En: "Remove", Zh: "删除"},
		"accounts.add":        {En: "Add an account", Zh: "添加账号"},
		"accounts.change":     {En: "Change %s", Zh: "修改 %s"},
		"accounts.nameHint":   {En: "Letters, digits, '.', '_', '@' and '-', parts joined by '/': portal/admin", Zh: "字母、数字、'.'、'_'、'@' 和 '-'，各部分以 '/' 连接：portal/admin"},
		"accounts.username":   {En: "Username", Zh: "用户名"},
		"accounts.password":   {En: "Password", Zh: "密码"},
		"accounts.totp":       {En: "TOTP seed", Zh: "TOTP 密钥"},
		"accounts.totpHint":   {En: "Base32 or an otpauth:// URI, from the site's authenticator setup; leave empty if the account has none.", Zh: "Base32 或 otpauth:// URI，来自网站的身份验证器设置；账号没有则留空。"},
		"accounts.keep":       {En: "Leave empty to keep the stored value.", Zh: "留空则保留已保存的值。"},
		"accounts.dropField":  {En: "Remove the field %s", Zh: "删除字段 %s"},
		"accounts.extra":      {En: "Another field (optional)", Zh: "其他字段（可选）"},
		"accounts.extraName":  {En: "Field name", Zh: "字段名"},
		"accounts.extraValue": {En: "Field value", Zh: "字段值"},
		"accounts.extraHint":  {En: "Lower-case letters, digits and '_'; a flow reads it as account.NAME.", Zh: "小写字母、数字和 '_'；流程以 account.NAME 读取。"},
		"accounts.pass":       {En: "Vault passphrase", Zh: "账号库口令"},
		"accounts.passNew":    {En: "New vault passphrase (at least 8 characters; it cannot be recovered)", Zh: "新的账号库口令（至少 8 个字符；无法找回）"},
		"accounts.passAgain":  {En: "The new passphrase again", Zh: "再次输入新口令"},
		"accounts.unlock":     {En: "Unlock", Zh: "解锁"},
		"accounts.locked":     {En: "The vault's key comes from a passphrase this console has not been given yet: type it to see, add, change or remove accounts.", Zh: "账号库的密钥来自口令，本控制台尚未获得：输入口令后才能查看、添加、修改或删除账号。"},
		"accounts.unlocked":   {En: "The vault is unlocked for this console.", Zh: "本控制台已解锁账号库。"},
		"accounts.passHint":   {En: "This computer has no keyring for rpa: the console keeps the passphrase until it closes.", Zh: "本机没有可供 rpa 使用的密钥环：控制台会记住口令直到关闭。"},
		"accounts.save":       {En: "Save", Zh: "保存"},
		"accounts.cancel":     {En: "Cancel", Zh: "取消"},
		"accounts.saved":      {En: "Saved %s.", Zh: "已保存 %s。"},
		"accounts.removed":    {En: "Removed %s.", Zh: "已删除 %s。"},
		"accounts.differ":     {En: "The two passphrases differ.", Zh: "两次输入的口令不同。"},
		"accounts.short":      {En: "The passphrase is shorter than 8 characters.", Zh: "口令短于 8 个字符。"},
		"accounts.failed":     {En: "Not saved: %s", Zh: "未保存：%s"},
		"accounts.rmFailed":   {En: "Not removed: %s", Zh: "未删除：%s"},
		"accounts.unreadable": {En: "The vault cannot be read: %s", Zh: "无法读取账号库：%s"},
		"accounts.keyring":    {En: "Key: the OS keyring", Zh: "密钥：系统密钥环"},
		"accounts.keyPass":    {En: "Key: a passphrase", Zh: "密钥：口令"},
	})
	Handle("GET /accounts", accountsPage)
	Handle("POST /accounts", accountsSave)
	Handle("POST /accounts/remove", accountsRemove)
	Handle("POST /accounts/unlock", accountsUnlock)
}

type vaultKey struct{}

// vault is the console's vault (one per Server, so a passphrase given is
// kept for the console's life).
func (s *Server) vault() *vault.Store {
	return s.Value(vaultKey{}, func() any { return vault.Default(s.home(), nil) }).(*vault.Store)
}

// accountRow is one account of the table.
type accountRow struct {
	Name, Fields, Updated, Used, Run string
}

// accountForm is the add/change form.
type accountForm struct {
	Edit  bool
	Name  string
	Extra []string // the account's fields beyond the three well-known ones
	Has   map[string]bool
	// Locked: the vault needs a passphrase this console has not been
	// given; the page shows the unlock form instead of the others.
	Locked bool
	// NewPass: there is no vault yet and its key will come from a
	// passphrase, asked (twice) in the add form.
	NewPass bool
}

func accountsPage(s *Server, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var flash string
	switch {
	case q.Get("saved") != "":
		flash = s.T(r, "accounts.saved", q.Get("saved"))
	case q.Get("removed") != "":
		flash = s.T(r, "accounts.removed", q.Get("removed"))
	case q.Get("unlocked") != "":
		flash = s.T(r, "accounts.unlocked")
	}
	s.renderAccounts(w, r, http.StatusOK, q.Get("edit"), flash, "")
}

// renderAccounts renders the page; edit names the account whose form is
// shown ("" the add form), problem is an error to show over the form.
func (s *Server) renderAccounts(w http.ResponseWriter, r *http.Request, status int, edit, flash, problem string) {
	st := s.vault()
	src, _ := st.KeySource()
	needs := st.NeedsPassphrase()
	form := accountForm{Locked: needs && src != "", NewPass: needs && src == ""}
	data := map[string]any{"Path": st.Path(), "Flash": flash, "Problem": problem}
	var infos []vault.Info
	if !form.Locked { // the names are sealed with the values: a locked vault shows none
		var err error
		if infos, err = st.List(); err != nil {
			data["Unreadable"] = s.T(r, "accounts.unreadable", err.Error())
		}
	}
	switch src {
	case vault.SourceKeyring:
		data["Key"] = s.T(r, "accounts.keyring")
	case vault.SourcePassphrase:
		data["Key"] = s.T(r, "accounts.keyPass")
	}
	leases := lease.NewLocal(s.home())
	var rows []accountRow
	for _, in := range infos {
		row := accountRow{Name: in.Name, Fields: strings.Join(in.Fields, ", "),
			Updated: in.Updated.Local().Format("2006-01-02 15:04"), Used: s.T(r, "accounts.never")}
		if h, ok := leases.Last(in.Name); ok {
			row.Used, row.Run = h.Since.Local().Format("2006-01-02 15:04"), h.RunID
		}
		rows = append(rows, row)
		if in.Name == edit {
			form.Edit, form.Name, form.Has = true, in.Name, map[string]bool{}
			for _, f := range in.Fields {
				form.Has[f] = true
				if f != vault.FieldUsername && f != vault.FieldPassword && f != vault.FieldTOTP {
					form.Extra = append(form.Extra, f)
				}
			}
		}
	}
	data["Accounts"], data["Form"] = rows, form
	s.RenderStatus(w, r, status, "accounts", "nav.accounts", data)
}

// accountsUnlock takes the vault passphrase for this console's life,
// after checking it opens the vault.
func accountsUnlock(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	st := s.vault()
	st.Keys.Give([]byte(r.FormValue("passphrase")))
	if err := st.Unlock(); err != nil {
		s.renderAccounts(w, r, http.StatusUnprocessableEntity, "", "", s.T(r, "accounts.unreadable", err.Error()))
		return
	}
	http.Redirect(w, r, "/accounts?unlocked=1", http.StatusSeeOther)
}

// accountsSave adds an account (mode add) or changes one (mode edit: empty
// inputs keep the stored values, checked fields are removed).
func accountsSave(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		s.renderAccounts(w, r, http.StatusBadRequest, "", "", s.T(r, "accounts.failed", err.Error()))
		return
	}
	f := r.PostForm
	name, edit := strings.TrimSpace(f.Get("name")), f.Get("mode") == "edit"
	again := func(status int, msg string) {
		e := ""
		if edit {
			e = name
		}
		s.renderAccounts(w, r, status, e, "", msg)
	}
	st := s.vault()
	if !s.givePassphrase(st, r, again) {
		return
	}
	fields := map[string]string{}
	for _, k := range []string{vault.FieldUsername, vault.FieldPassword, vault.FieldTOTP} {
		if v := f.Get(k); v != "" {
			fields[k] = v
		}
	}
	if n := strings.TrimSpace(f.Get("extra_name")); n != "" {
		fields[n] = f.Get("extra_value")
	}
	var err error
	if edit {
		var old *vault.Entry
		if old, err = st.Get(name); err == nil {
			merged := map[string]string{}
			for k, v := range old.Fields {
				if f.Get("drop_"+k) == "" {
					merged[k] = v
				}
			}
			for k, v := range fields {
				merged[k] = v
			}
			for k := range old.Fields {
				if v := f.Get("field_" + k); v != "" {
					merged[k] = v
				}
			}
			err = st.Set(name, merged, false)
		}
	} else {
		err = st.Set(name, fields, false)
	}
	clear(fields)
	if err != nil {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, vault.ErrDamaged) {
			status = http.StatusInternalServerError
		}
		again(status, s.T(r, "accounts.failed", err.Error()))
		return
	}
	s.Logf("ui: accounts: saved %s", name)
	http.Redirect(w, r, "/accounts?"+url.Values{"saved": {name}}.Encode(), http.StatusSeeOther)
}

// givePassphrase hands the add form's new vault passphrase to the vault
// when there is no vault yet and its key will come from a passphrase;
// false when the answer is refused (the page is rendered again with why).
func (s *Server) givePassphrase(st *vault.Store, r *http.Request, again func(int, string)) bool {
	if src, _ := st.KeySource(); src != "" || !st.NeedsPassphrase() {
		return true
	}
	p := r.PostForm.Get("passphrase")
	switch {
	case len([]rune(p)) < 8:
		again(http.StatusUnprocessableEntity, s.T(r, "accounts.short"))
		return false
	case r.PostForm.Get("passphrase2") != p:
		again(http.StatusUnprocessableEntity, s.T(r, "accounts.differ"))
		return false
	}
	st.Keys.Give([]byte(p))
	return true
}

func accountsRemove(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	name := r.FormValue("name")
	st := s.vault()
	if err := st.Remove(name); err != nil {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, vault.ErrNotFound) {
			status = http.StatusNotFound
		}
		s.renderAccounts(w, r, status, "", "", s.T(r, "accounts.rmFailed", err.Error()))
		return
	}
	s.Logf("ui: accounts: removed %s", name)
	http.Redirect(w, r, "/accounts?"+url.Values{"removed": {name}}.Encode(), http.StatusSeeOther)
}
