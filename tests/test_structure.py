"""The installed package's shape: no import cycle among its modules, no module over ~300 lines.

Both walk the source files of the installed `packbench` package, located through the import system
(so the package-dir mapping of algorithms/ and experiments/ is followed), and parse them; only the
packages are imported (to locate their folders), never a module that is not already imported by them.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path

MAX_LINES = 300
# Modules over the limit, each with its owner; a module that gets under the limit must leave this list.
OVER_LIMIT_EXEMPT: dict[str, str] = {}
# Cycles on main that their owner is removing, each as the set of its modules; a cycle that grows, or
# any other, fails. Once one is gone the test says to remove it here.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``line`` of its file."""

    source: str
    target: str
    line: int


def _spec(name: str):
    try:
        return importlib.util.find_spec(name)
    except (ModuleNotFoundError, ValueError):  # a parent is a module, not a package
        return None


def package_modules() -> dict[str, Path]:
    """Every module of the installed package: dotted name -> source file.

    Walks from `packbench` along its imports and through each package's folder, locating each name
    with the import system (so it follows the package-dir mapping of an editable install too).
    """
    modules: dict[str, Path] = {}
    todo = ["packbench"]
    while todo:
        name = todo.pop()
        if not name or name in modules:
            continue
        spec = _spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        modules[name] = Path(spec.origin)
        todo.append(name.rpartition(".")[0])  # the enclosing package, and through it its other modules
        for location in spec.submodule_search_locations or ():
            for path in sorted(Path(location).iterdir()):
                if path.suffix == ".py" and path.name != "__init__.py":
                    todo.append(f"{name}.{path.stem}")
                elif path.is_dir() and (path / "__init__.py").is_file():
                    todo.append(f"{name}.{path.name}")
        package = name if spec.submodule_search_locations else name.rpartition(".")[0]
        for node in _imports(ast.parse(modules[name].read_text(encoding="utf-8"))):
            todo += [t for t in _candidates(node, package) if t == "packbench" or t.startswith("packbench.")]
    return modules


def _candidates(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The module names an import statement may refer to (``from X import y``: ``X.y``, then ``X``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        parts = package.split(".")
        anchor = ".".join(parts[:len(parts) - node.level + 1])
        base = f"{anchor}.{node.module}" if node.module else anchor
    else:
        base = node.module or ""
    return [name for alias in node.names for name in (f"{base}.{alias.name}", base)]


def _imports(tree: ast.AST):
    """Every import statement, at any depth: functions and ``if TYPE_CHECKING:`` blocks included.

    A TYPE_CHECKING import is no import at run time, but it is a dependency all the same (a type checker,
    a reader and a refactoring follow it), so a circle through one is a circle.
    """
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            stack.append(child)


def import_edges(modules: dict[str, Path]) -> list[Edge]:
    """The imports among `modules`, resolved: relative ones against the importing module's package.

    ``from X import y`` is an edge to ``X.y`` when that is a module (importing a submodule needs only
    its package's ``__init__`` to have started), else to ``X``.
    """
    edges = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                cands = _candidates(node, package)
                targets = [sub if sub in modules else base for sub, base in zip(cands[::2], cands[1::2])]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rpartition(".")[0]  # `import a.b.c` where c is an attribute
                if target in modules and target != name:
                    edges.append(Edge(name, target, node.lineno))
    return edges


def find_cycles(edges: list[Edge]) -> list[tuple[frozenset[str], list[Edge]]]:
    """Each strongly connected component of more than one module (Tarjan), with one shortest cycle."""
    graph: dict[str, list[Edge]] = {}
    for e in edges:
        graph.setdefault(e.source, []).append(e)
        graph.setdefault(e.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for e in graph[v]:
            if e.target not in index:
                visit(e.target)
                low[v] = min(low[v], low[e.target])
            elif e.target in on_stack:
                low[v] = min(low[v], index[e.target])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for comp in components:
        start = min(comp)
        # Breadth-first from `start` back to itself inside the component gives a shortest cycle.
        paths: dict[str, list[Edge]] = {start: []}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for e in graph[v]:
                    if e.target not in comp:
                        continue
                    if e.target == start:
                        found = paths[v] + [e]
                        break
                    if e.target not in paths:
                        paths[e.target] = paths[v] + [e]
                        nxt.append(e.target)
                if found:
                    break
            frontier = nxt
        cycles.append((frozenset(comp), found))
    return cycles


def describe_cycle(cycle: list[Edge], modules: dict[str, Path]) -> str:
    steps = "\n".join(f"    {e.source} imports {e.target}  ({_rel(modules[e.source])}:{e.line})" for e in cycle)
    return f"  {' -> '.join([e.source for e in cycle] + [cycle[0].source])}\n{steps}"


def _rel(path: Path) -> str:
    parts = path.parts
    for anchor in ("algorithms", "experiments", "packbench"):
        if anchor in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(anchor) - 1:])
    return path.name


def test_the_walk_sees_the_whole_package_and_its_function_level_imports():
    modules = package_modules()
    assert {"packbench", "packbench.algorithms.pack", "packbench.algorithms.orders.curves",
            "packbench.experiments.commands.list"} <= set(modules)
    edges = {(e.source, e.target) for e in import_edges(modules)}
    # Relative, absolute, submodule, function-level and TYPE_CHECKING imports are all resolved.
    assert ("packbench.algorithms.pack_parts", "packbench.algorithms.registry") in edges
    assert ("packbench.algorithms.orders.curve", "packbench.algorithms.orders.curves") in edges
    assert ("packbench.experiments.commands.list", "packbench.experiments.families") in edges
    assert ("packbench.experiments.schema", "packbench.experiments.planning.runs") in edges  # under TYPE_CHECKING


def test_find_cycles_reports_a_cycle_with_its_lines():
    edges = [Edge("p.a", "p.b", 3), Edge("p.b", "p.c", 5), Edge("p.c", "p.a", 7), Edge("p.c", "p.d", 8)]
    ((members, cycle),) = find_cycles(edges)
    assert members == {"p.a", "p.b", "p.c"}
    assert [(e.source, e.target, e.line) for e in cycle] == [("p.a", "p.b", 3), ("p.b", "p.c", 5), ("p.c", "p.a", 7)]
    assert find_cycles([Edge("p.a", "p.b", 1), Edge("p.b", "p.c", 1)]) == []


def test_no_import_cycles():
    modules = package_modules()
    found = find_cycles(import_edges(modules))
    members = [m for m, _ in found]
    new = [(m, c) for m, c in found if m not in KNOWN_CYCLES]
    assert not new, (
        "import cycles among packbench's modules (function-level and TYPE_CHECKING imports count: they "
        "only defer or hide the circle). Break each by moving what both sides need into a module that imports neither, or by "
        "passing it in:\n" + "\n".join(f"  modules in one circle: {', '.join(sorted(m))}\n{describe_cycle(c, modules)}"
                                  for m, c in new))
    fixed = [owner for known, owner in KNOWN_CYCLES.items() if known not in members]
    assert not fixed, f"a known cycle is gone; remove it from KNOWN_CYCLES in {__file__}: {fixed}"


def test_no_module_over_the_line_limit():
    modules = package_modules()
    lines = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules.items()}
    over = {name: n for name, n in lines.items() if n > MAX_LINES and name not in OVER_LIMIT_EXEMPT}
    assert not over, (f"modules over {MAX_LINES} lines; split each into a subpackage of focused modules: " +
                      ", ".join(f"{_rel(modules[n])} ({k} lines)" for n, k in sorted(over.items())))
    stale = sorted(name for name in OVER_LIMIT_EXEMPT if name in lines and lines[name] <= MAX_LINES)
    assert not stale, f"now within {MAX_LINES} lines, remove from OVER_LIMIT_EXEMPT in {__file__}: {stale}"
    gone = sorted(name for name in OVER_LIMIT_EXEMPT if name not in lines)
    assert not gone, f"no such modules any more, remove from OVER_LIMIT_EXEMPT in {__file__}: {gone}"

