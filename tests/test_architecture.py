"""The house: stage packages, layers that run one way, no import cycle (docs/architecture.md)."""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import tomllib
from pathlib import Path

from importlinter.cli import lint_imports

import masrl

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(masrl.__file__).parent
STAGES = {"core", "bib", "corpus", "analyses", "render", "trace", "audits", "checks", "build", "review", "commands"}


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_layer_contracts_are_kept():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, out.getvalue()
    assert "Contracts: 2 kept, 0 broken." in out.getvalue()


def test_the_top_level_is_the_stages_and_the_cli():
    entries = {p.stem for p in PACKAGE.iterdir()
               if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))}
    assert entries == STAGES | {"cli"}


def test_every_stage_is_a_layer_and_says_what_it_may_import():
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    named = {part.strip().removeprefix("masrl.") for layer in layers for part in layer.split("|")}
    assert named == STAGES | {"cli"}
    for stage in sorted(STAGES):
        doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "May import" in doc, stage


def test_every_command_is_independent_of_the_others():
    independent = next(c for c in _contracts() if c["type"] == "independence")["modules"]
    commands = {f"masrl.commands.{p.stem}" for p in (PACKAGE / "commands").glob("*.py") if p.stem != "__init__"}
    assert set(independent) == commands


def _imports() -> dict[str, set[str]]:
    """Module -> the masrl modules it imports, lazy imports inside functions included."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        modules[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = path
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                head = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
                targets = [f"{head}.{a.name}" if f"{head}.{a.name}" in modules else head for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def test_there_is_no_import_cycle_between_modules():
    edges = _imports()
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle.extend(path[path.index(nxt):] + [node, nxt] if nxt in path else [node, nxt])
                return True
            if nxt not in state and visit(nxt, path + [node]):
                return True
        state[node] = 2
        return False

    for module in sorted(edges):
        if module not in state and visit(module, []):
            break
    assert not cycle, " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    # The check above can fail: a two-module cycle written to a scratch package is found.
    pkg = tmp_path / "masrl"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("def f():\n    from . import y\n")
    (pkg / "a" / "y.py").write_text("from .x import f\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    edges = _imports()
    assert edges["masrl.a.x"] == {"masrl.a.y"} and edges["masrl.a.y"] == {"masrl.a.x"}


def test_every_module_imports():
    """Most modules are imported lazily, by the command that needs them: a name one of them
    imports that no longer exists would only fail when a user runs that command. Import all."""
    import importlib
    import pkgutil

    import masrl

    failed = []
    for info in pkgutil.walk_packages(masrl.__path__, "masrl."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as err:
            failed.append(f"{info.name}: {err}")
    assert failed == []


def test_every_test_file_is_in_a_folder_pytest_collects(pytestconfig):
    """A test module under a folder that pytest skips (its ``norecursedirs``: ``build``, ``dist``,
    ``venv``, dot-folders, ...) would never run, and never fail."""
    import fnmatch

    skipped = pytestconfig.getini("norecursedirs")
    tests = Path(__file__).resolve().parent
    unseen = [str(path.relative_to(tests)) for path in sorted(tests.rglob("test_*.py"))
              if "data" not in path.relative_to(tests).parts[:1]
              and any(fnmatch.fnmatch(part, pattern) for part in path.relative_to(tests).parts[:-1] for pattern in skipped)]
    assert "build" in skipped and unseen == [], unseen
