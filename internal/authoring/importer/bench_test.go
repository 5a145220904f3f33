package importer

import (
	"bytes"
	"fmt"
	"testing"
)

// bigRecording is a compact Chrome Recorder recording of n steps (a
// viewport, a navigation, then clicks, changes and Tab presses in turn):
// 300,000 steps are about 13 MB, the size of the recording a tester
// imported.
func bigRecording(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"title":"Big recording","steps":[{"type":"setViewport","width":1280,"height":720,"deviceScaleFactor":1,"isMobile":false,"hasTouch":false,"isLandscape":false},{"type":"navigate","url":"https://shop.example.com/"}`)
	for i := 2; i < n; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `,{"type":"click","selectors":[["#item-%d > a"]]}`, i)
		case 1:
			fmt.Fprintf(&b, `,{"type":"change","value":"value %d","selectors":[["#f%d"]]}`, i, i%100)
		case 2:
			b.WriteString(`,{"type":"keyDown","key":"Tab"}`)
		case 3:
			b.WriteString(`,{"type":"keyUp","key":"Tab"}`)
		}
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// BenchmarkImportLarge imports a 300,000-step recording and renders it
// as checked .flow text (what `rpa import` does): see its B/op and
// allocs/op.
func BenchmarkImportLarge(b *testing.B) {
	src := bigRecording(300000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		flows, ds := Import("big.json", src, Options{})
		if ds.HasErrors() {
			b.Fatal(ds)
		}
		if _, err := Texts(flows); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportOnly is BenchmarkImportLarge without the rendering and
// loading back: the importer's own cost.
func BenchmarkImportOnly(b *testing.B) {
	src := bigRecording(300000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ds := Import("big.json", src, Options{}); ds.HasErrors() {
			b.Fatal(ds)
		}
	}
}
