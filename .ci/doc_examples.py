#!/usr/bin/env python3
"""Every public item of a crate has a doc example.

Reads the rustdoc JSON that cargo-public-api leaves behind (the public API
step of .ci/run, on its pinned nightly) and lists each public item of the
crate itself (functions, methods, types, traits, constants, modules' items)
whose docs hold no code block. Only what a user can reach counts: items
named from the crate root through public modules and re-exports, and the
methods of those types and traits; a `pub` item in a private module (a
sealed trait's machinery) is not the user's. Items of trait impls are the
trait's business; fields and variants are described by their parent's
example.

usage: doc_examples.py target/api/doc/antpool.json [...]
"""
import json
import sys

SKIPPED_KINDS = {"impl", "use", "module", "struct_field", "variant", "assoc_type", "assoc_const"}


def reachable(doc):
    """Ids of the items a user can name: from the root module through public
    modules and `use` re-exports."""
    index = doc["index"]
    seen, todo = set(), [str(doc["root"])]
    while todo:
        key = todo.pop()
        if key in seen or key not in index:
            continue
        seen.add(key)
        inner = index[key].get("inner") or {}
        if "module" in inner:
            todo.extend(str(i) for i in inner["module"]["items"]
                        if index.get(str(i), {}).get("visibility") == "public")
        elif "use" in inner and inner["use"].get("id") is not None:
            todo.append(str(inner["use"]["id"]))
    return seen


def owner(item):
    """The type an inherent impl is for, as an id (None if not a plain path)."""
    target = item["inner"]["impl"].get("for") or {}
    path = target.get("resolved_path") or {}
    return None if path.get("id") is None else str(path["id"])


def missing_examples(path):
    doc = json.load(open(path))
    index = doc["index"]
    named = reachable(doc)
    for item in list(index.values()):
        inner = item.get("inner") or {}
        if "impl" in inner and inner["impl"].get("trait") is None and owner(item) in named:
            named.update(str(i) for i in inner["impl"].get("items", []))
        if "trait" in inner and str(item["id"]) in named:
            named.update(str(i) for i in inner["trait"].get("items", []))
    in_trait_impls = set()
    for item in index.values():
        impl = item.get("inner", {}).get("impl")
        if impl and (impl.get("trait") is not None or impl.get("blanket_impl") is not None
                     or impl.get("is_synthetic")):
            in_trait_impls.update(str(i) for i in impl.get("items", []))
    for key, item in index.items():
        if item.get("crate_id") != 0 or item.get("visibility") != "public" or key not in named:
            continue
        kind = next(iter(item.get("inner") or {"?": None}))
        if kind in SKIPPED_KINDS or key in in_trait_impls:
            continue
        if "```" not in (item.get("docs") or ""):
            span = item.get("span") or {}
            yield f"{span.get('filename')}:{(span.get('begin') or [0])[0]}: {kind} {item.get('name')}"


def main():
    bad = [line for path in sys.argv[1:] for line in missing_examples(path)]
    for line in sorted(bad):
        print(f"no doc example: {line}")
    if bad:
        sys.exit(f"{len(bad)} public item(s) without a doc example")
    print(f"every public item has a doc example ({', '.join(sys.argv[1:])})")


if __name__ == "__main__":
    main()
