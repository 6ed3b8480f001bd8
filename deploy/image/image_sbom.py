"""Completes the image's CycloneDX SBOM: to the Java libraries that cyclonedx-maven-plugin listed it adds
what deploy/scripts/build-image-base.sh put in the base (its <base.tar>.components.tsv): each Debian package,
and each etcd binary under /opt/etcd-runbooks/releases with the package or Go module it was built from, its
SHA-256 and its place in the image.

Usage: python3 image_sbom.py <sbom.json> <components.tsv>  (rewrites sbom.json)
components.tsv, tab-separated:
  deb   <purl> <name> <version>                     a Debian package of the base
  file  <purl> <name> <version> <path> <sha256>     a file in the image and what it was built from
"""

import json
import os
import sys


def component(fields):
    kind, purl, name, version, *rest = fields
    if kind == "deb":
        return {"type": "library", "bom-ref": purl, "name": name, "version": version, "purl": purl}
    if kind == "file":
        path, sha256 = rest
        return {
            "type": "application",
            "bom-ref": "file:" + path,
            "name": name,
            "version": version,
            "purl": purl,
            "hashes": [{"alg": "SHA-256", "content": sha256}],
            "evidence": {"occurrences": [{"location": path}]},
        }
    raise SystemExit(f"image_sbom.py: unknown kind {kind!r} in {fields}")


def main(sbom_file, components_file):
    if not os.path.exists(sbom_file):
        raise SystemExit(
            f"image_sbom.py: {sbom_file} is missing: cyclonedx-maven-plugin's makeBom writes it, and it runs only"
            " with Maven online (not with -o)")
    with open(sbom_file, encoding="utf-8") as f:
        sbom = json.load(f)
    with open(components_file, encoding="utf-8") as f:
        added = [component(line.rstrip("\n").split("\t")) for line in f if line.strip()]
    known = {c.get("bom-ref") for c in sbom.get("components", [])}
    sbom.setdefault("components", []).extend(c for c in added if c["bom-ref"] not in known)
    with open(sbom_file, "w", encoding="utf-8") as f:
        json.dump(sbom, f, indent=2)
        f.write("\n")
    print(f"image SBOM: {sbom_file}: {len(sbom['components'])} components ({len(added)} from the base)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
