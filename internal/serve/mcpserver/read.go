package mcpserver

import (
	"context"

	"github.com/rpa-dev/rpa/drivers"
)

// readPage reads what browser_read's action names (the authoring tools'
// read too): the element el when given, else the whole page. text, html
// and form read as the `text`, `html` and `form` actions do; url is the
// page's; table (el required) is the `table` action's header: "grid"
// shape. Other actions, screenshot among them (an image, not a value), are
// the caller's: readPage returns nil, nil for them.
func readPage(ctx context.Context, action string, pg drivers.Page, el drivers.Element) (any, error) {
	switch action {
	case "text":
		if el != nil {
			return el.Text(ctx)
		}
		return pg.Text(ctx)
	case "html":
		if el != nil {
			return el.HTML(ctx)
		}
		return pg.HTML(ctx)
	case "url":
		return pg.URL(ctx)
	case "form":
		if el != nil {
			return el.Form(ctx)
		}
		return pg.Form(ctx)
	case "table":
		g, err := el.Table(ctx)
		if err != nil {
			return nil, err
		}
		return gridTable(g), nil
	}
	return nil, nil
}
