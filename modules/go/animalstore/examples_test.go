package animalstore_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

func ExampleRun() {
	ctx := context.Background()

	// The image of this module's version, unless ANIMAL_STORE_IMAGE names another.
	img := cmp.Or(os.Getenv("ANIMAL_STORE_IMAGE"), animalstore.DefaultImage)
	ctr, err := animalstore.Run(ctx, img,
		animalstore.WithSeed(7),
		animalstore.WithSeedCount(3),
		animalstore.WithAPIKey("my-api-key"),
		animalstore.WithInMemory(),
	)
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			log.Printf("failed to terminate container: %s", err)
		}
	}()
	if err != nil {
		log.Printf("failed to start container: %s", err)
		return
	}

	baseURL, err := ctr.BaseURL(ctx)
	if err != nil {
		log.Printf("failed to get the base URL: %s", err)
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/pets", nil)
	if err != nil {
		log.Printf("failed to make the request: %s", err)
		return
	}
	req.Header.Set("Authorization", "Bearer "+ctr.APIKey())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Printf("failed to list the pets: %s", err)
		return
	}
	defer resp.Body.Close()

	var pets []api.Pet
	if err := json.NewDecoder(resp.Body).Decode(&pets); err != nil {
		log.Printf("failed to read the pets: %s", err)
		return
	}
	fmt.Println(resp.StatusCode, len(pets))

	// Output:
	// 200 3
}

func ExampleContainer_Control() {
	ctx := context.Background()

	img := cmp.Or(os.Getenv("ANIMAL_STORE_IMAGE"), animalstore.DefaultImage)
	ctr, err := animalstore.Run(ctx, img, animalstore.WithInMemory())
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			log.Printf("failed to terminate container: %s", err)
		}
	}()
	if err != nil {
		log.Printf("failed to start container: %s", err)
		return
	}

	admin, err := ctr.Control(ctx)
	if err != nil {
		log.Printf("failed to get the control client: %s", err)
		return
	}
	// A namespace of the test's own: its pets, journal, faults and clock, apart from other tests'.
	ns := admin.Namespace("checkout-test")
	_, err = ns.AddFault(ctx, control.NewFault{OperationID: "listPets", Status: http.StatusServiceUnavailable, Times: 1})
	if err != nil {
		log.Printf("failed to add the fault: %s", err)
		return
	}

	for range 2 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ns.BaseURL()+"/pets", nil)
		if err != nil {
			log.Printf("failed to make the request: %s", err)
			return
		}
		req.Header = ns.Header() // the API key, and X-Sandbox-Namespace
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Printf("failed to list the pets: %s", err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}

	// Output:
	// 503
	// 200
}

func ExampleContainer_Control_coverage() {
	ctx := context.Background()

	img := cmp.Or(os.Getenv("ANIMAL_STORE_IMAGE"), animalstore.DefaultImage)
	ctr, err := animalstore.Run(ctx, img, animalstore.WithInMemory())
	defer func() {
		if err := testcontainers.TerminateContainer(ctr); err != nil {
			log.Printf("failed to terminate container: %s", err)
		}
	}()
	if err != nil {
		log.Printf("failed to start container: %s", err)
		return
	}

	admin, err := ctr.Control(ctx)
	if err != nil {
		log.Printf("failed to get the control client: %s", err)
		return
	}
	ns := admin.Namespace("coverage-example")

	// The code under test: it adds a pet, then reads one through the deprecated getPet.
	for _, call := range []struct{ method, path, body string }{
		{http.MethodPost, "/pets", `{"name": "Rex", "categoryId": 3}`},
		{http.MethodGet, "/pets/1", ""},
	} {
		req, err := http.NewRequestWithContext(ctx, call.method, ns.BaseURL()+call.path, strings.NewReader(call.body))
		if err != nil {
			log.Printf("failed to make the request: %s", err)
			return
		}
		req.Header = ns.Header()
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Printf("failed to call the API: %s", err)
			return
		}
		resp.Body.Close()
	}

	// Both calls are in the journal: a request is journaled before its answer is sent.
	report, err := ns.GetCoverage(ctx, nil)
	if err != nil {
		log.Printf("failed to get the coverage report: %s", err)
		return
	}
	createPet, _ := report.Operation("createPet")
	for _, response := range createPet.Responses {
		fmt.Println(response.Label, response.Exercised)
	}
	for _, call := range report.DeprecatedCalls {
		fmt.Println(call)
	}

	result, err := ns.Verify(ctx, control.VerifyRequest{
		Strict: true,
		Expectations: []control.Expectation{
			control.Expect("createPet").Times(1).WithBody(map[string]any{"categoryId": 3}),
			control.Expect("getPet").Never(),
		},
	}, nil)
	if err != nil {
		log.Printf("failed to verify: %s", err)
		return
	}
	fmt.Println(result.Message)

	// Output:
	// 201 true
	// 400 invalid_body false
	// 400 malformed_json false
	// 400 bad_request false
	// 401 false
	// getPet (GET /v1/pets/{petId}): 1 call, sunset 2030-12-05, use /v1/pets instead
	// failed:
	// - getPet: expected exactly 0 calls of getPet, found 1: #2 GET /v1/pets/1 → 200 (getPet)
}
