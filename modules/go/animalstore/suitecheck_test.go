package animalstore_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// suiteCheck is the README's end-of-suite check, its blocks as files (readme_test.go holds them
// equal): a suite of its own, which go test ./... leaves out (testdata).
const suiteCheck = "testdata/suitecheck"

// The suite passes when it called listOrders, in a namespace deleted since, and fails the run, no
// test failing, without orders_test.go.
func TestSuiteCheck_failsTheRunWhenAResponseIsNeverExercised(t *testing.T) {
	requireDocker(t)
	if testing.Short() {
		t.Skip("runs go test twice")
	}
	goTest := func(packageOrFiles string) (string, error) {
		cmd := exec.Command("go", "test", "-count=1", "-v", packageOrFiles)
		cmd.Env = append(os.Environ(), "ANIMAL_STORE_IMAGE="+sandboxImage)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := goTest("./" + suiteCheck)
	require.NoError(t, err, "the suite that called listOrders passes:\n%s", out)
	require.Contains(t, out, "--- PASS: TestListOrders")

	// The package without orders_test.go: go test given its one other file.
	out, err = goTest("./" + suiteCheck + "/main_test.go")
	require.Error(t, err, "the suite that did not call listOrders fails:\n%s", out)
	require.NotContains(t, out, "--- FAIL")
	require.Contains(t, out, "PASS\nend-of-suite check failed: documented responses never exercised (every namespace):\n- listOrders (GET /v1/store/orders): default\n")
	require.True(t, strings.HasSuffix(strings.TrimSpace(out), "FAIL"), "go test says FAIL:\n%s", out)
}
