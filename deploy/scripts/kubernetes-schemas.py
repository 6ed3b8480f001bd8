#!/usr/bin/env python3
"""Kubernetes JSON schemas for kubeconform, made offline from what the Go module proxy serves.

  kubernetes-schemas.py api SWAGGER_JSON OUT_DIR   # k8s.io/kubernetes' api/openapi-spec/swagger.json
  kubernetes-schemas.py crd CRD_JSON OUT_DIR        # a CustomResourceDefinition as JSON

Writes OUT_DIR/{loose,strict}/<kind>-<group>-<version>.json, the names kubeconform asks for
({{ .ResourceKind }}{{ .KindSuffix }}: kind lower-case, the group's first label, the version; the core group has
none), as yannh/kubernetes-json-schema's "standalone" schemas are: integer-or-string fields take either, Quantity
strings or numbers, and in strict/ every object with properties refuses others (additionalProperties: false), as
the API server's strict field validation does. The API's kinds share one _definitions.json per directory.
"""
import copy
import json
import os
import sys

INT_OR_STRING = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
QUANTITY = {"oneOf": [{"type": "string"}, {"type": "number"}]}


def loosen(node):
    """What YAML may hold where the API takes it: int-or-string, quantities."""
    if isinstance(node, dict):
        if node.get("format") == "int-or-string" or node.get("x-kubernetes-int-or-string") is True:
            return copy.deepcopy(INT_OR_STRING)
        return {k: loosen(v) for k, v in node.items()}
    if isinstance(node, list):
        return [loosen(v) for v in node]
    return node


def strict(node):
    """additionalProperties: false on every object that lists its properties and keeps no unknown fields."""
    if isinstance(node, dict):
        out = {k: strict(v) for k, v in node.items()}
        if ("properties" in out and "additionalProperties" not in out
                and out.get("x-kubernetes-preserve-unknown-fields") is not True):
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [strict(v) for v in node]
    return node


def file_name(kind, group, version):
    prefix = group.split(".")[0] + "-" if group else ""
    return f"{kind.lower()}-{prefix}{version}.json"


def write(path, schema):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(schema, f, separators=(",", ":"))


def from_api(swagger_path, out):
    with open(swagger_path) as f:
        definitions = json.load(f)["definitions"]
    definitions = loosen(definitions)
    definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = dict(
        QUANTITY, description="a quantity: a string such as 100Mi or 1.5, or a number")
    kinds = 0
    for variant, defs in (("loose", definitions), ("strict", strict(definitions))):
        write(os.path.join(out, variant, "_definitions.json"), {"definitions": defs})
        for name, schema in defs.items():
            for gvk in schema.get("x-kubernetes-group-version-kind", []):
                ref = {"$ref": "_definitions.json#/definitions/" + name}
                write(os.path.join(out, variant, file_name(gvk["kind"], gvk["group"], gvk["version"])), ref)
                kinds += variant == "loose"
    print(f"{kinds} kinds from {swagger_path} in {out}/{{loose,strict}}")


def from_crd(crd_path, out):
    with open(crd_path) as f:
        crd = json.load(f)
    spec = crd["spec"]
    for version in spec["versions"]:
        schema = loosen(version["schema"]["openAPIV3Schema"])
        name = file_name(spec["names"]["kind"], spec["group"], version["name"])
        write(os.path.join(out, "loose", name), schema)
        write(os.path.join(out, "strict", name), strict(schema))
        print(f"{spec['names']['kind']} {spec['group']}/{version['name']} from {crd_path} in {out}/{{loose,strict}}/{name}")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("api", "crd"):
        sys.exit(__doc__)
    (from_api if sys.argv[1] == "api" else from_crd)(sys.argv[2], sys.argv[3])
