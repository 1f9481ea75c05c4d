package control_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed types.gen.go of both packages are what `go generate` makes from the specs now:
// each package's go:generate line, run again with its output in a temporary file.
func TestGeneratedTypesAreUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs oapi-codegen")
	}
	for _, dir := range []string{".", "../api"} {
		source, err := os.ReadFile(filepath.Join(dir, "generate.go"))
		require.NoError(t, err)
		args := strings.Fields(regexp.MustCompile(`(?m)^//go:generate (.+)$`).FindStringSubmatch(string(source))[1])
		generated := filepath.Join(t.TempDir(), "types.gen.go")
		args[slices.Index(args, "-o")+1] = generated
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		output, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", output)

		want, err := os.ReadFile(generated)
		require.NoError(t, err)
		committed, err := os.ReadFile(filepath.Join(dir, "types.gen.go"))
		require.NoError(t, err)
		require.Equal(t, string(want), string(committed), "%s/types.gen.go is not what the spec makes: run go generate ./... in modules/go", dir)
	}
}
