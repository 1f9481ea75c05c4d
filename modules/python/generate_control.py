"""Makes the control API's client, src/animal_store_testcontainers/control_api/, from the spec:
``python generate_control.py`` in this folder, with the test extras installed (openapi-python-client
and ruff, at the versions pyproject.toml pins). tests/test_generated.py checks the committed client
is what this makes now.

openapi-python-client reads one file, so the schemas the control API's spec takes from the API's
(``./openapi.yaml#/components/schemas/…``) are copied into it first, with those they refer to.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SPEC = HERE.parent.parent / "spec" / "admin.openapi.yaml"
OUTPUT = HERE / "src" / "animal_store_testcontainers" / "control_api"
LOCAL, EXTERNAL = "#/components/schemas/", "./openapi.yaml#/components/schemas/"


def bundled_spec() -> dict[str, Any]:
    """The control API's spec with the API's schemas it refers to in its own components."""
    spec = yaml.safe_load(SPEC.read_text())
    api = yaml.safe_load((SPEC.parent / "openapi.yaml").read_text())["components"]["schemas"]
    schemas = spec["components"]["schemas"]

    def walk(node: Any, of_api: bool) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, of_api)
        if not isinstance(node, dict):
            return
        ref = node.get("$ref", "")
        if ref.startswith(EXTERNAL) or (of_api and ref.startswith(LOCAL)):
            name = ref.rsplit("/", 1)[1]
            node["$ref"] = LOCAL + name
            if name not in schemas:
                schemas[name] = api[name]
                walk(api[name], True)
            elif schemas[name] != api[name]:
                raise SystemExit(f"both specs have a schema {name}, unlike each other")
        for value in node.values():
            walk(value, of_api)

    walk(spec, False)
    return spec


def generate(output: Path = OUTPUT) -> None:
    with tempfile.TemporaryDirectory() as work:
        spec = Path(work) / "admin.openapi.yaml"
        spec.write_text(yaml.safe_dump(bundled_spec(), sort_keys=False))
        config = Path(work) / "config.yaml"
        # The CA's PEM is text: its answer is then a str.
        config.write_text(yaml.safe_dump({"content_type_overrides": {"application/x-pem-file": "text/plain"}}))
        tools = Path(sys.executable).parent  # openapi-python-client formats with the ruff beside it
        environment = {
            **os.environ,
            "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}",
            "RUFF_NO_CACHE": "true",
        }
        command = [str(tools / "openapi-python-client"), "generate", "--path", str(spec), "--config", str(config)]
        # Made outside this project, so that ruff formats it with its own defaults wherever it is made.
        made = Path(work) / "control_api"
        command += ["--meta", "none", "--fail-on-warning", "--output-path", str(made)]
        subprocess.run(command, check=True, cwd=work, env=environment)
        shutil.rmtree(output, ignore_errors=True)
        shutil.copytree(made, output)


if __name__ == "__main__":
    generate()
