package msg

// The engine's messages as output lines (OutPrefix): what a failed step
// says (drivers/rod's locate and its engine, stdlib's wait, interp's
// timeouts) and what a driver saw of the page when a wait gave up
// (drivers.PageState's texts). The engine says them in English (they go
// into results and records for agents); the console and the command line
// say them in Chinese through Localize. A sentence not listed stays
// English: these are the ones a person meets most.
func init() {
	Register(map[string]Text{
		// locate (drivers/rod engine.js attempt, frame.locate)
		"out.eng.noMatch":      {En: "no element matches %s", Zh: "没有元素匹配 %s"},
		"out.eng.notVisible":   {En: "%s is not visible", Zh: "%s 不可见"},
		"out.eng.notVisibleW":  {En: "%s is not visible (%s)", Zh: "%s 不可见（%s）"},
		"out.eng.disabled":     {En: "%s is disabled", Zh: "%s 已禁用"},
		"out.eng.disabledW":    {En: "%s is disabled (%s)", Zh: "%s 已禁用（%s）"},
		"out.eng.readOnly":     {En: "%s is read-only", Zh: "%s 是只读的"},
		"out.eng.covered":      {En: "%s is covered by %s", Zh: "%s 被 %s 挡住了"},
		"out.eng.moving":       {En: "%s is still moving", Zh: "%s 仍在移动"},
		"out.eng.movingW":      {En: "%s is still moving (an animation of %s runs)", Zh: "%s 仍在移动（%s 的动画正在运行）"},
		"out.eng.outOfView":    {En: "%s is out of view (scrolling it into view)", Zh: "%s 不在视野内（正在将其滚动到视野中）"},
		"out.eng.outside":      {En: "%s is outside the viewport and cannot be scrolled into it", Zh: "%s 在视口之外，无法滚动到视口中"},
		"out.eng.detached":     {En: "element was detached", Zh: "元素已从页面上移除"},
		"out.eng.whyNoSize":    {En: "it has no size", Zh: "它没有尺寸"},
		"out.eng.whyRemoved":   {En: "it was removed from the page", Zh: "它已从页面上移除"},
		"out.eng.matchesHid":   {En: "%s matches %s, which is not visible", Zh: "%s 匹配到 %s，但它不可见"},
		"out.eng.matchesHidW":  {En: "%s matches %s, which is not visible (%s)", Zh: "%s 匹配到 %s，但它不可见（%s）"},
		"out.eng.matchesShown": {En: "%s matches %s, which is still visible", Zh: "%s 匹配到 %s，但它仍然可见"},
		"out.eng.noOption":     {En: "no option matches %s (options: %s)", Zh: "没有选项匹配 %s（可选项：%s）"},
		// select (engine.js findOption, selectOption; drivers/rod element.go)
		"out.eng.noIndex":     {En: "no option at index %s (%d options)", Zh: "索引 %s 处没有选项（共 %d 个选项）"},
		"out.eng.optDisabled": {En: "select: option %s is disabled", Zh: "select: 选项 %s 已禁用"},
		"out.eng.badIndex":    {En: "index must be a whole number >= 0, got %s", Zh: "索引必须是大于等于 0 的整数，实际为 %s"},
		"out.eng.notSelect":   {En: "%s is not a select", Zh: "%s 不是下拉框（select）"},
		"out.eng.isSelect":    {En: "%s is a select: use select", Zh: "%s 是下拉框：请用 select"},
		"out.eng.changedBack": {En: "select: %s shows %s after choosing %s (the page changed it back)", Zh: "select: 选择 %[3]s 后 %[1]s 显示 %[2]s（页面把它改回去了）"},
		"out.eng.unknownBy":   {En: "unknown by %q (value, label, index)", Zh: "未知的 by %q（可用 value、label、index）"},
		// fill and type: the focus (drivers/rod element.go)
		"out.eng.focusKept":  {En: "%s does not keep the focus: the page moves it to %s", Zh: "%s 留不住焦点：页面把焦点移到了 %s"},
		"out.eng.fillAway":   {En: "the value would have gone to %s: focus moved away from %s while typing (the text was held back)", Zh: "值本会输入到 %s：输入时焦点离开了 %s（文本未输入）"},
		"out.eng.typeAway":   {En: "the keys would have gone to %s: focus moved away from %s while typing (%d of %d characters typed, the rest held back)", Zh: "按键本会输入到 %s：输入时焦点离开了 %s（已输入 %d/%d 个字符，其余未输入）"},
		"out.eng.holdsOther": {En: "fill: %s holds another value after the fill", Zh: "fill: 填写后 %s 的值不是所填的值"},
		"out.eng.holdsNot":   {En: "fill: %s holds %q, not %q after the fill", Zh: "fill: 填写后 %s 的值是 %q，而不是 %q"},
		"out.eng.focusNow":   {En: "%s; the focus is on %s now (it moved away while typing)", Zh: "%s；焦点现在在 %s 上（输入时移开了）"},
		// upload and download (drivers/rod element.go, download.go)
		"out.eng.noChooser": {En: "%s is not a file input, and clicking it opened no file chooser within %s", Zh: "%s 不是文件输入框，点击它在 %s 内也没有打开文件选择框"},
		"out.eng.dlState":   {En: "download %q was %s", Zh: "下载 %q 的状态为 %s"},
		"out.eng.dlLate":    {En: "download %q did not finish in time", Zh: "下载 %q 未能及时完成"},
		// timeouts (interp, stdlib wait)
		"out.eng.timedOut":    {En: "timed out after %s (%s)", Zh: "%s 后超时（%s）"},
		"out.eng.waitTimeout": {En: "wait: timed out after %s waiting for %s", Zh: "wait：等待 %[2]s，%[1]s 后超时"},
		"out.eng.waitSeen":    {En: "wait: timed out after %s waiting for %s: %s", Zh: "wait：等待 %[2]s，%[1]s 后超时：%[3]s"},
		"out.eng.waitGaveUp":  {En: "wait: gave up after %s waiting for %s: %s", Zh: "wait：等待 %[2]s，%[1]s 后放弃：%[3]s"},
		"out.eng.waitText":    {En: "text %s", Zh: "文本 %s"},
		"out.eng.waitURL":     {En: "the URL to match %s", Zh: "网址匹配 %s"},
		// what the page was like (drivers.PageState texts: drivers/rod settle.go, engine.js verdict)
		"out.eng.settled":    {En: "the page had settled (nothing loaded or changed for %s)", Zh: "页面已稳定（%s 内没有加载或变化）"},
		"out.eng.httpError":  {En: "the page is an HTTP %d error document", Zh: "页面是 HTTP %d 错误页"},
		"out.eng.httpErrorT": {En: "the page is an HTTP %d error document (%q)", Zh: "页面是 HTTP %d 错误页（%q）"},
		"out.eng.pageError":  {En: "the page shows an error: %q", Zh: "页面显示了一个错误：%q"},
		"out.eng.signIn":     {En: "the page is a sign-in page", Zh: "页面是登录页"},
		"out.eng.signInPw":   {En: "the page is a sign-in page: it asks for a password", Zh: "页面是登录页：它要求输入密码"},
		"out.eng.signInSay":  {En: "the page is a sign-in page: it says %q", Zh: "页面是登录页：页面上写着 %q"},
		"out.eng.signInPwS":  {En: "the page is a sign-in page: it asks for a password and says %q", Zh: "页面是登录页：它要求输入密码，页面上写着 %q"},
		// the run's own
		"out.eng.cancelled": {En: "the run was cancelled", Zh: "运行已取消"},
	})
}
