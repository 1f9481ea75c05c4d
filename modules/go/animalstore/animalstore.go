// Package animalstore is a Testcontainers module for the Animal Store sandbox: the Animal Store
// API served for real (bearer auth, validation from the OpenAPI contract, seeded data) for
// integration tests, with a control API to reset it, read the requests it received, inject
// faults and move its clock (see the control package).
package animalstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

const (
	// Version is this module's version, which a release tags it with (modules/go/v<Version>)
	// and publishes the sandbox's image under.
	Version = "0.1.0"
	// DefaultImage is the sandbox's image of this module's version.
	DefaultImage = "animal-store-sandbox:" + Version

	httpPort = "4010/tcp"
	// fixturesDir is where WithFixtures puts the file inside the container.
	fixturesDir = "/fixtures"
	// maxStartOutput bounds the container output that a failed start quotes.
	maxStartOutput = 4096
)

// Container is a running Animal Store sandbox.
type Container struct {
	testcontainers.Container
	apiKey     string
	adminToken string
}

// Run starts the sandbox from img and waits until GET /healthz answers 200. A sandbox that
// refuses its settings exits at once: Run then fails as soon as it notices, with the sandbox's
// own message. As with every module, the returned container may be non-nil with an error, to
// be terminated by the caller.
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	moduleOpts := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(httpPort),
		// Each start brings its own key and control token, unless an option sets them.
		testcontainers.WithEnv(map[string]string{"API_KEYS": rand.Text(), "ADMIN_TOKEN": rand.Text()}),
		// The HTTP strategy also checks at every poll that the container still runs, so an exit
		// ends the wait at once instead of at the timeout.
		testcontainers.WithWaitStrategy(wait.ForHTTP("/healthz").WithPort(httpPort)),
	}

	if err := requireImage(ctx, img); err != nil {
		return nil, err
	}
	ctr, err := testcontainers.Run(ctx, img, append(moduleOpts, opts...)...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr}
	}
	if err != nil {
		return c, fmt.Errorf("run animalstore: %w", withExitOutput(ctx, ctr, err))
	}

	// Read the credentials back from the container, whichever option set them last.
	inspect, err := ctr.Inspect(ctx)
	if err != nil {
		return c, fmt.Errorf("inspect animalstore: %w", err)
	}
	for _, entry := range inspect.Config.Env {
		name, value, _ := strings.Cut(entry, "=")
		switch name {
		case "API_KEYS":
			c.apiKey = value
		case "ADMIN_TOKEN":
			c.adminToken = value
		}
	}
	return c, nil
}

// BaseURL is the API's base URL on the host, e.g. http://localhost:32768/v1.
func (c *Container) BaseURL(ctx context.Context) (string, error) {
	sandboxURL, err := c.PortEndpoint(ctx, httpPort, "http")
	if err != nil {
		return "", fmt.Errorf("animalstore: sandbox URL: %w", err)
	}
	return sandboxURL + "/v1", nil
}

// APIKey is the key to send as "Authorization: Bearer <key>".
func (c *Container) APIKey() string {
	return c.apiKey
}

// AdminToken is the control API's token.
func (c *Container) AdminToken() string {
	return c.adminToken
}

// APIHeader returns the headers of an API request in namespace: Authorization with the API key,
// and X-Sandbox-Namespace unless namespace is "" (the default namespace).
func (c *Container) APIHeader(namespace string) http.Header {
	header := http.Header{"Authorization": {"Bearer " + c.apiKey}}
	if namespace != "" {
		header.Set(control.NamespaceHeader, namespace)
	}
	return header
}

// Control returns a client of the sandbox's control API, with its admin token.
func (c *Container) Control(ctx context.Context) (*control.ClientWithResponses, error) {
	sandboxURL, err := c.PortEndpoint(ctx, httpPort, "http")
	if err != nil {
		return nil, fmt.Errorf("animalstore: sandbox URL: %w", err)
	}
	return control.New(sandboxURL, c.adminToken)
}

// requireImage uses the engine's image, or pulls it once as testcontainers would; one that is
// neither there nor pullable fails here, before anything is created, naming it and how to get it
// (testcontainers' own error is the engine's, with nothing of what to do).
func requireImage(ctx context.Context, img string) error {
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return nil // Run reports an engine it cannot reach
	}
	defer provider.Close()
	if _, err := provider.Client().ImageInspect(ctx, img); err == nil || !errdefs.IsNotFound(err) {
		return nil
	}
	if err := provider.PullImage(ctx, img); err != nil {
		return fmt.Errorf("animalstore: the image %s is not on this Docker engine, and pulling it failed: %w; "+
			"build it in the sandbox's repository with `npm run image` (it tags the image :local and with the "+
			"package's version), or load a saved one with `docker load -i <file>`; or pass another image to Run", img, err)
	}
	return nil
}

// withExitOutput adds the container's output to a start error when the container has exited:
// the wait strategy reports only the exit code, and the reason (a refused setting, bad fixtures)
// is what the sandbox printed.
func withExitOutput(ctx context.Context, ctr *testcontainers.DockerContainer, startErr error) error {
	if ctr == nil {
		return startErr
	}
	state, err := ctr.State(ctx)
	if err != nil {
		return errors.Join(startErr, fmt.Errorf("container state: %w", err))
	}
	if state.Running {
		return startErr
	}
	logs, err := ctr.Logs(ctx)
	if err != nil {
		return errors.Join(startErr, fmt.Errorf("container logs: %w", err))
	}
	defer logs.Close()
	output, err := io.ReadAll(logs)
	if err != nil {
		return errors.Join(startErr, fmt.Errorf("container logs: %w", err))
	}
	if len(output) > maxStartOutput {
		output = output[len(output)-maxStartOutput:]
	}
	said := strings.TrimSpace(string(output))
	if said == "" {
		return fmt.Errorf("%w; the sandbox exited with code %d and printed nothing (docker inspect of the container may say why)", startErr, state.ExitCode)
	}
	return fmt.Errorf("%w; the sandbox said: %s", startErr, said)
}
