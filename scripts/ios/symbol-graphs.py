#!/usr/bin/env python3
"""The VolumeKit module's iOS symbol graphs, kept in the repository (docs/symbol-graphs/ios/).

The module's files are all `#if os(iOS)`, so a Linux build has no symbol graph for them; scripts/build-ios.sh
extracts one where an iOS SDK is present, and scripts/build-docs.sh builds the module's API pages from the
copy committed here. The graphs are stored in a stable, diffable form: one symbol or relationship a line,
sorted, with the checkout's absolute path replaced by ROOT_TOKEN. Beside them, SOURCES names a hash of the
iOS sources they were made from, so that the docs build can say when they are stale.

usage: symbol-graphs.py store EXTRACTED_DIR STORE_DIR REPO_ROOT   write the stable form and the hash
       symbol-graphs.py expand STORE_DIR OUT_DIR REPO_ROOT        the graphs for docc, paths made absolute
       symbol-graphs.py status STORE_DIR REPO_ROOT                "current", "stale …" or "missing"
       symbol-graphs.py undocumented REPO_ROOT                    public iOS declarations with no `///`
"""
import hashlib
import json
import pathlib
import re
import sys

MODULE = "VolumeKit"
SOURCES = pathlib.Path("Sources") / MODULE
ROOT_TOKEN = "file:///VOLUMEKIT_ROOT/"
HASH_FILE = "SOURCES"


def sources_hash(root):
    """A hash of every Swift file of the module (its path and bytes): what the graphs are made from."""
    digest = hashlib.sha256()
    files = sorted(p for p in (root / SOURCES).rglob("*.swift") if p.is_file())
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest(), len(files)


def recorded_hash(store):
    path = store / HASH_FILE
    if not path.is_file():
        return None
    for line in path.read_text().splitlines():
        if line.startswith("sha256 "):
            return line.split()[1]
    return None


def dump(graph):
    """One JSON line a symbol and a relationship, sorted: a change to one declaration is a one-line diff."""
    symbols = sorted(graph.get("symbols", []), key=lambda s: s["identifier"]["precise"])
    relationships = sorted(
        graph.get("relationships", []),
        key=lambda r: (r.get("source", ""), r.get("kind", ""), r.get("target", ""), json.dumps(r, sort_keys=True)))
    compact = {"separators": (",", ":"), "ensure_ascii": False, "sort_keys": True}
    head = {k: v for k, v in graph.items() if k not in ("symbols", "relationships")}
    lines = ["{"]
    for key, value in sorted(head.items()):
        lines.append(f'"{key}":{json.dumps(value, **compact)},')
    for key, items in (("relationships", relationships), ("symbols", symbols)):
        lines.append(f'"{key}":[')
        lines.extend(json.dumps(item, **compact) + ("," if i + 1 < len(items) else "") for i, item in enumerate(items))
        lines.append("]," if key == "relationships" else "]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def store(extracted, store_dir, root):
    graphs = sorted(extracted.glob(f"{MODULE}.symbols.json")) + sorted(extracted.glob(f"{MODULE}@*.symbols.json"))
    if not graphs:
        sys.exit(f"symbol-graphs: no {MODULE} symbol graph in {extracted}")
    store_dir.mkdir(parents=True, exist_ok=True)
    for old in store_dir.glob("*.symbols.json"):
        old.unlink()
    prefix = root.resolve().as_uri().rstrip("/") + "/"
    for path in graphs:
        text = path.read_text(encoding="utf-8")
        graph = json.loads(text.replace(prefix, ROOT_TOKEN))
        (store_dir / path.name).write_text(dump(graph), encoding="utf-8")
    digest, count = sources_hash(root)
    (store_dir / HASH_FILE).write_text(
        f"sha256 {digest}\n"
        f"# of the {count} Swift files under {SOURCES.as_posix()}/ (path and bytes, sorted), written by\n"
        f"# scripts/build-ios.sh with the graphs beside it; scripts/build-docs.sh compares it with the sources.\n")
    print(f"symbol-graphs: {len(graphs)} graph(s) of {MODULE} stored in {store_dir} (sources {digest[:12]})")


def expand(store_dir, out, root):
    out.mkdir(parents=True, exist_ok=True)
    prefix = root.resolve().as_uri().rstrip("/") + "/"
    for path in sorted(store_dir.glob("*.symbols.json")):
        (out / path.name).write_text(path.read_text(encoding="utf-8").replace(ROOT_TOKEN, prefix), encoding="utf-8")


def status(store_dir, root):
    if not (store_dir / f"{MODULE}.symbols.json").is_file():
        return "missing"
    digest, _ = sources_hash(root)
    recorded = recorded_hash(store_dir)
    if recorded == digest:
        return "current"
    return f"stale {recorded or 'none'} {digest}"


DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:override|nonisolated|final|static|class|convenience|required)\s+)*"
    r"(?:public|open)\b(?!\s*(?:extension|import)\b)")


def undocumented(root):
    """Public declarations of the module's sources with no `///` comment above them (attributes may stand
    between): read from the sources, so it holds on Linux whether or not the stored graphs are current."""
    found = []
    for path in sorted((root / SOURCES).rglob("*.swift")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if not DECLARATION.match(line):
                continue
            above = number - 1
            while above >= 0:
                text = lines[above].strip()
                if text.startswith(")"):  # the end of a multi-line attribute: go to its `@`
                    while above >= 0 and not lines[above].strip().startswith("@"):
                        above -= 1
                if above >= 0 and lines[above].strip().startswith("@"):
                    above -= 1
                    continue
                break
            if above < 0 or not lines[above].strip().startswith("///"):
                found.append(f"{path.relative_to(root).as_posix()}:{number + 1}: {line.strip()}")
    return found


def main(argv):
    if len(argv) == 4 and argv[0] == "store":
        store(pathlib.Path(argv[1]), pathlib.Path(argv[2]), pathlib.Path(argv[3]))
    elif len(argv) == 4 and argv[0] == "expand":
        expand(pathlib.Path(argv[1]), pathlib.Path(argv[2]), pathlib.Path(argv[3]))
    elif len(argv) == 3 and argv[0] == "status":
        print(status(pathlib.Path(argv[1]), pathlib.Path(argv[2])))
    elif len(argv) == 2 and argv[0] == "undocumented":
        print("\n".join(undocumented(pathlib.Path(argv[1]))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
