package animalstore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's Go snippets are the bodies of the examples, which go test runs, or lines of
// control_test.go, tls_test.go, bundle_test.go or await_test.go: a snippet that drifts from its code fails here. A snippet that
// starts with its file's name (the end-of-suite check) is a suite of its own, which
// test/container/consumers.test.ts runs as a user would.
func TestREADMESnippetsAreExamples(t *testing.T) {
	source, err := os.ReadFile("examples_test.go")
	require.NoError(t, err)
	file, err := parser.ParseFile(token.NewFileSet(), "examples_test.go", source, parser.ParseComments)
	require.NoError(t, err)
	examples := map[string]string{} // body → name
	for _, decl := range file.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "Example") {
			examples[exampleBody(source, fn.Body)] = fn.Name.Name
		}
	}

	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	var testLines string
	for _, name := range []string{"control_test.go", "tls_test.go", "bundle_test.go", "await_test.go"} {
		tests, err := os.ReadFile(name)
		require.NoError(t, err)
		// Lines of a test's body (a tab in), or of a subtest's (two).
		for _, indent := range []string{"\t", "\t\t"} {
			testLines += regexp.MustCompile(`(?m)^`+indent).ReplaceAllString(string(tests), "")
		}
	}
	var shown []string
	for _, snippet := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1) {
		if regexp.MustCompile(`^// \w+\.go:`).Match(snippet[1]) {
			continue
		}
		name, ok := examples[string(snippet[1])]
		require.True(t, ok || strings.Contains(testLines, string(snippet[1])),
			"this README snippet is no example's body, nor lines of control_test.go, tls_test.go, bundle_test.go or await_test.go:\n%s", snippet[1])
		shown = append(shown, name)
	}
	require.Contains(t, shown, "ExampleRun")
}

// exampleBody is the code between an example's braces, one tab less indented, as a README shows it.
func exampleBody(source []byte, body *ast.BlockStmt) string {
	// Offsets: the file set holds this one file, whose base is 1.
	inner := strings.Trim(string(source[body.Lbrace:body.Rbrace-1]), "\n")
	lines := strings.Split(inner, "\n")
	for i, line := range lines {
		lines[i] = strings.TrimPrefix(line, "\t")
	}
	return strings.Join(lines, "\n") + "\n"
}
