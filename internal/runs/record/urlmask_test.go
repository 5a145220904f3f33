package record

import "testing"

// TestMaskURLCredentials: credentials a page put in its address do not
// reach the record; the rest of the address is kept as it was.
func TestMaskURLCredentials(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://app.example/cb#access_token=eyJhbGci.x.y&token_type=Bearer&state=s1", "https://app.example/cb#access_token=***&token_type=Bearer&state=s1"},
		{"https://app.example/cb?code=4%2F0Ab&state=xyz", "https://app.example/cb?code=***&state=xyz"},
		{"https://bob:hunter22@app.example/x?a=1", "https://bob:***@app.example/x?a=1"},
		{"https://s3.example/f.pdf?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc&x=1", "https://s3.example/f.pdf?X-Amz-Credential=***&X-Amz-Signature=***&x=1"},
		{"https://app.example/orders?page=2&sort=date", "https://app.example/orders?page=2&sort=date"},
		{"https://app.example/login;jsessionid=1?next=/a", "https://app.example/login;jsessionid=1?next=/a"},
		{"about:blank", "about:blank"},
		{"not a url", "not a url"},
	} {
		if got := maskURLCredentials(tc.in); got != tc.want {
			t.Errorf("maskURLCredentials(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskURLsIn(t *testing.T) {
	in := "page: \"Back\" https://app.example/cb?code=abc&state=1\n- link \"x\" /url: https://a.example/?token=t1"
	want := "page: \"Back\" https://app.example/cb?code=***&state=1\n- link \"x\" /url: https://a.example/?token=***"
	if got := maskURLsIn(in); got != want {
		t.Errorf("maskURLsIn = %q, want %q", got, want)
	}
}
