"""The package's surface: its version, `from tessel import *`, and the type stubs
(tessel/__init__.pyi, tessel/_tessel.pyi, py.typed) against the real names."""
import ast
import builtins
import inspect
import os
import re
import subprocess
import sys
import types

import pytest

import tessel
from conftest import ROOT

PACKAGE = os.path.dirname(tessel.__file__)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(tessel VERSION ([0-9.]+)", f.read()).group(1)


def test_version_is_the_projects():
    assert isinstance(tessel.__version__, str)
    assert tessel.__version__ == project_version()
    assert tessel._tessel.__version__ == tessel.__version__


def test_version_is_the_wheels():
    from importlib import metadata
    try:
        dist = metadata.distribution("tessel")
    except metadata.PackageNotFoundError:
        pytest.skip("tessel is not installed from a wheel here (no distribution metadata)")
    assert dist.version == tessel.__version__


def test_version_is_the_command_lines(cli):
    out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "tessel " + tessel.__version__


def test_import_does_not_import_torch():
    """PyTorch stays optional: the algebra (and `import tessel`) never loads it."""
    code = "import sys, tessel; tessel.size((4, 3)); assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def test_star_import_shadows_no_builtin():
    namespace = {}
    exec("from tessel import *", namespace)
    names = set(namespace) - {"__builtins__"}
    assert names == set(tessel.__all__)
    assert not names & set(dir(builtins)), sorted(names & set(dir(builtins)))
    for name in tessel.__all__:
        assert hasattr(tessel, name), name
    # The calculator's eval and filter stay reachable as attributes.
    assert tessel.eval(tessel.Layout((4, 3)), 5) == 5
    assert tessel.filter(tessel.Layout("(4,1):(1,0)")) == tessel.Layout("4:1")


def public_names(module):
    """The names a user of the module sees: no _private ones, no submodules."""
    return {n for n in dir(module) if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType)}


def stub_names(path):
    """Top-level names a stub defines (functions, classes, annotated or assigned variables),
    and the methods and attributes of each class."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names, classes, functions = set(), {}, {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.FunctionDef):
            functions.setdefault(node.name, node)
        elif isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = members
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names, classes, functions


def test_stub_files_are_in_the_package():
    for name in ("__init__.pyi", "_tessel.pyi", "py.typed"):
        assert os.path.isfile(os.path.join(PACKAGE, name)), name


def test_package_stub_names_match():
    names, classes, _ = stub_names(os.path.join(PACKAGE, "__init__.pyi"))
    public = {n for n in names if not n.startswith("_")}
    assert public == public_names(tessel), (sorted(public - public_names(tessel)),
                                            sorted(public_names(tessel) - public))
    assert "__version__" in names and "__all__" in names
    for cls in ("Layout", "Tiler", "Drawing", "Error"):
        real = {n for n in dir(getattr(tessel, cls)) if not n.startswith("_")} - set(dir(ValueError))
        if cls == "Error":  # attributes of the instance
            real |= set(vars(tessel.Error("message", "keyword", "expression")))
        stubbed = {n for n in classes[cls] if not n.startswith("_")}
        assert stubbed == real, (cls, sorted(stubbed - real), sorted(real - stubbed))


def parameters_of(node):
    """(name, kind) of each parameter of a stub's def, as inspect names the kinds."""
    a = node.args
    out = [(p.arg, "POSITIONAL_ONLY") for p in a.posonlyargs]
    out += [(p.arg, "POSITIONAL_OR_KEYWORD") for p in a.args]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL"))
    out += [(p.arg, "KEYWORD_ONLY") for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD"))
    return out


def test_package_stub_signatures_match():
    """Each function written in Python has the stub's parameters, in order and kind (the
    operations, made at import with *args, are described by the stub alone)."""
    _, _, functions = stub_names(os.path.join(PACKAGE, "__init__.pyi"))
    checked = 0
    for name, node in functions.items():
        obj = getattr(tessel, name, None)
        if obj is None or name in tessel._OPERATIONS:
            continue
        real = [(p.name, p.kind.name) for p in inspect.signature(obj).parameters.values()]
        assert parameters_of(node) == real, name
        checked += 1
    assert checked >= 10


def test_extension_stub_names_match():
    names, classes, functions = stub_names(os.path.join(PACKAGE, "_tessel.pyi"))
    real = {n for n in dir(tessel._tessel) if not n.startswith("__")} | {"__version__"}
    gemm_only = {"_attention", "_dlpack_info", "_gemm", "_gemm_grouped", "_plan", "_time_cpp_calls"}
    assert real <= names, sorted(real - names)
    missing = names - real - {"IntTuple"}
    assert missing == (set() if tessel.has_gemm else gemm_only), sorted(missing)
    for cls in ("_Layout", "_Drawing"):
        members = {n for n in dir(getattr(tessel._tessel, cls)) if not n.startswith("_")}
        assert members == classes[cls], (cls, sorted(members ^ classes[cls]))
    # nanobind's docstrings carry the real parameter names: the stub's are the same.
    for name, node in functions.items():
        obj = getattr(tessel._tessel, name, None)
        if obj is None:
            continue
        doc_signature = obj.__doc__.splitlines()[0] if obj.__doc__ else ""
        wanted = [p for p, _ in parameters_of(node)]
        got = re.findall(r"(\w+): ", doc_signature.split("(", 1)[1].rsplit(")", 1)[0]) if "(" in doc_signature else []
        assert got == wanted, (name, doc_signature)
