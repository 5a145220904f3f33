package cluster_test

import (
	"os"
	"strconv"
	"strings"
)

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "rpa-cluster-test-") }
func osRemoveAll(d string)         { os.RemoveAll(d) }
func osExit(code int)              { os.Exit(code) }
func itoa(i int) string            { return strconv.Itoa(i) }
func contains(s, sub string) bool  { return strings.Contains(s, sub) }
