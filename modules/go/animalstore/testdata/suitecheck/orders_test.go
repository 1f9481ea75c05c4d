// orders_test.go: a test in a namespace of its own, deleted when it ends.

package pets

import (
	"context"
	"net/http"
	"testing"
)

func TestListOrders(t *testing.T) {
	ns := client.Namespace(t.Name())
	if _, err := ns.Reset(t.Context()); err != nil { // the namespace, at the initial data
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Its calls still count in the run's coverage.
		if _, err := client.DeleteNamespace(context.Background(), t.Name()); err != nil {
			t.Error(err)
		}
	})

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ns.BaseURL()+"/store/orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = ns.Header() // the API key, and X-Sandbox-Namespace
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// listOrders is not specified yet: the sandbox answers its one documented response, default, with 501.
	if resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("listOrders answered %d, want 501", resp.StatusCode)
	}
}
