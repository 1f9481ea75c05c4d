// Package suitecheck is the README's end-of-suite check, run as a suite of its own: TestMain starts
// one sandbox, the tests each work in a namespace they delete when done, and after m.Run the
// coverage of the whole run (every call counted, those of deleted namespaces too) must show
// listOrders exercised, or TestMain exits 1. SUITECHECK_SKIP_ORDERS=1 leaves the call out, to show
// the run failing while every test passes.
// A suite of your own keeps TestMain without the SUITECHECK_RUN guard.
package suitecheck

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// covered are the operations the suite claims to cover: every documented response of each exercised.
var covered = []string{"listOrders"}

var client *control.Client

func TestMain(m *testing.M) {
	// Run by TestSuiteCheck_failsTheRunWhenAResponseIsNeverExercised, which needs Docker, not by go test ./... on its own.
	if os.Getenv("SUITECHECK_RUN") != "1" {
		os.Exit(0)
	}
	ctx := context.Background()
	image := cmp.Or(os.Getenv("ANIMAL_STORE_IMAGE"), animalstore.DefaultImage)
	ctr, err := animalstore.Run(ctx, image, animalstore.WithInMemory())
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the sandbox:", err)
		os.Exit(1)
	}
	client, err = ctr.Control(ctx)
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, "the control client:", err)
	} else {
		code = m.Run()
	}
	if err := suiteCovered(ctx); client != nil && err != nil {
		fmt.Fprintln(os.Stderr, "end-of-suite check failed:", err)
		code = cmp.Or(code, 1)
	}
	if err := testcontainers.TerminateContainer(ctr); err != nil {
		fmt.Fprintln(os.Stderr, "stop the sandbox:", err)
		code = cmp.Or(code, 1)
	}
	os.Exit(code)
}

// suiteCovered checks the run's coverage: no testing.TB here, so an error.
func suiteCovered(ctx context.Context) error {
	report, err := client.GetCoverage(ctx, control.AllNamespaces())
	if err != nil {
		return err
	}
	return report.AllResponsesExercised(covered...)
}

// namespace is a namespace of the test's own, deleted when the test ends.
func namespace(t *testing.T) *control.Client {
	ns := client.Namespace(t.Name())
	if _, err := ns.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := client.DeleteNamespace(context.Background(), t.Name()); err != nil {
			t.Error(err)
		}
	})
	return ns
}

func get(t *testing.T, ns *control.Client, path string) int {
	req, err := http.NewRequest(http.MethodGet, ns.BaseURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = ns.Header()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestPets(t *testing.T) {
	ns := namespace(t)
	if status := get(t, ns, "/pets"); status != http.StatusOK {
		t.Fatalf("listPets: %d", status)
	}
}

func TestOrders(t *testing.T) {
	ns := namespace(t)
	if os.Getenv("SUITECHECK_SKIP_ORDERS") == "1" {
		return
	}
	if status := get(t, ns, "/store/orders"); status != http.StatusNotImplemented {
		t.Fatalf("listOrders: %d", status)
	}
}
