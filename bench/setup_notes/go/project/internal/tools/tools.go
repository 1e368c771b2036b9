//go:build tools

// Package tools pins code generators used by go generate.
package tools

import (
	_ "golang.org/x/tools/cmd/stringer"
)
