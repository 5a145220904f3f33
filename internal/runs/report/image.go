package report

import (
	"bytes"
	"image"
	"image/jpeg"
	_ "image/png" // decode screenshots

	xdraw "golang.org/x/image/draw"
)

// Shrink decodes a PNG or JPEG image, scales it down to at most maxW
// pixels wide (never up) and encodes it as JPEG at quality q (1-100).
func Shrink(data []byte, maxW, q int) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := src.Bounds()
	dst := src
	if b.Dx() > maxW && maxW > 0 {
		h := b.Dy() * maxW / b.Dx()
		img := image.NewRGBA(image.Rect(0, 0, maxW, h))
		xdraw.ApproxBiLinear.Scale(img, img.Bounds(), src, b, xdraw.Src, nil)
		dst = img
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: q}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
