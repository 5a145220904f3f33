package demoapp

// V2 is the Options.Version of the demo's "next version": the same app,
// data and credentials, with pages changed the way sites change under a
// flow (the healing tests of docs/healing.md run the reference flow
// flows/query_power_data.flow on it):
//
//   - login: the form is rewrapped (div.auth-panel > section.auth-box >
//     form#signin) and its fields' ids are renamed: #username is
//     #login-user, #password is #login-pass (the field names and labels
//     stay, the server reads the same form; the button keeps #submit: a
//     button whose id and wrapper both change scores 0.69 against its
//     fingerprint, below heal.AutoThreshold, and auto refuses it);
//   - query: the region select is #area (was #region); the button keeps
//     its id #query-btn and its form #query-form but reads "Search 查询"
//     (was "Query 查询"): with its form renamed as well it scores 0.74,
//     just below heal.AutoThreshold;
//   - the result table is table#usage-table (was #data-table) inside
//     section#report > div#report-grid (was div#results).
//
// The query page's script (static/app.js) reads the renamed ids from the
// body's data attributes, so both versions share it.
const V2 = 2

// page returns the template name of a page for the app's version: name
// itself, or its "_v2" twin under V2.
func (a *App) page(name string) string {
	if a.opts.Version == V2 {
		return name[:len(name)-len(".html")] + "_v2.html"
	}
	return name
}
