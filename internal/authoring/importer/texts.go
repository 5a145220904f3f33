package importer

import (
	"fmt"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

// TextError is an imported flow whose canonical text does not check (an
// importer bug): the text and its diagnostics.
type TextError struct {
	Name string
	Text []byte
	Diag diag.Diagnostics
}

func (e *TextError) Error() string {
	return fmt.Sprintf("the flow %s imported does not check: %v", e.Name, e.Diag)
}

// Texts renders each flow as canonical .flow text (format.Flow) and loads
// it back with lang.Load, so nothing is written that rpa would refuse. The
// first flow that does not check is a *TextError; no texts are returned
// then.
func Texts(flows []*Flow) ([][]byte, error) {
	texts := make([][]byte, len(flows))
	for i, f := range flows {
		texts[i] = format.Flow(f.File)
		if _, ds := lang.Load(f.Name+".flow", texts[i]); ds.HasErrors() {
			return nil, &TextError{Name: f.Name, Text: texts[i], Diag: ds}
		}
	}
	return texts, nil
}
