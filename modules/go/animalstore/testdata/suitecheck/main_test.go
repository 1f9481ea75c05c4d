// main_test.go: one sandbox for the whole suite, and the end-of-suite check.

package pets

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// client is the control API of the suite's sandbox: each test works in a namespace of its own.
var client *control.Client

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

// runSuite returns the run's exit code, the sandbox stopped: os.Exit would skip its defer.
func runSuite(m *testing.M) int {
	ctx := context.Background()
	img := cmp.Or(os.Getenv("ANIMAL_STORE_IMAGE"), animalstore.DefaultImage)
	ctr, err := animalstore.Run(ctx, img, animalstore.WithInMemory())
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			fmt.Fprintln(os.Stderr, "failed to terminate container:", err)
		}
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "failed to start container:", err)
		return 1
	}
	client, err = ctr.Control(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "failed to get the control client:", err)
		return 1
	}

	code := m.Run()

	// The whole run's calls, those in namespaces the tests deleted included.
	report, err := client.GetCoverage(ctx, control.AllNamespaces())
	if err == nil {
		err = report.AllResponsesExercised("listOrders")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "end-of-suite check failed:", err)
		return cmp.Or(code, 1)
	}
	return code
}
