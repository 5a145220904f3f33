package yamlflow

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// CountComments counts the comment lines of a YAML source (0 when it does
// not parse as YAML): what a YAML flow loses when it is parsed and written
// again (Write keeps no comments).
func CountComments(src []byte) int {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil {
		return 0
	}
	n := 0
	var walk func(*yaml.Node)
	walk = func(nd *yaml.Node) {
		for _, c := range []string{nd.HeadComment, nd.LineComment, nd.FootComment} {
			for _, line := range strings.Split(c, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "#") {
					n++
				}
			}
		}
		for _, ch := range nd.Content {
			walk(ch)
		}
	}
	walk(&doc)
	return n
}
