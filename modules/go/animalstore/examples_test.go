package animalstore_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore"
	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api"
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
