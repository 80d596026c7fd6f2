#!/usr/bin/env python3
"""Lists a crate's public API from rustdoc JSON: every path a user can name.

Usage: scripts/public_api.py ROOT_CRATE.json [OTHER_CRATE.json ...]

Build the JSON with nightly rustdoc, for the crate and for every workspace
crate it re-exports from, e.g.:

    cargo +nightly rustdoc -p brick-profiler --lib -- -Z unstable-options \
        --output-format json

The walk starts at the first crate's root module and follows public modules
and re-exports (named and glob) into the other crates given. Each line is
`kind path`, with enum variants, public fields and inherent associated items
beneath their type, sorted, so two listings diff cleanly.
"""

import json
import sys


class Crate:
    def __init__(self, path):
        with open(path) as f:
            self.doc = json.load(f)
        self.index = self.doc["index"]
        root = self.index[str(self.doc["root"])]
        self.name = root["name"]
        # Canonical path -> id for this crate's own items.
        self.by_path = {}
        for id_, p in self.doc["paths"].items():
            if p["crate_id"] == 0:
                self.by_path[tuple(p["path"][1:])] = id_

    def item(self, id_):
        return self.index.get(str(id_))

    def foreign(self, id_):
        """(crate name, path within it) of an item this crate only names."""
        p = self.doc["paths"].get(str(id_))
        if p is None:
            return None
        crate = self.doc["external_crates"].get(str(p["crate_id"]), {}).get("name")
        if p["crate_id"] == 0:
            crate = self.name
        return crate, tuple(p["path"][1:])


def kind_of(item):
    return next(iter(item["inner"])) if isinstance(item["inner"], dict) else item["inner"]


class Walker:
    def __init__(self, crates):
        self.crates = {c.name: c for c in crates}
        self.lines = set()
        self.seen = set()

    def resolve(self, crate, id_):
        """The crate and item an id refers to, following it into another crate."""
        item = crate.item(id_)
        if item is not None:
            return crate, item
        target = crate.foreign(id_)
        if target is None:
            return None, None
        other = self.crates.get(target[0])
        if other is None:
            return None, target
        oid = other.by_path.get(target[1])
        if oid is None:
            return None, target
        return other, other.item(oid)

    def module(self, crate, item, path):
        key = (crate.name, item["id"], path)
        if key in self.seen:
            return
        self.seen.add(key)
        for child_id in item["inner"]["module"]["items"]:
            child = crate.item(child_id)
            if child is None or child.get("visibility") != "public":
                continue
            if self.hidden(child):
                continue
            self.entry(crate, child, path)

    @staticmethod
    def hidden(item):
        return any("doc(hidden)" in str(a) for a in item.get("attrs", []))

    def entry(self, crate, item, path):
        kind = kind_of(item)
        if kind == "use":
            use = item["inner"]["use"]
            if use["id"] is None:
                self.lines.add(f"use {'::'.join(path + (use['name'],))} = {use['source']}")
                return
            tcrate, target = self.resolve(crate, use["id"])
            if tcrate is None:
                shown = "::".join(target[1]) if isinstance(target, tuple) else use["source"]
                origin = target[0] if isinstance(target, tuple) else "?"
                name = use["name"]
                if not use["is_glob"]:
                    self.lines.add(f"use {'::'.join(path + (name,))} = {origin}::{shown}")
                else:
                    self.lines.add(f"use {'::'.join(path)}::* = {origin}::{shown}::*")
                return
            if use["is_glob"]:
                if kind_of(target) == "module":
                    self.module(tcrate, target, path)
                elif kind_of(target) == "enum":
                    for v in target["inner"]["enum"]["variants"]:
                        self.entry(tcrate, tcrate.item(v), path)
                return
            renamed = dict(target)
            renamed["name"] = use["name"]
            self.entry(tcrate, renamed, path)
            return
        name = item.get("name")
        if name is None:
            return
        here = path + (name,)
        shown = "::".join(here)
        if kind == "module":
            self.lines.add(f"mod {shown}")
            self.module(crate, item, here)
            return
        if kind == "function":
            self.lines.add(f"fn {shown}")
            return
        self.lines.add(f"{kind} {shown}")
        inner = item["inner"][kind] if isinstance(item["inner"], dict) else {}
        if kind == "enum":
            for v in inner.get("variants", []):
                var = crate.item(v)
                if var:
                    self.lines.add(f"variant {shown}::{var['name']}")
        if kind == "struct":
            plain = inner.get("kind", {})
            if isinstance(plain, dict) and "plain" in plain:
                for f in plain["plain"]["fields"]:
                    fld = crate.item(f)
                    if fld and fld.get("visibility") == "public":
                        self.lines.add(f"field {shown}.{fld['name']}")
        for impl_id in inner.get("impls", []) if isinstance(inner, dict) else []:
            imp = crate.item(impl_id)
            if imp is None:
                continue
            body = imp["inner"]["impl"]
            if body.get("trait") is not None or body.get("is_synthetic") or body.get("blanket_impl"):
                continue
            for a in body["items"]:
                assoc = crate.item(a)
                if assoc and assoc.get("visibility") == "public" and not self.hidden(assoc):
                    self.lines.add(f"{kind_of(assoc)} {shown}::{assoc['name']}")


def main():
    crates = [Crate(p) for p in sys.argv[1:]]
    walker = Walker(crates)
    root = crates[0]
    top = root.item(root.doc["root"])
    walker.module(root, top, (root.name,))
    for line in sorted(walker.lines, key=lambda l: (l.split(" ", 1)[1], l)):
        print(line)


if __name__ == "__main__":
    main()
