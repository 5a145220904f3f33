package stdlib_test

import "testing"

// TestScrollFeedNoSleep: `scroll "bottom"` issued as soon as a batch has
// arrived still loads the next one. The feed's IntersectionObserver loads
// only when its sentinel enters the viewport, so the scroll must come after
// the frame where the sentinel left (shared case 13). Several rounds, as a
// missed frame shows only sometimes.
func TestScrollFeedNoSleep(t *testing.T) {
	for round := 0; round < 3; round++ {
		expect(t, `open "{{ base }}/infinite.html"
wait "article.post"
seen = 0
while !page.exists("#end") && page.count("article.post") > seen {
  seen = page.count("article.post")
  scroll "bottom"
  wait until: (page.count("article.post") > seen || page.exists("#end")) timeout: 3s optional: true
}
r = text "#result"
return [page.count("article.post"), r]`, `[35,"complete:35"]`)
	}
}
