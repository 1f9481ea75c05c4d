package animalstore_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// childEnv runs TestBundle_child, which fails on purpose, in a test binary of its own.
const childEnv = "ANIMAL_STORE_BUNDLE_CHILD"

// The sandbox's command, built by `npm run build` at the repository's root.
var sandboxCLI = filepath.Join("..", "..", "..", "dist", "cli.js")

func TestBundle_failingTestLeavesItsBundleAndReplaysToTheSameAnswers(t *testing.T) {
	requireDocker(t)
	out := t.TempDir()
	child := exec.CommandContext(t.Context(), os.Args[0],
		"-test.run=^TestBundle_child$", "-test.v", "-test.count=1", "-test.outputdir="+out)
	child.Env = append(os.Environ(), childEnv+"=1")
	output, err := child.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the child test must fail:\n%s", output)
	require.Contains(t, string(output), "--- PASS: TestBundle_child/lists_pets")
	require.Contains(t, string(output), "--- FAIL: TestBundle_child/reads_a_missing_pet")

	files, err := filepath.Glob(filepath.Join(out, "*.bundle.json"))
	require.NoError(t, err)
	path := filepath.Join(out, "TestBundle_child_reads_a_missing_pet.bundle.json")
	require.Equal(t, []string{path}, files, "the failing test's bundle alone:\n%s", output)

	var bundle struct {
		Format  string `json:"format"`
		Journal struct {
			Entries []struct {
				OperationID string `json:"operationId"`
				Status      int    `json:"status"`
			} `json:"entries"`
		} `json:"journal"`
	}
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(text, &bundle))
	require.Equal(t, "animal-store-sandbox.bundle", bundle.Format)
	var calls []string
	for _, entry := range bundle.Journal.Entries {
		calls = append(calls, entry.OperationID+" "+http.StatusText(entry.Status))
	}
	require.Equal(t, []string{"createPet Created", "getPet Not Found"}, calls)

	_, err = os.Stat(sandboxCLI)
	require.NoError(t, err, "the replay needs the sandbox built: npm run build at the repository's root")
	replay, err := exec.CommandContext(t.Context(), "node", sandboxCLI, "replay", path).CombinedOutput()
	require.NoError(t, err, "%s", replay)
	require.True(t, strings.Contains(string(replay), "Replayed 2 of 2 requests"), "%s", replay)
}

// TestBundle_child is the suite the test above runs: one subtest passes, one fails.
func TestBundle_child(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run by TestBundle_failingTestLeavesItsBundleAndReplaysToTheSameAnswers")
	}
	t.Run("lists pets", func(t *testing.T) {
		admin, name := testNamespace(t, "")
		admin.SaveBundleOnFailure(t, name)
		listed, _ := callAPI(t, name, http.MethodGet, "/pets", nil)
		require.Equal(t, http.StatusOK, listed.StatusCode)
	})
	t.Run("reads a missing pet", func(t *testing.T) {
		admin, name := testNamespace(t, "")
		admin.SaveBundleOnFailure(t, name) // if the test fails: <TestName>.bundle.json, at its end
		created, _ := callAPI(t, name, http.MethodPost, "/pets", map[string]any{"name": "Tortoise", "categoryId": 1})
		require.Equal(t, http.StatusCreated, created.StatusCode)
		read, _ := callAPI(t, name, http.MethodGet, "/pets/999999", nil)
		require.Equal(t, http.StatusOK, read.StatusCode, "the pet the test expects is not there")
	})
}
