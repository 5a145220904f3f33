package record

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"

	"github.com/rpa-dev/rpa/drivers"
)

// outline draws a 3-pixel red frame around box (CSS pixels; the driver's
// viewport has a device scale factor of 1) on the PNG data.
func outline(data []byte, box drivers.Box) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := src.Bounds()
	img := image.NewRGBA(b)
	draw.Draw(img, b, src, b.Min, draw.Src)
	red := image.NewUniform(color.RGBA{R: 230, G: 20, B: 40, A: 255})
	const w = 3
	x0, y0 := int(box.X)-w, int(box.Y)-w
	x1, y1 := int(box.X+box.W)+w, int(box.Y+box.H)+w
	for _, r := range []image.Rectangle{
		image.Rect(x0, y0, x1, y0+w), image.Rect(x0, y1-w, x1, y1),
		image.Rect(x0, y0, x0+w, y1), image.Rect(x1-w, y0, x1, y1),
	} {
		draw.Draw(img, r.Intersect(b), red, image.Point{}, draw.Src)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, img); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// readShot reads screenshots/NAME of a run folder.
func readShot(dir, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, "screenshots", name))
}
