// Package core is the runtime's vocabulary: the words every other package
// of rpa shares and none of them owns.
//
//   - the typed error of a run, [Error], and its one set of kinds, [Kind]
//     (the `kind` of a WorkflowExecutionResult's error, LANGUAGE.md "Result
//     of a run"), with [KindOf] to classify any error;
//   - the host contract, [Host]: the hooks a host (rpa run, the MCP server)
//     gives a run for what lies beyond the browser, and the values they
//     trade ([Question], [Answer], [ExecCommand], [ExecResult]).
//
// core imports nothing of rpa. drivers, interp, stdlib, hitl, llm and the
// MCP layer import it, so a channel that answers `ask` (hitl) or a model
// that answers `llm` (llm) needs neither the interpreter nor the action
// library.
package core
