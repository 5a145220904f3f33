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
