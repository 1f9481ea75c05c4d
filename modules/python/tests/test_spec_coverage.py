"""The control client against the control API's spec: fails when they drift apart."""

import inspect
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from animal_store_testcontainers.control import ControlClient

# The module lives in modules/python of the sandbox's repository, whose spec/ holds the contract.
MODULE = Path(__file__).resolve().parents[1]
SPEC = (MODULE / "../../spec/admin.openapi.yaml").resolve()
HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def load_operations() -> dict[str, dict[str, Any]]:
    """Every operation of the spec by operationId, with its parameters and body."""
    spec = yaml.safe_load(SPEC.read_text())
    operations = {}
    for item in spec["paths"].values():
        shared = item.get("parameters", [])
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            parameters = [resolve(spec, parameter) for parameter in shared + operation.get("parameters", [])]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            operations[operation["operationId"]] = {
                "parameters": parameters,
                "body_properties": body_properties(spec, body) if body else set(),
            }
    return operations


def resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follows a reference inside this file; other files' schemas are not needed here."""
    reference = node.get("$ref")
    if reference is None or not reference.startswith("#/"):
        return node
    for part in reference[2:].split("/"):
        spec = spec[part]
    return spec


def body_properties(spec: dict[str, Any], schema: dict[str, Any]) -> set[str]:
    schema = resolve(spec, schema)
    names = set(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        names |= body_properties(spec, part)
    return names


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


SPEC_OPERATIONS = load_operations()


@pytest.mark.parametrize("operation_id", sorted(SPEC_OPERATIONS))
def test_the_client_has_the_operation_with_every_parameter_of_the_spec(operation_id: str) -> None:
    """Each method's route is checked where test_control.py calls it against a sandbox."""
    spec = SPEC_OPERATIONS[operation_id]
    method = getattr(ControlClient, snake_case(operation_id), None)
    assert callable(method), f"ControlClient has no {snake_case(operation_id)}() for {operation_id}"
    arguments = set(inspect.signature(method).parameters) - {"self"}
    query = {parameter["name"] for parameter in spec["parameters"] if parameter["in"] == "query"}
    expected = {snake_case(name) for name in (query - {"namespace"}) | spec["body_properties"]}
    missing = expected - arguments
    assert not missing, f"{snake_case(operation_id)}() lacks {sorted(missing)} of the spec"


def test_admin_types_is_what_datamodel_codegen_makes_of_the_spec_now(tmp_path: Path) -> None:
    # The settings in pyproject.toml, another output file.
    generated = tmp_path / "admin_types.py"
    command = [sys.executable, "-m", "datamodel_code_generator", "--output", str(generated)]
    subprocess.run(command, cwd=MODULE, check=True, capture_output=True)
    committed = MODULE / "src/animal_store_testcontainers/admin_types.py"
    assert generated.read_text() == committed.read_text(), "run `datamodel-codegen` in modules/python"
