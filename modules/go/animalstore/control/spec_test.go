package control_test

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

type specParameter struct {
	Ref  string `yaml:"$ref"`
	Name string `yaml:"name"`
	In   string `yaml:"in"`
}

// Every operation of the control API's spec has its method on Client, named after its
// operationId, with a context first and an error last; one with query parameters besides the
// namespace takes their generated type, *<Operation>Params, which types_test.go holds to the
// spec. A new operation or query parameter fails here until the client has it.
func TestClientCoversEveryOperationOfTheSpec(t *testing.T) {
	content, err := os.ReadFile("../../../../spec/admin.openapi.yaml")
	if err != nil {
		t.Fatalf("read the spec: %v", err)
	}
	var spec struct {
		Paths map[string]map[string]struct {
			OperationID string          `yaml:"operationId"`
			Parameters  []specParameter `yaml:"parameters"`
		} `yaml:"paths"`
		Components struct {
			Parameters map[string]specParameter `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(content, &spec); err != nil {
		t.Fatalf("parse the spec: %v", err)
	}

	client := reflect.TypeFor[*control.Client]()
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
			if kind.NumIn() < 2 || kind.In(1) != reflect.TypeFor[context.Context]() || kind.Out(kind.NumOut()-1) != reflect.TypeFor[error]() {
				t.Errorf("Client.%s is %s: it must take a context.Context first and return an error last", name, kind)
			}
			queried := slices.ContainsFunc(operation.Parameters, func(parameter specParameter) bool {
				if parameter.Ref != "" {
					parameter = spec.Components.Parameters[strings.TrimPrefix(parameter.Ref, "#/components/parameters/")]
				}
				return parameter.In == "query" && parameter.Name != "namespace"
			})
			takesParams := false
			for i := range kind.NumIn() {
				in := kind.In(i)
				takesParams = takesParams || (in.Kind() == reflect.Pointer && in.Elem().Name() == name+"Params")
			}
			if queried && !takesParams {
				t.Errorf("Client.%s does not take *control.%sParams: the query parameters of operation %s", name, name, operation.OperationID)
			}
		}
	}
	if found == 0 {
		t.Fatal("the spec has no operation: is it the control API's?")
	}
}
