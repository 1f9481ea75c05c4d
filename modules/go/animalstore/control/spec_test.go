package control_test

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// specPath is the control API's contract, from this package's folder.
const specPath = "../../../../spec/admin.openapi.yaml"

// Every operation of the control API's spec has its method on Client, named after its
// operationId, with a context first and an error last: a new operation fails here until the
// client has it.
func TestClientCoversEveryOperationOfTheSpec(t *testing.T) {
	content, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatalf("read the spec: %v", err)
	}
	var spec struct {
		Paths map[string]map[string]struct {
			OperationID string `yaml:"operationId"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(content, &spec); err != nil {
		t.Fatalf("parse the spec: %v", err)
	}

	client := reflect.TypeFor[*control.Client]()
	contextType := reflect.TypeFor[context.Context]()
	errorType := reflect.TypeFor[error]()
	var found int
	for path, operations := range spec.Paths {
		for verb, operation := range operations {
			if operation.OperationID == "" {
				continue // a path-level key such as parameters, not an operation
			}
			found++
			name := strings.ToUpper(operation.OperationID[:1]) + operation.OperationID[1:]
			method, ok := client.MethodByName(name)
			if !ok {
				t.Errorf("%s %s: Client has no method %s for operation %s", strings.ToUpper(verb), path, name, operation.OperationID)
				continue
			}
			kind := method.Type // the receiver is its first parameter
			if kind.NumIn() < 2 || kind.In(1) != contextType || kind.NumOut() == 0 || kind.Out(kind.NumOut()-1) != errorType {
				t.Errorf("Client.%s is %s: it must take a context.Context first and return an error last", name, kind)
			}
		}
	}
	if found == 0 {
		t.Fatal("the spec has no operation: is it the control API's?")
	}
}
