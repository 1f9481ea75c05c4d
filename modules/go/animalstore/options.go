package animalstore

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/testcontainers/testcontainers-go"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// bearerToken is what the sandbox accepts as an API key or admin token (RFC 6750's token68).
var bearerToken = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]+=*$`)

type options struct {
	seed       *uint32
	seedCount  *int // nil: the sandbox's default
	apiKey     string
	adminToken string
	fixtures   string
	inMemory   bool
}

// defaultOptions are a start's settings before its options. The sandbox listens on every
// interface in the container, where it turns its control API off rather than open it with the
// published default token: each start brings a random token of its own.
func defaultOptions() options {
	return options{apiKey: control.DefaultAPIKey, adminToken: rand.Text()}
}

// Compiler check to ensure that Option implements the testcontainers.ContainerCustomizer interface.
var _ testcontainers.ContainerCustomizer = (Option)(nil)

// Option is an option of the Animal Store sandbox container. Run checks every one before it
// creates a container.
type Option func(*options) error

// Customize is a NOOP. It's defined to satisfy the testcontainers.ContainerCustomizer interface.
func (o Option) Customize(*testcontainers.GenericContainerRequest) error {
	// NOOP to satisfy interface.
	return nil
}

// WithSeed generates the initial pets from this seed (SEED): the same seed gives the same pets.
func WithSeed(seed uint32) Option {
	return func(o *options) error {
		o.seed = &seed
		return nil
	}
}

// WithSeedCount sets how many pets the seed generates (SEED_COUNT). The sandbox's rules decide
// what it takes: one it refuses fails Run with its message.
func WithSeedCount(count int) Option {
	return func(o *options) error {
		o.seedCount = &count
		return nil
	}
}

// WithAPIKey sets the one API key the sandbox accepts (API_KEYS) instead of control.DefaultAPIKey.
func WithAPIKey(key string) Option {
	return func(o *options) error {
		// Checked here, as the sandbox would: an empty key or one with a comma (the list's
		// separator) would otherwise configure other keys than this one.
		if !bearerToken.MatchString(key) {
			return errors.New("API key must be a bearer token: letters, digits and -._~+/, then =, and no comma")
		}
		o.apiKey = key
		return nil
	}
}

// WithAdminToken sets the control API's token (ADMIN_TOKEN) instead of the random one each start
// generates. It must differ from the API key.
func WithAdminToken(token string) Option {
	return func(o *options) error {
		if !bearerToken.MatchString(token) {
			return errors.New("admin token must be a bearer token: letters, digits and -._~+/, then =")
		}
		o.adminToken = token
		return nil
	}
}

// WithFixtures loads the initial pets from this JSON file of pets on the host: it is copied into
// the container and named by FIXTURES. It excludes WithSeed and WithSeedCount.
func WithFixtures(path string) Option {
	return func(o *options) error {
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("fixtures: %s is not a regular file", path)
		}
		o.fixtures = path
		return nil
	}
}

// WithInMemory keeps the data in memory only (DATA_FILE=:memory:) instead of the container's /data
// volume: a faster start and no volume to clean.
func WithInMemory() Option {
	return func(o *options) error {
		o.inMemory = true
		return nil
	}
}

// validate checks what the options mean together.
func (o *options) validate() error {
	if o.fixtures != "" && (o.seed != nil || o.seedCount != nil) {
		return errors.New("WithFixtures and WithSeed/WithSeedCount both choose the initial data: use one of them")
	}
	// One must never open the other's door: the sandbox refuses to start when they are equal.
	if o.adminToken == o.apiKey {
		return errors.New("admin token must differ from the API key")
	}
	return nil
}
