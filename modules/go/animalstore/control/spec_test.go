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

// schemaObject is a schema of the spec, as far as the field check reads it.
type schemaObject struct {
	Properties map[string]schemaObject `yaml:"properties"`
}

// The answers' types carry every field the spec gives them: a field the server gains fails here
// until its type has it (encoding/json would drop it without a word).
func TestTypesCarryEverySpecField(t *testing.T) {
	content, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatalf("read the spec: %v", err)
	}
	var spec struct {
		Components struct {
			Schemas map[string]schemaObject `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(content, &spec); err != nil {
		t.Fatalf("parse the spec: %v", err)
	}
	schemas := spec.Components.Schemas

	for _, check := range []struct {
		schema schemaObject
		name   string
		goType reflect.Type
	}{
		{schemas["CoverageReport"], "CoverageReport", reflect.TypeFor[control.CoverageReport]()},
		{schemas["CoverageReport"].Properties["summary"], "CoverageReport.summary", reflect.TypeFor[control.CoverageSummary]()},
		{schemas["OperationCoverage"], "OperationCoverage", reflect.TypeFor[control.OperationCoverage]()},
		{schemas["ResponseCoverage"], "ResponseCoverage", reflect.TypeFor[control.ResponseCoverage]()},
		{schemas["ParameterCoverage"], "ParameterCoverage", reflect.TypeFor[control.ParameterCoverage]()},
		{schemas["DeprecatedCall"], "DeprecatedCall", reflect.TypeFor[control.DeprecatedCall]()},
		{schemas["UnstableCall"], "UnstableCall", reflect.TypeFor[control.UnstableCall]()},
		{schemas["VerifyResult"], "VerifyResult", reflect.TypeFor[control.VerifyResult]()},
		{schemas["ExpectationResult"], "ExpectationResult", reflect.TypeFor[control.ExpectationResult]()},
		{schemas["EntrySummary"], "EntrySummary", reflect.TypeFor[control.EntrySummary]()},
		{schemas["Difference"], "Difference", reflect.TypeFor[control.Difference]()},
		{schemas["JournalEntry"], "JournalEntry", reflect.TypeFor[control.JournalEntry]()},
		{schemas["JournalPage"], "JournalPage", reflect.TypeFor[control.JournalPage]()},
		{schemas["Snapshot"], "Snapshot", reflect.TypeFor[control.Snapshot]()},
		{schemas["Clock"], "Clock", reflect.TypeFor[control.Clock]()},
		{schemas["StateSummary"], "StateSummary", reflect.TypeFor[control.StateSummary]()},
	} {
		if len(check.schema.Properties) == 0 {
			t.Errorf("the spec has no properties for %s: is it still there?", check.name)
			continue
		}
		fields := map[string]bool{}
		for i := range check.goType.NumField() {
			fields[strings.Split(check.goType.Field(i).Tag.Get("json"), ",")[0]] = true
		}
		for property := range check.schema.Properties {
			if !fields[property] {
				t.Errorf("%s has no field for %s's %q", check.goType, check.name, property)
			}
		}
	}
}
