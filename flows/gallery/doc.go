// Package gallery holds one flow per widget of the real component
// libraries our users' portals run (element-ui with Vue 2, element-plus
// with Vue 3, ant-design-vue, layui), each written as a user would,
// against a page per widget in testdata/gallery (the libraries' npm
// distribution files are vendored there; testdata/gallery/SOURCES.md
// lists versions, checksums and licences).
//
// Every flow takes a base_url param: where testdata/gallery is served.
// The package test serves it and checks each flow's outputs against the
// widget's expected end state in headless Chromium:
//
//	go test ./flows/gallery/
//
// By hand: serve testdata/gallery (python3 -m http.server 8000 --bind
// 127.0.0.1 --directory testdata/gallery) and
//
//	rpa run flows/gallery/elementui_cascader.flow --arg base_url=http://127.0.0.1:8000
package gallery

import "embed"

// FS holds the gallery flows (*.flow) at its root.
//
//go:embed *.flow
var FS embed.FS
