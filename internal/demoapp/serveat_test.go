package demoapp

import (
	"context"
	"net/http"
	"testing"
)

func TestServeUntil(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	urls := make(chan string, 1)
	go func() { done <- ServeUntil(ctx, "127.0.0.1:0", Options{}, func(u string) { urls <- u }) }()
	u := <-urls
	resp, err := http.Get(u + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		t.Errorf("GET /: %s", resp.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeUntil: %v", err)
	}
	if err := ServeUntil(context.Background(), "256.0.0.1:x", Options{}, func(string) {}); err == nil {
		t.Error("bad address served")
	}
}
