// Package stdlib binds one implementation to every action of the flow
// language's action table (lang/actions.Table): navigation, pointer and
// keyboard input, reads, waits, tabs, dialogs, downloads, and the host hooks
// (ask, llm, exec) and call.
//
// # Direction: the interpreter owns its universe
//
// As in starlark-go (whose interpreter carries one fixed Universe of
// built-ins) and unlike k6 (whose modules register themselves into the
// runtime from their own init functions), the action set is closed: it is
// the language's action table, fixed by the spec, and this package's
// universe binds each of its rows to one Impl in a single literal map. interp
// imports stdlib and looks actions up in it ([Lookup]); stdlib never imports
// interp and nothing registers actions at run time. A new action is a row of
// lang/actions.Table plus an entry of the universe (TestParity fails until
// both exist). The dependency runs one way: lang/actions (what an action
// is) <- stdlib (what it does) <- interp (when and how often: retries,
// waits, timeouts, results).
//
// Implementations see the browser only through the drivers interfaces and
// the runtime only through Env, which interp provides; interp's replay engine
// (retries, waits, timeouts, optional/skip, results, masking) wraps every
// call. An Impl runs one attempt of an action.
//
// Choices the spec leaves open, made here:
//   - screenshot without path: writes a new file in the OS temp folder
//     (rpa-screenshot-*.png), marks it for the host to remove after the run
//     (Env.TempFile) and returns its path;
//   - download without to: saves into a fresh private folder (0700) in the
//     OS temp folder (rpa-download-*), which the host removes with the file
//     after the run (Env.TempFile); to: keeps the file where it says;
//   - upload paths are resolved against the working folder and must exist
//     (a missing file fails at once, without retries);
//   - table with no header rows takes its first body row as the header;
//     a column without header text is keyed "col N"; header "none" returns
//     the header and body rows (tfoot left out, as everywhere);
//   - tab "URL pattern" picks the newest matching tab; tab N counts tabs
//     oldest first (Browser.Pages);
//   - ask without a Host.Ask fails with kind hitl_declined, exec without a
//     Host.Exec with exec_refused, llm without a Host.LLM with browser.
package stdlib
