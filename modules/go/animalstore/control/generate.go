package control

// The types of both specs' bodies are generated: `go generate ./...` in modules/go remakes them.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../../../spec/admin.openapi.yaml
//go:generate sh -c "cd ../api && go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../../../spec/openapi.yaml"
