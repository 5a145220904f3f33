package msg

// The flow language's diagnostics and the arguments' errors, as output
// lines (OutPrefix): the checker (package lang) cannot import the catalog
// (it rests on nothing of ours), so its most common sentences are here, for
// the console's editor and flows page and for the command line. A sentence
// not listed stays English.
func init() {
	Register(map[string]Text{
		"out.diag.error":        {En: "error: %s", Zh: "错误：%s"},
		"out.diag.warning":      {En: "warning: %s", Zh: "警告：%s"},
		"out.diag.didYouMean":   {En: "did you mean %q?", Zh: "是不是想写 %q？"},
		"out.diag.summaryMean":  {En: "%s; did you mean %q?", Zh: "%s；是不是想写 %q？"},
		"out.diag.more":         {En: "%s (and %d more)", Zh: "%s（另有 %d 个问题）"},
		"out.diag.unknownAct":   {En: "unknown action %q", Zh: "未知的动作 %q"},
		"out.diag.unknownName":  {En: "unknown name %q", Zh: "未知的名称 %q"},
		"out.diag.unknownType":  {En: "unknown type %q", Zh: "未知的类型 %q"},
		"out.diag.unknownFlow":  {En: "unknown flow %q", Zh: "未知的流程 %q"},
		"out.diag.unused":       {En: "param %q is never used", Zh: "参数 %q 从未使用"},
		"out.diag.noType":       {En: "param %q has no type", Zh: "参数 %q 没有类型"},
		"out.diag.dupParam":     {En: "duplicate param %q", Zh: "参数 %q 重复"},
		"out.diag.dupOption":    {En: "duplicate option %q", Zh: "选项 %q 重复"},
		"out.diag.needsValue":   {En: "option %q needs a value", Zh: "选项 %q 需要一个值"},
		"out.diag.secretDef":    {En: "secret param %q has a default", Zh: "密文参数 %q 不能有默认值"},
		"out.diag.unreachable":  {En: "unreachable code", Zh: "不会执行到的代码"},
		"out.diag.notClosed":    {En: "%s is never closed (no matching %s)", Zh: "%s 没有闭合（没有匹配的 %s）"},
		"out.diag.blockOpen":    {En: "block is never closed: no `}` matches this `{`", Zh: "代码块没有闭合：没有 `}` 与这个 `{` 匹配"},
		"out.diag.unexpClose":   {En: "unexpected }: no block is open", Zh: "多余的 }：没有打开的代码块"},
		"out.diag.strNotTerm":   {En: "string not terminated", Zh: "字符串没有结束引号"},
		"out.diag.emptyFlow":    {En: "empty flow", Zh: "流程是空的"},
		"out.diag.flowStarts":   {En: "a flow starts with `flow NAME`", Zh: "流程以 `flow NAME` 开头"},
		"out.diag.missingName":  {En: "missing flow name", Zh: "缺少流程名称"},
		"out.diag.badFlowName":  {En: "flow name %q must match [a-z][a-z0-9_]*", Zh: "流程名称 %q 必须符合 [a-z][a-z0-9_]*"},
		"out.diag.breakOutside": {En: "break outside a loop", Zh: "break 不在循环中"},
		"out.diag.contOutside":  {En: "continue outside a loop", Zh: "continue 不在循环中"},
		"out.diag.elseNoIf":     {En: "else without if", Zh: "else 前面没有 if"},
		"out.diag.usage":        {En: "usage: %s", Zh: "用法：%s"},
		"out.diag.options":      {En: "options: %s", Zh: "可用选项：%s"},
		"out.diag.knownKeys":    {En: "known keys: %s", Zh: "已知的键：%s"},
		"out.diag.cantAssign":   {En: "cannot assign to param %q", Zh: "不能给参数 %q 赋值"},
		"out.diag.selUnescaped": {En: "param %q goes into a selector unescaped", Zh: "参数 %q 未经转义就进入了选择器"},
		"out.diag.urlUnescaped": {En: "param %q goes into the URL's query unescaped", Zh: "参数 %q 未经转义就进入了 URL 的查询部分"},
		"out.diag.noParam":      {En: "flow %q has no param %q", Zh: "流程 %q 没有参数 %q"},
		"out.diag.utf16":        {En: "the file is UTF-16 text, not UTF-8", Zh: "文件是 UTF-16 文本，不是 UTF-8"},
		"out.diag.saveUTF8":     {En: "save it as UTF-8", Zh: "请另存为 UTF-8"},
		// Addresses `open` refuses (lang/actions.CheckOpenURL), also the console's picker.
		"out.url.invalid":  {En: "%q is not a valid URL: %s", Zh: "%q 不是有效的 URL：%s"},
		"out.url.noHost":   {En: "%q has no host (want %s)", Zh: "%q 没有主机名（应为 %s）"},
		"out.url.relative": {En: "%q is not an absolute URL (want http://, https://, file:, about: or data:)", Zh: "%q 不是绝对 URL（应为 http://、https://、file:、about: 或 data:）"},
		"out.url.scheme":   {En: "%q: scheme %q is not one open loads (want http, https, file, about or data)", Zh: "%q：open 不能打开 %q 协议的地址（应为 http、https、file、about 或 data）"},
		// Arguments of a run (lang.BindArgs), as rpa run and the MCP tools say them.
		"out.arg.bad":      {En: "argument %q: %s", Zh: "参数 %q：%s"},
		"out.arg.missing":  {En: "required %s param is missing", Zh: "缺少必填的 %s 参数"},
		"out.arg.noSuch":   {En: "no such param (params: %s)", Zh: "没有这个参数（可用参数：%s）"},
		"out.arg.want":     {En: "want %s, got %s", Zh: "应为 %s，实际为 %s"},
		"out.arg.wantA":    {En: "want a %s, got a %s", Zh: "应为 %s，实际为 %s"},
		"out.arg.wantAn":   {En: "want a %s, got an %s", Zh: "应为 %s，实际为 %s"},
		"out.arg.invalid":  {En: "invalid argument %q: %s", Zh: "参数 %q 无效：%s"},
		"out.arg.notOneOf": {En: "%s is not one of %s", Zh: "%s 不是 %s 之一"},
		// Go's flag package.
		"out.flag.undefined": {En: "flag provided but not defined: %s", Zh: "没有这个选项：%s"},
		"out.flag.needsArg":  {En: "flag needs an argument: %s", Zh: "选项需要一个值：%s"},
	})
}
