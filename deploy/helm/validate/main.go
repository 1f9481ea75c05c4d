// Command validate checks Kubernetes manifests (what `helm template` prints) against the API's own
// Go types, offline: each document is decoded strictly into the k8s.io/api type of its apiVersion
// and kind, so an unknown field, a misspelt one, a wrong type or an unknown kind fails, and then
// the fields a cluster would refuse or a rollout would trip on are checked.
//
//	helm template . | go run ./deploy/helm/validate
//	go run ./deploy/helm/validate rendered.yaml ...
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// The kinds the chart renders, by apiVersion and kind: any other is an error, not a skip.
var kinds = map[string]func() metav1.Object{
	"v1/Service":                    func() metav1.Object { return &corev1.Service{} },
	"v1/Secret":                     func() metav1.Object { return &corev1.Secret{} },
	"v1/PersistentVolumeClaim":      func() metav1.Object { return &corev1.PersistentVolumeClaim{} },
	"apps/v1/Deployment":            func() metav1.Object { return &appsv1.Deployment{} },
	"policy/v1/PodDisruptionBudget": func() metav1.Object { return &policyv1.PodDisruptionBudget{} },
}

func main() {
	inputs := []io.Reader{os.Stdin}
	if len(os.Args) > 1 {
		inputs = nil
		for _, path := range os.Args[1:] {
			file, err := os.Open(path)
			if err != nil {
				fail(err)
			}
			defer file.Close()
			inputs = append(inputs, file)
		}
	}
	var objects []metav1.Object
	problems := 0
	for _, input := range inputs {
		documents, err := split(input)
		if err != nil {
			fail(err)
		}
		for _, document := range documents {
			object, err := decode(document)
			if err != nil {
				fmt.Printf("not ok %v\n", err)
				problems++
				continue
			}
			objects = append(objects, object)
		}
	}
	for _, object := range objects {
		name := fmt.Sprintf("%s/%s", kindOf(object), object.GetName())
		errs := check(object, objects)
		for _, err := range errs {
			fmt.Printf("not ok %s: %v\n", name, err)
		}
		if len(errs) == 0 {
			fmt.Printf("ok %s\n", name)
		}
		problems += len(errs)
	}
	if len(objects) == 0 && problems == 0 {
		fail(errors.New("no manifest to validate"))
	}
	if problems > 0 {
		fmt.Printf("%d problems in %d documents\n", problems, len(objects))
		os.Exit(1)
	}
	fmt.Printf("%d documents valid\n", len(objects))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "validate:", err)
	os.Exit(2)
}

// split cuts a YAML stream into its documents, leaving out the empty ones (comments alone).
func split(input io.Reader) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(input))
	var documents [][]byte
	for {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return documents, nil
		}
		if err != nil {
			return nil, err
		}
		asJSON, err := yaml.YAMLToJSON(document)
		if err != nil {
			return nil, err
		}
		if trimmed := bytes.TrimSpace(asJSON); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
			documents = append(documents, document)
		}
	}
}

// decode reads a document into the type of its kind.
func decode(document []byte) (metav1.Object, error) {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(document, &meta); err != nil {
		return nil, err
	}
	newObject, known := kinds[meta.APIVersion+"/"+meta.Kind]
	if !known {
		return nil, fmt.Errorf("%s %s: not a kind this chart renders", meta.APIVersion, meta.Kind)
	}
	asJSON, err := yaml.YAMLToJSONStrict(document)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", meta.Kind, err)
	}
	// As the API server decodes: field names match case-sensitively (encoding/json would take
	// readOnlyRootFileSystem for readOnlyRootFilesystem), and unknown or duplicate ones are errors.
	object := newObject()
	strict, err := kjson.UnmarshalStrict(asJSON, object, kjson.DisallowUnknownFields)
	if err = errors.Join(append(strict, err)...); err != nil {
		return nil, fmt.Errorf("%s: %w", meta.Kind, err)
	}
	return object, nil
}
