package lang

import (
	"fmt"
	"os"
)

// CheckFlowFile reports why path cannot be loaded as one flow file: it
// cannot be opened (the *os.PathError), it is a folder, or its extension
// is not one Load understands (IsFlowFile). The file's content is not
// looked at, so the error has no file:line:col position.
func CheckFlowFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	f.Close()
	switch {
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s is a folder; want one flow file (.flow, .yaml or .yml)", path)
	case !IsFlowFile(path):
		return fmt.Errorf("%s: not a flow file (want .flow, .yaml or .yml)", path)
	}
	return nil
}
