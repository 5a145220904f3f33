package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"testing"
)

func TestShrink(t *testing.T) {
	data, err := os.ReadFile("testdata/shot.png")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ maxW, wantW int }{{640, 640}, {4000, 1280}} {
		jpg, err := Shrink(data, c.maxW, 60)
		if err != nil {
			t.Fatal(err)
		}
		img, format, err := image.Decode(bytes.NewReader(jpg))
		if err != nil || format != "jpeg" || img.Bounds().Dx() != c.wantW || img.Bounds().Dy() != 720*c.wantW/1280 {
			t.Fatalf("Shrink(%d): %s %v %v", c.maxW, format, img.Bounds(), err)
		}
	}
	if _, err := Shrink([]byte("not an image"), 640, 60); err == nil {
		t.Fatal("Shrink accepted garbage")
	}
}

func BenchmarkShrink(b *testing.B) {
	data, err := os.ReadFile("testdata/shot.png")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			png.Decode(bytes.NewReader(data))
		}
	})
	for _, w := range []int{640, 1280} {
		b.Run("w"+string(rune('0'+w/640)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Shrink(data, w, 60); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
