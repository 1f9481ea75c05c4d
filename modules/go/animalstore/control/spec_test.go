package control_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control"
)

// specPath is the control API's contract, from this package's folder.
const specPath = "../../../../spec/admin.openapi.yaml"

type specSchema struct {
	Ref        string                `yaml:"$ref"`
	Properties map[string]specSchema `yaml:"properties"`
}

type specOperation struct {
	OperationID string `yaml:"operationId"`
	Parameters  []struct {
		Ref  string `yaml:"$ref"`
		Name string `yaml:"name"`
		In   string `yaml:"in"`
	} `yaml:"parameters"`
	RequestBody struct {
		Content map[string]struct {
			Schema specSchema `yaml:"schema"`
		} `yaml:"content"`
	} `yaml:"requestBody"`
}

// Every operation of the control API's spec has its method on Client, named after its
// operationId, with a context first and an error last; and every query parameter and body field
// of it is sent by name somewhere in the package (the client or the generated types). A new
// operation or parameter fails here until the client has it.
func TestClientCoversEveryOperationOfTheSpec(t *testing.T) {
	content, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatalf("read the spec: %v", err)
	}
	var spec struct {
		Paths      map[string]map[string]specOperation `yaml:"paths"`
		Components struct {
			Schemas    map[string]specSchema `yaml:"schemas"`
			Parameters map[string]struct {
				Name string `yaml:"name"`
				In   string `yaml:"in"`
			} `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(content, &spec); err != nil {
		t.Fatalf("parse the spec: %v", err)
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var source strings.Builder
	for _, name := range sources {
		if !strings.HasSuffix(name, "_test.go") {
			code, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			source.Write(code)
		}
	}
	sent := func(name string) bool {
		return strings.Contains(source.String(), `"`+name+`"`) || strings.Contains(source.String(), `json:"`+name+`,`)
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

			var fields []string
			for _, parameter := range operation.Parameters {
				if parameter.Ref != "" {
					shared := spec.Components.Parameters[strings.TrimPrefix(parameter.Ref, "#/components/parameters/")]
					parameter.Name, parameter.In = shared.Name, shared.In
				}
				if parameter.In == "query" {
					fields = append(fields, parameter.Name)
				}
			}
			body := operation.RequestBody.Content["application/json"].Schema
			if strings.HasPrefix(body.Ref, "#/components/schemas/") {
				body = spec.Components.Schemas[strings.TrimPrefix(body.Ref, "#/components/schemas/")]
			}
			for property := range body.Properties {
				fields = append(fields, property)
			}
			for _, field := range fields {
				if !sent(field) {
					t.Errorf("Client.%s never sends %q of operation %s", name, field, operation.OperationID)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("the spec has no operation: is it the control API's?")
	}
}
